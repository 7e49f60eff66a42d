import type { LockSettings } from './meeting-locks.js';
import type { Role } from '../meetings/meeting.js';
import type { LiveErrorCode, MediaKind, ServerMessage } from '../../protocol/live.js';

/**
 * The media side of a meeting, behind one interface so that an SFU adapter can replace the
 * embedded browser-to-browser mesh (src/media/). The engine declares it and the daemon chooses
 * the implementation (`MediaBackendFactory`); the live meeting calls it, and it never talks to
 * sockets itself but through the `MediaContext` the live meeting gives it.
 */
export interface MediaBackend {
  readonly name: string;
  /** How a meeting carries media: decided when it is first asked and kept until the meeting ends. */
  kindFor(meetingId: string): MediaKind;
  /**
   * Relays a signalling message (`ClientMessage` of type `signal`) from one participant to
   * another, or refuses it. `data` is untrusted input straight from the socket.
   */
  relaySignal(from: string, to: string, data: unknown): RelayResult;
  /** A participant's live connection opened or closed. */
  connected(peer: MediaPeer): void;
  disconnected(peer: MediaPeer): void;
  /**
   * Whose video her page shows now (ids of admitted members of her meeting, never her own) and
   * which one large: an SFU forwards her only that video (audio from everyone), the large one in
   * its high simulcast layer. Until her first view she receives every video. Optional: the mesh
   * has nothing to choose (each peer connection carries one person's video).
   */
  view?(peer: MediaPeer, view: VideoView): void;
  /** The meeting's lock settings changed (an SFU would stop forwarding what is now locked). */
  locksChanged(meetingId: string, locks: LockSettings): void;
  meetingEnded(meetingId: string): void;
}

/** The video a page shows: the participants on screen, and the one large (null: none). */
export interface VideoView {
  readonly video: readonly string[];
  readonly large: string | null;
}

/** An admitted participant with a live connection, as the media side sees them. */
export interface MediaPeer {
  readonly participantId: string;
  readonly roomId: string;
  readonly meetingId: string;
  readonly role: Role;
}

export interface MediaContext {
  /**
   * The participant when admitted: present in their room's open meeting, with a live
   * connection. Null for anyone else (unknown, left, waiting, ended meeting).
   */
  peer(participantId: string): MediaPeer | null;
  locks(peer: MediaPeer): LockSettings;
  /** Sends a message over the participant's live connection; false if it has none. */
  deliver(participantId: string, message: ServerMessage): boolean;
  /**
   * What the backend measured of her audio (an SFU's audio levels): in a meeting whose media
   * kind is `janus` who speaks comes from here, never from her page's claim.
   */
  speaking(participantId: string, speaking: boolean): void;
}

export type RelayRefusal =
  /** Sender or receiver is not an admitted participant of the same meeting and room: dropped silently. */
  | 'not_member'
  /**
   * Told to the sender as a live error: `locked` (the description would send audio or video the
   * sender's locks forbid), `invalid_signal` (not a description or candidate this service relays).
   */
  | Extract<LiveErrorCode, 'locked' | 'invalid_signal'>;

export type RelayResult =
  { readonly ok: true } | { readonly ok: false; readonly code: RelayRefusal; readonly message: string };

export type MediaBackendFactory = (context: MediaContext) => MediaBackend;
