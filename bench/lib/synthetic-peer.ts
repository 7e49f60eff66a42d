import { randomBytes } from 'node:crypto';
import {
  RTCPeerConnection,
  RtpHeader,
  RtpPacket,
  useOPUS,
  useVP8,
  type MediaStreamTrack,
  type RTCRtpSender,
} from 'werift';
import WebSocket from 'ws';

/**
 * Synthetic WebRTC peers for the `sfu` scenario: werift (WebRTC in TypeScript) connections that
 * take the page's place on the product path. They hold a live socket as a page does
 * (/room/:id/live with the session the room handed out) and speak the page's Janus protocol
 * (src/web/sfu.ts): the publisher offers to `sfu:publish` and sends a synthetic camera and
 * microphone; a subscriber answers the offers that come from `sfu:subscribe` and counts the RTP
 * packets that arrive, by sequence number, to tell what was lost.
 */

type Signal = { description: { type: string; sdp?: string } } | { candidate: unknown };
type Message = { type: string; from?: string; data?: Signal; code?: string; message?: string };

/** Janus gathers on the machine's interfaces (never loopback): no STUN server, no IPv6, one bundled transport as browsers do. */
const peerConfig = {
  iceServers: [],
  iceUseIpv6: false,
  bundlePolicy: 'max-bundle' as const,
  codecs: { audio: [useOPUS()], video: [useVP8()] },
};

/** The page's live socket, reduced to what the media path needs. */
export class LiveSocket {
  private readonly socket: WebSocket;
  readonly errors: string[] = [];
  /** Signals that came before a peer took the socket (an offer may follow the welcome in the same read). */
  private early: [string, Signal][] | null = [];
  private handler: (from: string, data: Signal) => void = (from, data) => this.early?.push([from, data]);

  private constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString('utf8')) as Message;
      if (m.type === 'signal' && m.from && m.data) this.handler(m.from, m.data);
      else if (m.type === 'error') this.errors.push(`${m.code}: ${m.message}`);
    });
  }

  /** Opens `/room/:id/live` with `session` and waits for the welcome (which says the meeting runs through Janus). */
  static async open(baseUrl: string, roomId: string, session: string, timeoutMs = 10_000): Promise<LiveSocket> {
    const url = new URL(`/room/${encodeURIComponent(roomId)}/live`, baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('session', session);
    const live = new LiveSocket(url.toString());
    const welcome = await new Promise<Message & { media?: string }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no welcome on the live socket of ${roomId} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      live.socket.once('error', (err) => (clearTimeout(timer), reject(err)));
      live.socket.once(
        'unexpected-response',
        (_req, res) => (clearTimeout(timer), reject(new Error(`live socket refused: ${res.statusCode}`))),
      );
      const first = (raw: Buffer) => {
        const m = JSON.parse(raw.toString('utf8')) as Message & { media?: string };
        if (m.type !== 'welcome') return;
        clearTimeout(timer);
        live.socket.off('message', first);
        resolve(m);
      };
      live.socket.on('message', first);
    });
    if (welcome.media !== 'janus') throw new Error(`the meeting carries media by ${welcome.media}, not janus`);
    return live;
  }

  /** Hands the signals from the server to `handler`, those that came early first. */
  onSignal(handler: (from: string, data: Signal) => void): void {
    this.handler = handler;
    const early = this.early ?? [];
    this.early = null;
    for (const [from, data] of early) handler(from, data);
  }

  signal(to: 'sfu:publish' | 'sfu:subscribe', data: Signal): void {
    this.socket.send(JSON.stringify({ type: 'signal', to, data }));
  }

  close(): void {
    this.socket.close(1000);
  }
}

/** Waits until werift has gathered its candidates, so the description sent carries them (the server relays no trickle from Janus either). */
async function gathered(pc: RTCPeerConnection): Promise<string> {
  if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((state) => state === 'complete');
  return pc.localDescription?.sdp ?? '';
}

// ------------------------------------------------------------------ the synthetic camera and microphone

export interface CameraShape {
  /** Frames a second and the video's mean bit rate (kbit/s), keyframes included. */
  readonly fps: number;
  readonly videoKbps: number;
  /** A keyframe every this many frames, this many times the size of a delta frame. */
  readonly keyframeEvery: number;
  readonly keyframeWeight: number;
  /** Opus every 20 ms with payloads of this many bytes (0: no audio). */
  readonly audioBytes: number;
}

/** Roughly what a browser sends for a 640×360 camera and a voice: 30 fps, 600 kbit/s, a keyframe every 2 s; Opus at 32 kbit/s. */
export const classroomCamera: CameraShape = {
  fps: 30,
  videoKbps: 600,
  keyframeEvery: 60,
  keyframeWeight: 8,
  audioBytes: 80,
};

