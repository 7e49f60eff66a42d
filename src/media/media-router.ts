import type { LockSettings } from '../engine/live/meeting-locks.js';
import type { MediaBackend, MediaPeer, RelayResult, VideoView } from '../engine/live/media-port.js';
import type { MediaKind } from '../protocol/live.js';

/**
 * Two backends behind one: each meeting is given one when the media side first hears of it
 * (the SFU when it is up, else the mesh) and keeps it until it ends, so a meeting that began
 * on the mesh while Janus was restarting does not switch under its participants' feet.
 */
export class MediaRouter implements MediaBackend {
  readonly name = 'router';
  private readonly chosen = new Map<string, MediaKind>();

  constructor(
    private readonly mesh: MediaBackend,
    private readonly sfu: MediaBackend,
    /** Whether a meeting starting now goes to the SFU. */
    private readonly sfuAvailable: () => boolean,
    private readonly meetingOf: (participantId: string) => string | null,
  ) {}

  kindFor(meetingId: string): MediaKind {
    let kind = this.chosen.get(meetingId);
    if (!kind) {
      kind = this.sfuAvailable() ? 'janus' : 'mesh';
      this.chosen.set(meetingId, kind);
    }
    return kind;
  }

  relaySignal(from: string, to: string, data: unknown): RelayResult {
    const meetingId = this.meetingOf(from);
    if (meetingId === null) return { ok: false, code: 'not_member', message: 'the sender is not in this meeting' };
    return this.of(meetingId).relaySignal(from, to, data);
  }

  connected(peer: MediaPeer): void {
    this.of(peer.meetingId).connected(peer);
  }

  disconnected(peer: MediaPeer): void {
    this.of(peer.meetingId).disconnected(peer);
  }

  view(peer: MediaPeer, view: VideoView): void {
    this.of(peer.meetingId).view?.(peer, view);
  }

  locksChanged(meetingId: string, locks: LockSettings): void {
    this.of(meetingId).locksChanged(meetingId, locks);
  }

  meetingEnded(meetingId: string): void {
    this.of(meetingId).meetingEnded(meetingId);
    this.chosen.delete(meetingId);
  }

  private of(meetingId: string): MediaBackend {
    return this.kindFor(meetingId) === 'janus' ? this.sfu : this.mesh;
  }
}
