import type { SignalData } from '../protocol/live.js';
import { peerConnection } from './ice.js';

interface Peer {
  readonly pc: RTCPeerConnection;
  readonly polite: boolean;
  makingOffer: boolean;
  ignoreOffer: boolean;
}

/** The tracks a page sends, each null when it sends none of that kind. */
export interface Outgoing {
  readonly audio: MediaStreamTrack | null;
  readonly video: MediaStreamTrack | null;
}

export interface MeshOptions {
  readonly send: (to: string, data: SignalData) => void;
  readonly onStream: (participantId: string, stream: MediaStream) => void;
}

/**
 * Browser-to-browser media: one RTCPeerConnection per other participant, negotiated with
 * the "perfect negotiation" pattern so two sides offering at once settle by themselves.
 * What it may send follows the locks: a locked microphone or camera is offered recvonly,
 * which is also what the server checks before relaying.
 */
export class Mesh {
  private readonly peers = new Map<string, Peer>();
  private sendAudio = true;
  private sendVideo = true;
  private selfId = '';
  /** What each sender carries now: null while she is muted or her camera is off, so nothing is sent. */
  private tracks: Outgoing;

  constructor(
    private readonly options: MeshOptions,
    private readonly stream: MediaStream,
  ) {
    this.tracks = { audio: stream.getAudioTracks()[0] ?? null, video: stream.getVideoTracks()[0] ?? null };
  }

  /** Our own id, known once the server welcomed us: it decides which side of a pair is polite. */
  setSelf(participantId: string): void {
    this.selfId = participantId;
  }

  /**
   * The connection to one other participant. `offering`: she starts it (her welcome), so her
   * tracks go in at once. Made for an offer that arrived, it takes the offer's sections instead
   * (applyDirections puts her tracks on them): sections of her own besides would carry a second
   * copy of each track, and the tile would get one of the copies, without its sound.
   */
  connect(participantId: string, offering = true): Peer {
    const existing = this.peers.get(participantId);
    if (existing) return existing;
    const pc = peerConnection();
    const peer: Peer = { pc, polite: this.selfId > participantId, makingOffer: false, ignoreOffer: false };
    this.peers.set(participantId, peer);
    pc.onnegotiationneeded = async () => {
      try {
        peer.makingOffer = true;
        await pc.setLocalDescription();
        if (pc.localDescription) this.options.send(participantId, { description: pc.localDescription.toJSON() });
      } finally {
        peer.makingOffer = false;
      }
    };
    pc.onicecandidate = ({ candidate }) => {
      if (candidate) this.options.send(participantId, { candidate: candidate.toJSON() });
    };
    pc.ontrack = ({ streams, track }) => this.options.onStream(participantId, streams[0] ?? new MediaStream([track]));
    if (offering) this.attach(pc);
    return peer;
  }

  /** The welcome: a connection to each participant already there (later arrivals offer to her). */
  join(others: readonly string[]): void {
    for (const id of others) this.connect(id);
  }

  private attach(pc: RTCPeerConnection): void {
    for (const kind of ['audio', 'video'] as const) {
      const allowed = kind === 'audio' ? this.sendAudio : this.sendVideo;
      // Allowed but muted: a sender without a track, which a later unmute fills without renegotiating.
      if (allowed) pc.addTransceiver(this.tracks[kind] ?? kind, { direction: 'sendrecv', streams: [this.stream] });
      else pc.addTransceiver(kind, { direction: 'recvonly' });
    }
  }

  async handle(from: string, data: SignalData): Promise<void> {
    const peer = this.connect(from, false);
    const { pc } = peer;
    if ('description' in data) {
      const description = data.description as RTCSessionDescriptionInit;
      const collision = description.type === 'offer' && (peer.makingOffer || pc.signalingState !== 'stable');
      peer.ignoreOffer = !peer.polite && collision;
      if (peer.ignoreOffer) return;
      await pc.setRemoteDescription(description);
      if (description.type === 'offer') {
        // A renegotiation by the other side must not turn a locked sender back into a sender.
        this.applyDirections(pc);
        await pc.setLocalDescription();
        if (pc.localDescription) this.options.send(from, { description: pc.localDescription.toJSON() });
      }
    } else {
      try {
        await pc.addIceCandidate(data.candidate as RTCIceCandidateInit);
      } catch (err) {
        if (!peer.ignoreOffer) throw err;
      }
    }
  }

  private applyDirections(pc: RTCPeerConnection): void {
    for (const transceiver of pc.getTransceivers()) {
      const kind = transceiver.receiver.track.kind;
      const allowed = kind === 'audio' ? this.sendAudio : this.sendVideo;
      if (allowed) {
        // After every renegotiation the sender carries what the page sends now (nothing while muted).
        const track = this.tracks[kind as 'audio' | 'video'];
        if (transceiver.sender.track !== track) void transceiver.sender.replaceTrack(track);
        // Her stream's id travels with the tracks, so the other page gets her sound and picture as one stream.
        transceiver.sender.setStreams(this.stream);
        transceiver.direction = 'sendrecv';
      } else {
        void transceiver.sender.replaceTrack(null);
        transceiver.direction = 'recvonly';
      }
    }
  }

  /** Locks changed: stop or resume sending, which renegotiates with everyone. */
  setAllowed(audio: boolean, video: boolean): void {
    if (audio === this.sendAudio && video === this.sendVideo) return;
    this.sendAudio = audio;
    this.sendVideo = video;
    for (const { pc } of this.peers.values()) this.applyDirections(pc);
  }

  /**
   * What the senders carry (the camera, its processed video or the screen; null for nothing:
   * muted, camera off), swapped without renegotiating.
   */
  send(tracks: Outgoing): void {
    this.tracks = tracks;
    for (const { pc } of this.peers.values()) {
      for (const transceiver of pc.getTransceivers()) {
        const kind = transceiver.receiver.track.kind as 'audio' | 'video';
        const track = tracks[kind];
        if (transceiver.direction === 'sendrecv' && transceiver.sender.track !== track)
          void transceiver.sender.replaceTrack(track).catch(() => {});
      }
    }
  }

  /** Every peer connection, for the page's own statistics (signals.ts). */
  connections(): RTCPeerConnection[] {
    return [...this.peers.values()].map((peer) => peer.pc);
  }

  remove(participantId: string): void {
    this.peers.get(participantId)?.pc.close();
    this.peers.delete(participantId);
  }

  close(): void {
    for (const id of [...this.peers.keys()]) this.remove(id);
  }
}
