import { sfuPeers, type MediaKind, type SignalData } from '../protocol/live.js';
import { peerConnection } from './ice.js';
import { words } from './words/index.js';
import { Mesh, type MeshOptions, type Outgoing } from './mesh.js';

/** What this file says to the person (to move into the words catalogue). */
/** How long a publish offer may wait for its answer before it is taken back and made again. */
const answerWaitMs = 8000;

/**
 * Simulcast layers of the camera (rids high, medium, low; Janus calls them substreams 2, 1, 0):
 * the server forwards the high one to whoever shows her large and the low one to the small
 * tiles of a grid or strip. Only when the camera gives more than one small tile's worth of
 * pixels (360 lines or more); Chrome leaves out a layer too small to be worth sending.
 */
export function simulcastLayers(track: MediaStreamTrack): RTCRtpEncodingParameters[] | undefined {
  if ((track.getSettings().height ?? 0) < 360) return undefined;
  return [
    { rid: 'h', maxBitrate: 900_000 },
    { rid: 'm', maxBitrate: 300_000, scaleResolutionDownBy: 2 },
    { rid: 'l', maxBitrate: 100_000, scaleResolutionDownBy: 4 },
  ];
}

/**
 * The participant a received stream belongs to. The server subscribes with `use_msid`, so Janus
 * labels each stream `a=msid:<feed> <mid>`, and the feed is the participant id the server
 * joined her with; without it Janus says `janus`, which is no one.
 */
export function participantOfStream(streamId: string): string | null {
  return streamId && streamId !== 'janus' ? streamId : null;
}

/**
 * Media through the server's SFU (a meeting whose welcome says `janus`): two RTCPeerConnections
 * whatever the number of people. The publisher sends her camera and microphone (or screen) and
 * offers to `sfu:publish`; the subscriber receives everyone else's streams, answering the offers
 * the server sends from `sfu:subscribe` each time someone starts or stops publishing. Locks
 * are honoured as the mesh does: a locked microphone or camera is offered inactive (the server
 * refuses any other offer, and tells the SFU to stop forwarding what a modified page sends).
 * The same methods as Mesh, so the meeting view drives either.
 */
export class Sfu {
  private publisher: RTCPeerConnection | null = null;
  private subscriber: RTCPeerConnection | null = null;
  /** Subscriber offers are answered one after the other. */
  private queue: Promise<void> = Promise.resolve();
  private answerTimer = 0;
  private sendAudio = true;
  private sendVideo = true;
  /** What the publisher's senders carry: null while she is muted or her camera is off. */
  private tracks: Outgoing;
  private closed = false;

  constructor(
    private readonly options: MeshOptions & { readonly restarted?: (text: string) => void },
    private readonly stream: MediaStream,
  ) {
    this.tracks = { audio: stream.getAudioTracks()[0] ?? null, video: stream.getVideoTracks()[0] ?? null };
  }

  /** The SFU needs no pairing rule: nothing depends on her id. */
  setSelf(_participantId: string): void {}

  /** The welcome: publish (the others' streams come as offers from the server). */
  join(_others: readonly string[]): void {
    if (!this.closed && !this.publisher) this.publish();
  }

  private publish(): void {
    const pc = peerConnection();
    this.publisher = pc;
    for (const kind of ['audio', 'video'] as const) {
      // The layers follow the camera, even while it is off (its sender is then empty until she turns it on).
      const camera = kind === 'video' ? this.stream.getVideoTracks()[0] : undefined;
      const sendEncodings = camera ? simulcastLayers(camera) : undefined;
      if (this.allowed(kind))
        pc.addTransceiver(this.tracks[kind] ?? kind, {
          direction: 'sendonly',
          streams: [this.stream],
          ...(sendEncodings ? { sendEncodings } : {}),
        });
      else pc.addTransceiver(kind, { direction: 'inactive', streams: [this.stream] });
    }
    pc.onnegotiationneeded = () => void this.offer(pc);
    pc.onicecandidate = ({ candidate }) => {
      if (candidate && this.publisher === pc) this.options.send(sfuPeers.publish, { candidate: candidate.toJSON() });
    };
  }

  private async offer(pc: RTCPeerConnection): Promise<void> {
    if (this.publisher !== pc || pc.signalingState !== 'stable') return;
    await pc.setLocalDescription();
    if (!pc.localDescription || this.publisher !== pc) return;
    this.options.send(sfuPeers.publish, { description: pc.localDescription.toJSON() });
    // A refused offer (a lock came on while it travelled) gets no answer: take it back and offer what is allowed now.
    window.clearTimeout(this.answerTimer);
    this.answerTimer = window.setTimeout(() => {
      if (this.publisher !== pc || pc.signalingState !== 'have-local-offer') return;
      void pc
        .setLocalDescription({ type: 'rollback' })
        .then(() => this.offer(pc))
        .catch(() => {});
    }, answerWaitMs);
  }

