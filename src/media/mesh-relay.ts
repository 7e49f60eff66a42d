import { mayAudio, mayVideo, type LockSettings } from '../engine/live/meeting-locks.js';
import type { MediaBackend, MediaContext, MediaPeer, RelayResult, VideoView } from '../engine/live/media-port.js';
import { malformation, sending } from './sdp.js';
import { canonicalSignal } from './signal-data.js';

const relayed: RelayResult = { ok: true };

/**
 * The embedded media backend: browsers send media to each other (one RTCPeerConnection per
 * pair) and the server only relays their signalling. It relays between two admitted
 * participants of the same open meeting and room, never to or from anyone else, and it
 * enforces lock settings on every offer, answer and provisional answer: a description whose
 * author would send audio with a locked microphone, or video with a locked camera (or as a
 * participant under "cameras for moderators only"), is refused and not relayed. Moderators
 * are never locked.
 *
 * What it cannot do, being a mesh: stop media already flowing on a connection negotiated
 * before a lock was set. Honest clients renegotiate when locks change (the new description is
 * checked again); an SFU backend would also stop forwarding.
 */
export class MeshSignallingRelay implements MediaBackend {
  readonly name = 'mesh';

  constructor(private readonly context: MediaContext) {}

  kindFor(_meetingId: string): 'mesh' {
    return 'mesh';
  }

  relaySignal(from: string, to: string, data: unknown): RelayResult {
    const sender = this.context.peer(from);
    const receiver = this.context.peer(to);
    if (
      !sender ||
      !receiver ||
      from === to ||
      sender.roomId !== receiver.roomId ||
      sender.meetingId !== receiver.meetingId
    ) {
      return { ok: false, code: 'not_member', message: 'the receiver is not in this meeting' };
    }
    const signal = canonicalSignal(data);
    if (!signal)
      return { ok: false, code: 'invalid_signal', message: 'data must be {description: {type, sdp}} or {candidate}' };
    if ('description' in signal && signal.description.sdp !== undefined) {
      const wrong = malformation(signal.description.sdp);
      if (wrong) return { ok: false, code: 'invalid_signal', message: `the session description holds ${wrong}` };
      const locks = this.context.locks(sender);
      const sends = sending(signal.description.sdp);
      if (sends.audio && !mayAudio(sender.role, locks)) {
        return { ok: false, code: 'locked', message: 'microphones are locked: the description may not send audio' };
      }
      if (sends.video && !mayVideo(sender.role, locks)) {
        return { ok: false, code: 'locked', message: 'cameras are locked: the description may not send video' };
      }
    }
    if (!this.context.deliver(to, { type: 'signal', from, data: signal })) {
      return { ok: false, code: 'not_member', message: 'the receiver is not connected' };
    }
    return relayed;
  }

  // Browsers hold the media; there is nothing to set up or tear down on the server.
  connected(_peer: MediaPeer): void {}

  disconnected(_peer: MediaPeer): void {}

  /**
   * `view` is ignored: each peer connection carries one person's video straight from her
   * browser, and what a page does not show costs the server nothing (the page may stop
   * rendering it; the upload is the sender's).
   */
  view(_peer: MediaPeer, _view: VideoView): void {}

  locksChanged(_meetingId: string, _locks: LockSettings): void {}

  meetingEnded(_meetingId: string): void {}
}
