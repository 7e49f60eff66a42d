// A page on the SFU path as src/web/sfu.ts behaves, played by werift for tests without a browser:
// it publishes a synthetic camera to `sfu:publish` (when asked to), answers the offers of
// `sfu:subscribe` and counts the video packets that arrive; on `rollback` (the media server it
// was on is gone) it drops both connections and starts again, publishing anew, as the page does.
import { RTCPeerConnection, RtpHeader, RtpPacket, useOPUS, useVP8, type MediaStreamTrack } from 'werift';
import { vp8Frame, type LiveSocket } from '../../bench/lib/synthetic-peer.js';

const peerConfig = {
  iceServers: [],
  iceUseIpv6: false,
  bundlePolicy: 'max-bundle' as const,
  codecs: { audio: [useOPUS()], video: [useVP8()] },
};

async function gathered(pc: RTCPeerConnection): Promise<string> {
  if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((state) => state === 'complete');
  return pc.localDescription?.sdp ?? '';
}

export class SfuPage {
  private publisher: RTCPeerConnection | null = null;
  private subscriber: RTCPeerConnection | null = null;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  /** Video packets received since the last rollback. */
  videoReceived = 0;
  rollbacks = 0;
  /** Answers the server gave her offers. */
  answers = 0;
  readonly errors: string[] = [];

  constructor(
    private readonly live: LiveSocket,
    private readonly publishes: boolean,
  ) {
    live.onSignal((from, data) => {
      this.queue = this.queue
        .then(() => this.signal(from, data))
        .catch((err: unknown) => void this.errors.push((err as Error).message));
    });
    if (publishes) this.queue = this.queue.then(() => this.publish());
  }

  /** Her publishing connection's state ('connected' once Janus receives her). */
  get publishing(): string {
    return this.publisher?.connectionState ?? 'none';
  }

  private async signal(from: string, data: { description: { type: string; sdp?: string } } | { candidate: unknown }) {
    if (!('description' in data)) return;
    const { type, sdp = '' } = data.description;
    if (from === 'sfu:publish' && type === 'rollback') {
      this.rollbacks += 1;
      this.videoReceived = 0;
      await this.drop();
      if (this.publishes) await this.publish();
      return;
    }
    if (from === 'sfu:publish' && type === 'answer' && this.publisher) {
      this.answers += 1;
      await this.publisher.setRemoteDescription({ type: 'answer', sdp });
      return;
    }
    if (from === 'sfu:subscribe' && type === 'offer') {
      const pc = (this.subscriber ??= this.receiving());
      await pc.setRemoteDescription({ type: 'offer', sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      this.live.signal('sfu:subscribe', { description: { type: 'answer', sdp: await gathered(pc) } });
    }
  }

  private receiving(): RTCPeerConnection {
    const pc = new RTCPeerConnection(peerConfig);
    pc.onTrack.subscribe((track: MediaStreamTrack) => {
      if (track.kind === 'video')
        track.onReceiveRtp.subscribe(() => void (this.subscriber === pc && this.videoReceived++));
    });
    return pc;
  }

  private async publish(): Promise<void> {
    const pc = new RTCPeerConnection(peerConfig);
    this.publisher = pc;
    const video = pc.addTransceiver('video', { direction: 'sendonly' }).sender;
    pc.addTransceiver('audio', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    this.live.signal('sfu:publish', { description: { type: 'offer', sdp: await gathered(pc) } });
    const noise = Buffer.alloc(4096, 0x5a);
    let frame = 0;
    let seq = 0;
    this.timer = setInterval(() => {
      if (pc.connectionState !== 'connected') return;
      frame += 1;
      const packets = vp8Frame(frame & 0x7fff, frame % 30 === 1, 1200, noise);
      packets.forEach((payload, i) => {
        const header = new RtpHeader({
          sequenceNumber: seq++ & 0xffff,
          timestamp: (frame * 3000) >>> 0,
          marker: i === packets.length - 1,
        });
        void video.sendRtp(new RtpPacket(header, payload)).catch(() => undefined);
      });
    }, 33);
  }

  private async drop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const [publisher, subscriber] = [this.publisher, this.subscriber];
    this.publisher = null;
    this.subscriber = null;
    await Promise.all([publisher?.close().catch(() => undefined), subscriber?.close().catch(() => undefined)]);
  }

  async close(): Promise<void> {
    await this.drop();
    this.live.close();
  }
}
