/**
 * The wire protocol of the live connection (WebSocket `GET /room/{id}/live?session=<session token>`):
 * its messages both ways, its close codes and its error codes. The server and the browser client
 * both import this file, so it holds only types and plain constants: no Node, no DOM, no imports
 * (the page's bundle compiles it in; dist/protocol is also served as /assets/protocol/ for other
 * clients). Browsers cannot set an Authorization header on
 * a WebSocket, hence the query parameter (masked in logs). Every field is snake_case JSON, like
 * the HTTP APIs.
 */

export type Role = 'moderator' | 'participant';

export interface ParticipantView {
  readonly participant_id: string;
  readonly name: string;
  readonly role: Role;
  readonly audio: boolean;
  readonly video: boolean;
  readonly screen: boolean;
}

/** Lock settings apply to participants (viewers), never to moderators. */
export interface Locks {
  /** Microphones of participants are locked: no audio may be sent. */
  readonly mic: boolean;
  /** Cameras of participants are locked: no video may be sent. */
  readonly cam: boolean;
  /** Only moderators may send video ("webcams only for moderators"). */
  readonly cams_moderators_only: boolean;
}

export interface ChatMessage {
  /**
   * `system` is true (and participant_id and role null) for what the service itself posts,
   * such as the meeting API's sendChatMessage; `role` is the author's. Clients draw both as
   * badges from these fields, never from `name`: a person's name cannot carry either.
   */
  readonly from: { readonly participant_id: string | null; readonly name: string; readonly role: Role | null; readonly system: boolean };
  readonly text: string;
  readonly at: string;
}

export interface WaitingItem {
  readonly request_id: string;
  readonly name: string;
  readonly note: string;
  readonly knocked_at: string;
}

/**
 * How a meeting carries media, chosen when it starts and kept until it ends. `mesh`: one
 * RTCPeerConnection per other participant, signals addressed to her participant_id. `janus`:
 * the server's SFU; the page keeps two connections, and addresses their signals to the pseudo
 * participants of `sfuPeers` (it never talks to the SFU itself): it offers on `publish`
 * (answered by the server), and answers the offers the server sends from `subscribe`. Who
 * speaks is then measured by the server from the audio levels Janus reports: a page's own
 * `speaking` claims are ignored.
 */
export type MediaKind = 'mesh' | 'janus';

/** A STUN or TURN server for the page's RTCPeerConnection (RTCIceServer as JSON); TURN ones carry her own credential. */
export interface IceServer {
  readonly urls: readonly string[];
  readonly username?: string;
  readonly credential?: string;
}

/** The most ids one `view` may name: a page of the grid (25) and then some. */
export const viewLimit = 64;

export const sfuPeers = { publish: 'sfu:publish', subscribe: 'sfu:subscribe' } as const;

/** Opaque WebRTC signalling: an SDP description or an ICE candidate. */
export type SignalData =
  { readonly description: { readonly type: 'offer' | 'answer' | 'pranswer' | 'rollback'; readonly sdp?: string } } | { readonly candidate: unknown };

export type ServerMessage =
  | {
      readonly type: 'welcome';
      readonly self: ParticipantView;
      readonly room_id: string;
      /**
       * The room's name: told only here, on the live socket, which opens once she is admitted.
       * Nothing before admission names the meeting (the waiting screen's rule).
       */
      readonly room_name: string;
      readonly participants: readonly ParticipantView[];
      readonly locks: Locks;
      readonly chat: readonly ChatMessage[];
      readonly subgroups: readonly string[];
      /** The meeting asks arrivals to start with the microphone off (they may turn it on). */
      readonly mute_on_start?: boolean;
      /** The meeting's title a moderator set; '' for none. Plain text: render it as text. */
      readonly subject: string;
      /** How this meeting carries media (see MediaKind). */
      readonly media: MediaKind;
    }
  | { readonly type: 'participant_joined'; readonly participant: ParticipantView }
  | { readonly type: 'participant_left'; readonly participant_id: string }
  /**
   * A participant's whole view again, after her media state or her name changed (to everyone, her
   * too). Media states are coalesced: the latest per participant, at most every 250 ms or so, so
   * a page keeps the last one it heard; `speaking` likewise.
   */
  | { readonly type: 'state'; readonly participant: ParticipantView }
  | { readonly type: 'speaking'; readonly participant_id: string; readonly speaking: boolean }
  | { readonly type: 'chat'; readonly message: ChatMessage }
  /**
   * Moderators only: the whole waiting list, in knock order, as it stands at `seq`. Sent when the
   * socket opens, when its participant becomes a moderator, on `waiting_resync`, and instead of
   * a change that would be larger than the list (admit all). The list then follows by
   * `waiting_changes`.
   */
  | { readonly type: 'waiting_list'; readonly seq: number; readonly requests: readonly WaitingItem[] }
  /**
   * Moderators only: what changed since `seq - 1` (one message for everything that changed in one
   * turn of the server). Apply `removed`, then `added` (insert in knock order: by `knocked_at`),
   * then `updated` (replace in place); every part is idempotent. A `seq` other than the last one
   * plus 1 is a gap: ask with `waiting_resync` and ignore changes until the `waiting_list`.
   * `updated` carries requests whose shown fields changed; no transition changes them today.
   */
  | {
      readonly type: 'waiting_changes';
      readonly seq: number;
      readonly added: readonly WaitingItem[];
      readonly updated: readonly WaitingItem[];
      readonly removed: readonly string[];
    }
  | { readonly type: 'locks'; readonly locks: Locks }
  /** A moderator set the meeting's subject ('' cleared it): to everyone in the room (nobody waiting has a socket). */
  | { readonly type: 'subject'; readonly subject: string }
  /**
   * Moderators only: the waiting room of this meeting as their toggle shows it. `enabled`: later
   * arrivals wait as the room's scope says; `switchable`: a moderator may turn it on or off (false
   * under an instance that forces it, and in a room without a waiting room). Sent when the socket
   * opens, when its participant becomes a moderator, and after every switch.
   */
  | { readonly type: 'waiting_room'; readonly enabled: boolean; readonly switchable: boolean }
  /**
   * A participant's role changed (a room that is never left without a moderator promoted the
   * one present longest). To everyone in the room; the new moderator gets the whole waiting list next.
   */
  | { readonly type: 'role'; readonly participant_id: string; readonly role: Role }
  | { readonly type: 'signal'; readonly from: string; readonly data: SignalData }
  /** Go to another room of the same meeting family (sub-group or back to the parent). */
  | { readonly type: 'move'; readonly room_id: string }
  | { readonly type: 'subgroups'; readonly subgroups: readonly string[] }
  | { readonly type: 'ended' }
  /**
   * A moderator removed `participant_id` from the meeting (`by`: her participant_id; null for the
   * service or an integration). To everyone in the room, her too, just before her socket closes
   * with `closeCodes.removed`: her session is spent, and she comes back only by arriving again.
   */
  | { readonly type: 'removed'; readonly participant_id: string; readonly by: string | null }
  /**
   * Fresh STUN/TURN servers for her next connections and ICE restarts: her TURN credential is
   * short-lived, so while she stays the server sends new ones (when the socket opens and before
   * the last ones expire). Who has left or was removed gets none, and hers lapse.
   */
  | { readonly type: 'ice_servers'; readonly ice_servers: readonly IceServer[] }
  /** A message of this socket was refused; nothing else changed. `message` says why in plain words. */
  | { readonly type: 'error'; readonly code: LiveErrorCode; readonly message: string };