const maxPayload = 1100;
/** How far behind its clock the synthetic camera may fall before it skips ahead. */
const stallSec = 0.1;

/**
 * VP8 RTP packets as a browser's packetiser shapes them (RFC 7741): a payload descriptor with a
 * 15-bit picture id on every packet, the start bit on a frame's first, the marker on its last,
 * and a frame header at the start of each frame (keyframes with the start code and a 640×360
 * size, which is what Janus inspects to spot keyframes). The compressed data after the header is
 * random: nothing on the path decodes it, and an SFU's work depends on packets and bytes, not pixels.
 */
export function vp8Frame(pictureId: number, key: boolean, bytes: number, noise: Buffer): Buffer[] {
  const header = key ? Buffer.from([0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01]) : Buffer.from([0, 0, 0]);
  // Frame tag: bit 0 = inter frame, version 0, show_frame, first partition size (19 bits): a third of the frame.
  const partition = Math.floor(bytes / 3);
  const tag = (key ? 0 : 1) | (1 << 4) | (partition << 5);
  header.writeUIntLE(tag & 0xffffff, 0, 3);
  const body = Buffer.concat([header, noise.subarray(0, Math.max(0, bytes - header.length))]);
  const packets: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += maxPayload) {
    const descriptor = Buffer.from([
      offset === 0 ? 0x90 : 0x80,
      0x80,
      0x80 | ((pictureId >> 8) & 0x7f),
      pictureId & 0xff,
    ]);
    packets.push(Buffer.concat([descriptor, body.subarray(offset, offset + maxPayload)]));
  }
  return packets;
}

/** Sends a camera's and a microphone's RTP on two senders at the shape's rates, paced every 5 ms. */
class SyntheticCamera {
  private timer: NodeJS.Timeout | null = null;
  private readonly noise = randomBytes(256 * 1024);
  private frames = 0;
  private audioFrames = 0;
  private videoSeq = Math.floor(Math.random() * 65_536);
  private audioSeq = Math.floor(Math.random() * 65_536);
  private readonly t0 = performance.now();
  videoPackets = 0;
  audioPackets = 0;
  /** Times the sender fell more than `stallSec` behind and skipped ahead. */
  stalls = 0;

  constructor(
    private readonly shape: CameraShape,
    private readonly video: RTCRtpSender,
    private readonly audio: RTCRtpSender | null,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.tick(), 5);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const elapsed = (performance.now() - this.t0) / 1000;
    const s = this.shape;
    // Per-frame bytes so that keyframes plus deltas average the bit rate.
    const delta = (s.videoKbps * 125 * s.keyframeEvery) / s.fps / (s.keyframeEvery - 1 + s.keyframeWeight);
    const dueFrames = Math.floor(elapsed * s.fps);
    const dueAudio = Math.floor(elapsed * 50);
    // This process was not scheduled for a while (a loaded machine): a camera captures no frames
    // while it is stalled, so the backlog is dropped rather than sent in one burst, and counted.
    if ((dueFrames - this.frames) / s.fps > stallSec) {
      this.stalls += 1;
      this.frames = dueFrames - 1;
      this.audioFrames = dueAudio - 1;
    }
    while (this.frames < dueFrames) {
      const key = this.frames % s.keyframeEvery === 0;
      const packets = vp8Frame(
        this.frames & 0x7fff,
        key,
        Math.round(key ? delta * s.keyframeWeight : delta),
        this.noise.subarray((this.frames * 997) % 65_536),
      );
      const timestamp = (this.frames * (90_000 / s.fps)) >>> 0;
      packets.forEach((payload, i) => {
        const header = new RtpHeader({
          sequenceNumber: this.videoSeq++ & 0xffff,
          timestamp,
          marker: i === packets.length - 1,
        });
        void this.video.sendRtp(new RtpPacket(header, payload));
        this.videoPackets += 1;
      });
      this.frames += 1;
    }
    if (!this.audio || s.audioBytes <= 0) return;
    while (this.audioFrames < dueAudio) {
      const header = new RtpHeader({
        sequenceNumber: this.audioSeq++ & 0xffff,
        timestamp: (this.audioFrames * 960) >>> 0,
      });
      void this.audio.sendRtp(
        new RtpPacket(header, this.noise.subarray(this.audioFrames % 1000, (this.audioFrames % 1000) + s.audioBytes)),
      );
      this.audioPackets += 1;
      this.audioFrames += 1;
    }
  }
}

/** The teacher: one publishing connection with a synthetic camera and microphone, offered to `sfu:publish`. */
export class SyntheticPublisher {
  private readonly pc = new RTCPeerConnection(peerConfig);
  private camera: SyntheticCamera | null = null;

  constructor(
    private readonly live: LiveSocket,
    private readonly shape: CameraShape = classroomCamera,
  ) {}

