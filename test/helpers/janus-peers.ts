// A meeting on a spawned daemon with its own Janus, and werift publishers whose offers the test
// rewrites before they reach the server (as a modified page would), for the probes of issue 28.
import { networkInterfaces } from 'node:os';
import type { Test } from 'tap';
import { RTCPeerConnection, RtpHeader, RtpPacket, useOPUS, useVP8, type RTCRtpSender } from 'werift';
import { vp8Frame } from '../../bench/lib/synthetic-peer.js';
import { call, daemonFor } from './api.js';
import type { Daemon } from './daemon.js';
import { janusMissing } from './janus.js';
import { connectLive, type LiveClient } from './live.js';

// Janus 1.1.2 gathers no loopback candidates: media needs an interface with an address.
export const machineAddress = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .find((a) => a.family === 'IPv4' && !a.internal)?.address;
export const janusMediaSkip: string | false =
  janusMissing ?? (machineAddress ? false : 'no non-loopback IPv4 interface for Janus to gather candidates on');

export interface JanusMeeting {
  readonly daemon: Daemon;
  readonly roomId: string;
  /** The moderator's live socket (she sends the locks). */
  readonly moderator: LiveClient;
  /** A participant enters (no waiting room): her session. */
  pupil(name: string): Promise<string>;
  /** Opens a live socket of `session` (closed at teardown). */
  connect(session: string): Promise<LiveClient>;
}

/** A daemon with SERVICE_MEDIA=janus on `rtpPorts`, a room without waiting room, its moderator in it. */
export async function janusMeeting(t: Test, rtpPorts: string, env: Record<string, string> = {}): Promise<JanusMeeting> {
  const daemon = await daemonFor(t, { env: { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: rtpPorts, ...env } });
  const roomId = 'probe';
  const created = await call(daemon, '/api/rooms', {
    method: 'POST',
    json: { room_id: roomId, name: 'Probe', waiting_room: 'off' },
  });
  if (created.status !== 201) throw new Error(`creating the room: ${created.status} ${created.text}`);
  const link = await call(daemon, `/api/rooms/${roomId}/links`, { method: 'POST', json: { role: 'moderator' } });
  const token = new URL(String(link.body?.url), daemon.url).searchParams.get('t');
  const enter = async (path: string, json: unknown) => {
    const answer = await call(daemon, `/room/${roomId}/${path}`, { method: 'POST', json, token: null });
    const session = answer.body?.session as string | undefined;
    if (!session) throw new Error(`${path}: no session (${answer.status} ${answer.text})`);
    return session;
  };
  const connect = async (session: string) => {
    const { client, welcome } = await connectLive(daemon, roomId, session);
    t.teardown(() => client.socket.close());
    if (welcome.media !== 'janus') throw new Error(`the meeting carries media by ${welcome.media}`);
    return client;
  };
  const moderator = await connect(await enter('start', { name: 'Teacher', t: token }));
  return { daemon, roomId, moderator, pupil: (name) => enter('knock', { name, note: '' }), connect };
}

const peerConfig = {
  iceServers: [],
  iceUseIpv6: false,
  bundlePolicy: 'max-bundle' as const,
  codecs: { audio: [useOPUS()], video: [useVP8()] },
};

/**
 * A werift publisher with a microphone and a camera (sendonly), offering to `sfu:publish` through
 * a live socket; `rewrite` turns its real offer into the one the server gets. It sends RTP on
 * both senders whatever was negotiated, as a modified page would, once its connection is up.
 */
export class RewritingPublisher {
  readonly pc = new RTCPeerConnection(peerConfig);
  private readonly audio: RTCRtpSender;
  private readonly video: RTCRtpSender;
  private timer: NodeJS.Timeout | null = null;
  sent = { audio: 0, video: 0 };

  constructor(readonly live: LiveClient) {
    this.audio = this.pc.addTransceiver('audio', { direction: 'sendonly' }).sender;
    this.video = this.pc.addTransceiver('video', { direction: 'sendonly' }).sender;
  }

  /**
   * Offers the rewritten description; resolves with the server's answer, its error, or `unusable
   * answer`. Without `apply` the answer is not applied: she never checks Janus's candidates.
   */
  async offer(
    rewrite: (sdp: string) => string,
    timeoutMs = 15_000,
    apply = true,
  ): Promise<{ answer: string } | { error: string }> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    if (this.pc.iceGatheringState !== 'complete')
      await this.pc.iceGatheringStateChange.watch((state) => state === 'complete');
    const sdp = rewrite(this.pc.localDescription?.sdp ?? '');
    this.live.send({ type: 'signal', to: 'sfu:publish', data: { description: { type: 'offer', sdp } } });
    const answer = this.live
      .next(
        'signal',
        (m) => m.from === 'sfu:publish' && 'description' in m.data && m.data.description.type === 'answer',
        timeoutMs,
      )
      .then(
        (m) => ({ m }),
        () => null,
      );
    const error = this.live
      .next('error', () => true, timeoutMs)
      .then(
        (e) => ({ e }),
        () => null,
      );
    const first = await Promise.race([answer, error]);
    if (first === null) throw new Error(`neither an answer nor an error in ${timeoutMs} ms`);
    if ('e' in first) return { error: `${first.e.code}: ${first.e.message}` };
    const data = first.m.data;
    const remote = 'description' in data ? (data.description.sdp ?? '') : '';
    if (!apply) return { answer: remote };
    // An answer werift cannot apply (Janus rejected every codec of a section) leaves nothing to send on.
    const applied = await this.pc.setRemoteDescription({ type: 'answer', sdp: remote }).then(
      () => true,
      () => false,
    );
    return applied ? { answer: remote } : { error: 'unusable answer' };
  }

  /** Sends Opus-sized audio every 20 ms and VP8 frames at 30 fps on both senders. */
  start(): void {
    const noise = Buffer.alloc(4096, 0x5a);
    let frame = 0;
    const seq = { audio: 0, video: 0 };
    this.timer = setInterval(() => {
      frame += 1;
      const audio = new RtpPacket(
        new RtpHeader({ sequenceNumber: seq.audio++ & 0xffff, timestamp: (frame * 960) >>> 0 }),
        noise.subarray(0, 80),
      );
      void this.audio.sendRtp(audio).catch(() => undefined);
      this.sent.audio += 1;
      if (frame % 2 === 0) {
        const packets = vp8Frame(frame & 0x7fff, frame % 60 === 0, 1500, noise);
        packets.forEach((payload, i) => {
          const header = new RtpHeader({
            sequenceNumber: seq.video++ & 0xffff,
            timestamp: (frame * 1800) >>> 0,
            marker: i === packets.length - 1,
          });
          void this.video.sendRtp(new RtpPacket(header, payload)).catch(() => undefined);
          this.sent.video += 1;
        });
      }
    }, 20);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pc.close().catch(() => undefined);
    this.live.socket.close();
  }
}