export type ClientMessage =
  | { readonly type: 'signal'; readonly to: string; readonly data: SignalData }
  | { readonly type: 'state'; readonly audio: boolean; readonly video: boolean; readonly screen: boolean }
  | { readonly type: 'speaking'; readonly speaking: boolean }
  /**
   * The participants whose video her page shows now (the tiles on screen), and the one shown
   * large. Through the SFU she receives only their video (audio from everyone), `large` in the
   * high simulcast layer and the others in the low one; before her first `view` she receives
   * all of it. Ids not in the meeting are ignored; at most `viewLimit` ids; a few per second.
   * The mesh ignores it (each peer connection carries its own video).
   */
  | { readonly type: 'view'; readonly video: readonly string[]; readonly large?: string }
  | { readonly type: 'chat'; readonly text: string }
  /** My own new name (the rule of every arrival; a few per 10 s): `state` with it goes to everyone. */
  | { readonly type: 'rename'; readonly name: string }
  /** Moderators only: the meeting's subject, 0-128 characters, one line ('' clears it). */
  | { readonly type: 'subject'; readonly subject: string }
  /** Moderators only: turn the waiting room of this meeting on or off for later arrivals. */
  | { readonly type: 'waiting_room'; readonly enabled: boolean }
  /** Moderators only. */
  | { readonly type: 'lock'; readonly locks: Locks }
  | { readonly type: 'create_subgroups'; readonly count: number }
  | { readonly type: 'move'; readonly participant_id: string; readonly room_id: string }
  | { readonly type: 'bring_back' }
  /** Moderators only: take someone else out of the meeting (her session is spent; she may knock again). */
  | { readonly type: 'remove'; readonly participant_id: string }
  /** Moderators only: send me the whole waiting list again (the client saw a gap in `seq`). */
  | { readonly type: 'waiting_resync' };

/**
 * The one table of the `error` message's codes: code → when it is sent. A code not here does not
 * compile on either side. Some are the engine's refusal of a gesture passed on with its own code
 * and words (`isLiveErrorCode` decides which may pass).
 */
export const liveErrorCodes = {
  invalid_message: 'the frame is not a message of this protocol, or a value in it is out of range',
  rate_limited: 'too many messages of this kind in a short time; the message was dropped',
  not_moderator: 'only a moderator may do this',
  locked: 'a moderator locked the microphone or camera for participants',
  invalid_signal: 'a signal that is not a session description or candidate this service relays',
  participant_not_found: 'the participant named is not connected here, or the sender is no longer present',
  invalid_field: 'a value the meeting refuses (a name, a subject, a sub-group room, herself as the one to remove)',
  room_exists: 'a sub-group room id is taken by a room that is not a sub-group of this one',
  meeting_not_found: 'the room has no meeting in progress',
  waiting_room_unavailable: 'this room has no waiting room to turn on',
  waiting_room_forced: 'the instance forces the waiting room; it cannot be turned off',
} as const satisfies Record<string, string>;

export type LiveErrorCode = keyof typeof liveErrorCodes;

export function isLiveErrorCode(code: string): code is LiveErrorCode {
  return Object.hasOwn(liveErrorCodes, code);
}

/**
 * WebSocket close codes the server uses (4000-4999 are the application's). `restarting`: the
 * daemon is stopping (SIGTERM/SIGINT); the page says so and comes back once the service answers.
 * `removed`: a moderator removed her (after the `removed` message); the page must not reconnect.
 */
export const closeCodes = { unauthorized: 4401, removed: 4403, replaced: 4409, ended: 4410, restarting: 4503 } as const;

/**
 * A socket that kept sending far beyond its allowance (twice the count of a window, after
 * `rate_limited`) is closed with the WebSocket's own "policy violation". It is not one of
 * `closeCodes`, so the page treats it as a lost connection and comes back after its back-off.
 */
export const floodCloseCode = 1008;