  private allowed(kind: 'audio' | 'video'): boolean {
    return kind === 'audio' ? this.sendAudio : this.sendVideo;
  }

  async handle(from: string, data: SignalData): Promise<void> {
    if (this.closed) return;
    if (from === sfuPeers.publish) return this.fromPublish(data);
    if (from === sfuPeers.subscribe) {
      const next = this.queue.then(() => this.fromSubscribe(data));
      this.queue = next.catch(() => {});
      return next;
    }
  }

  private async fromPublish(data: SignalData): Promise<void> {
    const pc = this.publisher;
    if (!('description' in data)) {
      if (pc && data.candidate) await pc.addIceCandidate(data.candidate);
      return;
    }
    if (data.description.type === 'rollback') {
      // The media server restarted: both connections are dead; start again as on arrival.
      this.stop();
      this.options.restarted?.(words.meeting.mediaRestarted);
      this.publish();
      return;
    }
    if (pc && data.description.type === 'answer' && pc.signalingState === 'have-local-offer') {
      window.clearTimeout(this.answerTimer);
      await pc.setRemoteDescription(data.description);
    }
  }

  private async fromSubscribe(data: SignalData): Promise<void> {
    if (this.closed) return;
    if (!('description' in data)) {
      if (this.subscriber && data.candidate) await this.subscriber.addIceCandidate(data.candidate);
      return;
    }
    if (data.description.type !== 'offer') return;
    const pc = (this.subscriber ??= this.receiving());
    await pc.setRemoteDescription(data.description);
    await pc.setLocalDescription();
    if (pc.localDescription && this.subscriber === pc)
      this.options.send(sfuPeers.subscribe, { description: pc.localDescription.toJSON() });
  }

  private receiving(): RTCPeerConnection {
    const pc = peerConnection();
    pc.onicecandidate = ({ candidate }) => {
      if (candidate && this.subscriber === pc) this.options.send(sfuPeers.subscribe, { candidate: candidate.toJSON() });
    };
    pc.ontrack = ({ streams, track }) => {
      const stream = streams[0];
      const participantId = stream ? participantOfStream(stream.id) : null;
      if (stream && participantId) this.options.onStream(participantId, stream);
      else track.stop();
    };
    return pc;
  }

  /** Locks changed: the publisher's transceivers follow, which renegotiates with the server. */
  setAllowed(audio: boolean, video: boolean): void {
    if (audio === this.sendAudio && video === this.sendVideo) return;
    this.sendAudio = audio;
    this.sendVideo = video;
    for (const transceiver of this.publisher?.getTransceivers() ?? []) {
      const kind = transceiver.receiver.track.kind as 'audio' | 'video';
      const track = this.tracks[kind];
      if (this.allowed(kind)) {
        if (transceiver.sender.track !== track) void transceiver.sender.replaceTrack(track).catch(() => {});
        transceiver.direction = 'sendonly';
      } else {
        void transceiver.sender.replaceTrack(null).catch(() => {});
        transceiver.direction = 'inactive';
      }
    }
  }

  /** What the publisher's senders carry (null: nothing of that kind), swapped without renegotiating. */
  send(tracks: Outgoing): void {
    this.tracks = tracks;
    for (const transceiver of this.publisher?.getTransceivers() ?? []) {
      const track = tracks[transceiver.receiver.track.kind as 'audio' | 'video'];
      if (transceiver.direction === 'sendonly' && transceiver.sender.track !== track)
        void transceiver.sender.replaceTrack(track).catch(() => {});
    }
  }

  /** Someone left: the server renegotiates the subscription without her; nothing to close here. */
  remove(_participantId: string): void {}

  /** Both connections (publisher, subscriber), for the page's own statistics (signals.ts). */
  connections(): RTCPeerConnection[] {
    return [this.publisher, this.subscriber].filter((pc) => pc !== null);
  }

  private stop(): void {
    window.clearTimeout(this.answerTimer);
    this.publisher?.close();
    this.subscriber?.close();
    this.publisher = null;
    this.subscriber = null;
  }

  /** She left, was moved, the meeting ended or the socket is reconnecting: both connections go. */
  close(): void {
    this.closed = true;
    this.stop();
  }
}

/** The media path of a meeting, as its welcome says: the server's SFU or browser to browser. */
export function pageMedia(
  kind: MediaKind,
  options: MeshOptions & { readonly restarted?: (text: string) => void },
  stream: MediaStream,
): Mesh | Sfu {
  return kind === 'janus' ? new Sfu(options, stream) : new Mesh(options, stream);
}