  /** Offers, takes the server's answer, and starts sending once DTLS is up; rejects after `timeoutMs`. */
  async start(timeoutMs = 20_000): Promise<void> {
    const video = this.pc.addTransceiver('video', { direction: 'sendonly' });
    const audio = this.shape.audioBytes > 0 ? this.pc.addTransceiver('audio', { direction: 'sendonly' }) : null;
    const answered = new Promise<void>((resolve, reject) => {
      this.live.onSignal((from, data) => {
        if (from !== 'sfu:publish' || !('description' in data) || data.description.type !== 'answer') return;
        this.pc.setRemoteDescription({ type: 'answer', sdp: data.description.sdp ?? '' }).then(resolve, reject);
      });
    });
    await this.pc.setLocalDescription(await this.pc.createOffer());
    this.live.signal('sfu:publish', { description: { type: 'offer', sdp: await gathered(this.pc) } });
    await withTimeout(
      answered,
      timeoutMs,
      `the server's answer to the publisher (${this.live.errors.join('; ') || 'no error from the server'})`,
    );
    await withTimeout(connected(this.pc), timeoutMs, 'the publisher to connect to Janus (ICE and DTLS)');
    this.camera = new SyntheticCamera(this.shape, video.sender, audio?.sender ?? null);
    this.camera.start();
  }

  get sent(): { video: number; audio: number; stalls: number } {
    return {
      video: this.camera?.videoPackets ?? 0,
      audio: this.camera?.audioPackets ?? 0,
      stalls: this.camera?.stalls ?? 0,
    };
  }

  async close(): Promise<void> {
    this.camera?.stop();
    await this.pc.close();
    this.live.close();
  }
}

// ------------------------------------------------------------------ receiving

/** One received stream's RTP, by extended sequence number: what arrived and what should have. */
export class RtpCount {
  received = 0;
  private highest: number | null = null;
  private first: number | null = null;

  add(sequenceNumber: number): void {
    this.received += 1;
    if (this.highest === null) {
      this.highest = sequenceNumber;
      this.first = sequenceNumber;
      return;
    }
    // The extended number nearest the highest so far (a wrap of the 16-bit counter goes on counting).
    const base = this.highest - (this.highest & 0xffff);
    let ext = base + sequenceNumber;
    if (ext - this.highest > 32_768) ext -= 65_536;
    else if (this.highest - ext > 32_768) ext += 65_536;
    if (ext > this.highest) this.highest = ext;
  }

  /** Packets received and the span of sequence numbers they came from (since the first). */
  snapshot(): { received: number; expected: number } {
    return {
      received: this.received,
      expected: this.highest === null || this.first === null ? 0 : this.highest - this.first + 1,
    };
  }
}

/** A pupil: answers the server's subscription offers and counts the teacher's packets per kind. */
export class SyntheticSubscriber {
  private readonly pc = new RTCPeerConnection(peerConfig);
  readonly video = new RtpCount();
  readonly audio = new RtpCount();
  /** Offers the server sent. */
  offers = 0;
  /** Answers are made one after the other, as the page does. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly live: LiveSocket) {
    this.pc.onTrack.subscribe((track: MediaStreamTrack) => {
      const count = track.kind === 'video' ? this.video : this.audio;
      track.onReceiveRtp.subscribe((rtp) => count.add(rtp.header.sequenceNumber));
    });
    live.onSignal((from, data) => {
      if (from !== 'sfu:subscribe' || !('description' in data) || data.description.type !== 'offer') return;
      const sdp = data.description.sdp ?? '';
      this.offers += 1;
      this.queue = this.queue
        .then(() => this.answer(sdp))
        .catch((err: unknown) => void this.live.errors.push(`answering: ${(err as Error).message}`));
    });
  }

  private async answer(offer: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    this.live.signal('sfu:subscribe', { description: { type: 'answer', sdp: await gathered(this.pc) } });
  }

  /** Resolves once `packets` video packets have arrived; rejects after `timeoutMs`. */
  async receiving(packets = 10, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.video.received < packets) {
      if (Date.now() > deadline)
        throw new Error(
          `no video reached the subscriber in ${timeoutMs} ms (${this.offers} offer(s) from the server, connection ${this.pc.connectionState}${this.live.errors.length ? `; server: ${this.live.errors.join('; ')}` : ''})`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await this.pc.close();
    this.live.close();
  }
}

function connected(pc: RTCPeerConnection): Promise<void> {
  if (pc.connectionState === 'connected') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const { unSubscribe } = pc.connectionStateChange.subscribe((state) => {
      if (state !== 'connected' && state !== 'failed' && state !== 'closed') return;
      unSubscribe();
      if (state === 'connected') resolve();
      else reject(new Error(`connection ${state}`));
    });
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms)),
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
