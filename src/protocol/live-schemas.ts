/**
 * The live socket's messages as JSON Schemas (typebox): the one definition of the wire. The
 * server compiles `ClientMessage` once and checks every frame with it (http/live/client-messages.ts);
 * live.ts derives every message type from these schemas, and the page imports those types only,
 * so typebox never reaches its bundle. Objects refuse unknown fields: a misspelt field silently
 * ignored would be a gesture the sender believes was made. Every field is snake_case JSON.
 */
import { Type, type TProperties } from '#typebox';
import { liveErrorCodes, reactions, viewIdMaxLength, viewLimit, type LiveErrorCode } from './live-constants.js';

const closed = { additionalProperties: false } as const;
const record = <P extends TProperties>(properties: P) => Type.Object(properties, closed);
const message = <T extends string, P extends TProperties>(type: T, properties: P) =>
  Type.Object({ type: Type.Literal(type), ...properties }, closed);
const participantId = Type.String({ minLength: 1 });

export const Role = Type.Union([Type.Literal('moderator'), Type.Literal('participant')]);

export const ParticipantView = record({
  participant_id: Type.String(),
  name: Type.String(),
  role: Role,
  audio: Type.Boolean(),
  video: Type.Boolean(),
  screen: Type.Boolean(),
  /** Her picture (an http(s) URL from her join link), shown on her tile while her camera is off. */
  avatar_url: Type.Optional(Type.String()),
});

/** Lock settings apply to participants (viewers), never to moderators. */
export const Locks = record({
  /** Microphones of participants are locked: no audio may be sent. */
  mic: Type.Boolean(),
  /** Cameras of participants are locked: no video may be sent. */
  cam: Type.Boolean(),
  /** Only moderators may send video ("webcams only for moderators"). */
  cams_moderators_only: Type.Boolean(),
});

/**
 * `system` is true (and participant_id and role null) for what the service itself posts, such as
 * the meeting API's sendChatMessage; `role` is the author's. Clients draw both as badges from
 * these fields, never from `name`: a person's name cannot carry either.
 */
export const ChatMessage = record({
  from: record({
    participant_id: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    role: Type.Union([Role, Type.Null()]),
    system: Type.Boolean(),
  }),
  text: Type.String(),
  at: Type.String(),
});

export const WaitingItem = record({
  request_id: Type.String(),
  name: Type.String(),
  note: Type.String(),
  knocked_at: Type.String(),
  /** Her page has been silent for a few polls (a network drop, a frozen tab): her place is kept through the grace. */
  connection_lost: Type.Optional(Type.Literal(true)),
  /** Her name is that of a person barred in this meeting (case, accents and spaces aside): the name that one was barred as. Not a bar: she waits like anyone. */
  barred_as: Type.Optional(Type.String()),
});

/**
 * What became of a request the moderators' list no longer shows: a moderator admitted, refused or barred her,
 * it expired, she left (withdrew, closed her window, or her page is going away), or her grace ran out.
 */
export const WaitingOutcome = Type.Union([
  Type.Literal('admitted'),
  Type.Literal('refused'),
  Type.Literal('barred'),
  Type.Literal('expired'),
  Type.Literal('left'),
  Type.Literal('timed_out'),
]);

/**
 * How a meeting carries media, chosen when it starts and kept until it ends. `mesh`: one
 * RTCPeerConnection per other participant, signals addressed to her participant_id. `janus`:
 * the server's SFU; the page keeps two connections, and addresses their signals to the pseudo
 * participants of `sfuPeers` (it never talks to the SFU itself): it offers on `publish`
 * (answered by the server), and answers the offers the server sends from `subscribe`. Who
 * speaks is then measured by the server from the audio levels Janus reports: a page's own
 * `speaking` claims are ignored.
 */
export const MediaKind = Type.Union([Type.Literal('mesh'), Type.Literal('janus')]);

/** A STUN or TURN server for the page's RTCPeerConnection (RTCIceServer as JSON); TURN ones carry her own credential. */
export const IceServer = record({
  urls: Type.Array(Type.String()),
  username: Type.Optional(Type.String()),
  credential: Type.Optional(Type.String()),
});

/** Opaque WebRTC signalling: an SDP description or an ICE candidate (media/signal-data.ts rebuilds it from these fields). */
export const SignalData = Type.Union([
  record({
    description: record({
      type: Type.Union([
        Type.Literal('offer'),
        Type.Literal('answer'),
        Type.Literal('pranswer'),
        Type.Literal('rollback'),
      ]),
      sdp: Type.Optional(Type.String()),
    }),
  }),
  record({ candidate: Type.Unknown() }),
]);

/** One of `reactions` (live-constants.ts). */
export const Reaction = Type.Enum([...reactions]);

/** A raised hand: whose, and when she raised it (ISO time, the server's clock). */
export const RaisedHand = record({ participant_id: Type.String(), raised_at: Type.String() });

/**
 * A sub-group as the pages show it: `name` is the name a moderator chose ('' for none: the page
 * says "Group <number>" in its own language). Plain text: render it as text.
 */
export const SubgroupInfo = record({ room_id: Type.String(), number: Type.Integer(), name: Type.String() });

/** When the sub-groups' timer brings everyone back (ISO 8601), or null when no timer runs. */
const groupsEndAt = Type.Union([Type.String(), Type.Null()]);

const errorCodes = Object.keys(liveErrorCodes) as LiveErrorCode[];

// ---- server → client -------------------------------------------------------------------

export const ServerMessage = Type.Union([
  message('welcome', {
    self: ParticipantView,
    room_id: Type.String(),
    /** The room's name: told only here, on the live socket, which opens once she is admitted. Nothing before admission names the meeting. */
    room_name: Type.String(),
    participants: Type.Array(ParticipantView),
    locks: Locks,
    chat: Type.Array(ChatMessage),
    subgroups: Type.Array(Type.String()),
    /** The family's sub-groups with their names (same order as `subgroups`). */
    groups: Type.Array(SubgroupInfo),
    groups_end_at: groupsEndAt,
    /** The meeting asks arrivals to start with the microphone off (they may turn it on). */
    mute_on_start: Type.Optional(Type.Boolean()),
    /** The meeting's title a moderator set; '' for none. Plain text: render it as text. */
    subject: Type.String(),
    media: MediaKind,
  }),
  message('participant_joined', { participant: ParticipantView }),
  message('participant_left', { participant_id: Type.String() }),
  /**
   * A participant's whole view again, after her media state or her name changed (to everyone, her
   * too). Media states are coalesced: the latest per participant, at most every 250 ms or so, so a
   * page keeps the last one it heard; `speaking` likewise.
   */
  message('state', { participant: ParticipantView }),
  message('speaking', { participant_id: Type.String(), speaking: Type.Boolean() }),
  message('chat', { message: ChatMessage }),
  /**
   * Moderators only: the whole waiting list, in knock order, as it stands at `seq`. Sent when the
   * socket opens, when its participant becomes a moderator, on `waiting_resync`, and instead of a
   * change that would be larger than the list (admit all). The list then follows by `waiting_changes`.
   * `skipped` (once, in the first list after her arrival under until_moderator): how many marked "barred earlier"
   * her arrival did not let in; they still wait for a moderator's decision.
   */
  message('waiting_list', {
    seq: Type.Integer(),
    requests: Type.Array(WaitingItem),
    skipped: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  /**
   * Moderators only: what changed since `seq - 1` (one message for everything that changed in one
   * turn of the server). Apply `removed`, then `added` (insert in knock order: by `knocked_at`),
   * then `updated` (replace in place); every part is idempotent. A `seq` other than the last one
   * plus 1 is a gap: ask with `waiting_resync` and ignore changes until the `waiting_list`.
   * `updated` carries requests whose shown fields changed: her connection lost (`connection_lost`)
   * or back (without it). `timed_out`, when present, names those of `removed` whose grace ran out
   * without a word from their page: she left the queue (told to moderators as a notice). `outcomes`
   * says for each of `removed` what became of her (WaitingOutcome), so a list can say it in words.
   */
  message('waiting_changes', {
    seq: Type.Integer(),
    added: Type.Array(WaitingItem),
    updated: Type.Array(WaitingItem),
    removed: Type.Array(Type.String()),
    timed_out: Type.Optional(Type.Array(Type.String())),
    outcomes: Type.Optional(Type.Record(Type.String(), WaitingOutcome)),
  }),
  message('locks', { locks: Locks }),
  /** A moderator set the meeting's subject ('' cleared it): to everyone in the room (nobody waiting has a socket). */
  message('subject', { subject: Type.String() }),
  /**
   * Moderators only: the waiting room of this meeting as their toggle shows it. `enabled`: later
   * arrivals wait as the room's scope says; `switchable`: a moderator may turn it on or off (false
   * under an instance that forces it, and in a room without a waiting room). Sent when the socket
   * opens, when its participant becomes a moderator, and after every switch.
   */
  message('waiting_room', { enabled: Type.Boolean(), switchable: Type.Boolean() }),
  /**
   * A participant's role changed (a room that is never left without a moderator promoted the one
   * present longest). To everyone in the room; the new moderator gets the whole waiting list next.
   */
  message('role', { participant_id: Type.String(), role: Role }),
  message('signal', { from: Type.String(), data: SignalData }),
  /** Go to another room of the same meeting family (sub-group or back to the parent). */
  message('move', { room_id: Type.String() }),
  /** The sub-groups changed (created, named, or their timer set, cancelled or run out): to the whole family. */
  message('subgroups', {
    subgroups: Type.Array(Type.String()),
    groups: Type.Array(SubgroupInfo),
    ends_at: groupsEndAt,
  }),
  /** A moderator's message to all groups: to every page of the family, the main room too. Plain text. */
  message('group_message', { text: Type.String(), from: Type.String() }),
  message('ended', {}),
  /**
   * A moderator removed `participant_id` from the meeting (`by`: her participant_id; null for the
   * service or an integration). To everyone in the room, her too, just before her socket closes
   * with `closeCodes.removed`: her session is spent, and she comes back only by arriving again.
   */
  message('removed', { participant_id: Type.String(), by: Type.Union([Type.String(), Type.Null()]) }),
  /**
   * Fresh STUN/TURN servers for her next connections and ICE restarts: her TURN credential is
   * short-lived, so while she stays the server sends new ones (when the socket opens and before
   * the last ones expire). Who has left or was removed gets none, and hers lapse.
   */
  message('ice_servers', { ice_servers: Type.Array(IceServer) }),
  /**
   * To her alone: a moderator (`by`, named `by_name`) asked her microphone off. Her page turns it
   * off and says who did; she may turn it on again herself. Nobody can turn anyone's microphone on.
   */
  message('muted', { by: Type.String(), by_name: Type.String() }),
  /**
   * The raised hands of the room, in raising order (the first raised first): to everyone, when the
   * socket opens (after the welcome) and whenever a hand goes up or down. A hand goes down when
   * she lowers it, a moderator lowers it, or she leaves the meeting.
   */
  message('hands', { hands: Type.Array(RaisedHand) }),
  /** Someone's reaction, to everyone in the room (her too): shown briefly on her tile. */
  message('reaction', { participant_id: Type.String(), reaction: Reaction }),
  /** A message of this socket was refused; nothing else changed. `message` says why in plain words. */
  message('error', { code: Type.Enum(errorCodes), message: Type.String() }),
]);

// ---- client → server -------------------------------------------------------------------
// Shapes only: what a message may do (roles, locks, lengths of chat and names) is the engine's
// live meeting's to decide, with its own error codes.

export const ClientMessage = Type.Union([
  /** `data` is checked by the media backend, which refuses it as `invalid_signal` (media/signal-data.ts). */
  message('signal', { to: participantId, data: Type.Unknown() }),
  message('state', { audio: Type.Boolean(), video: Type.Boolean(), screen: Type.Boolean() }),
  message('speaking', { speaking: Type.Boolean() }),
  /**
   * The participants whose video her page shows now (the tiles on screen), and the one shown
   * large. Through the SFU she receives only their video (audio from everyone), `large` in the
   * high simulcast layer and the others in the low one; before her first `view` she receives all
   * of it. Ids not in the meeting are ignored; a few per second. The mesh ignores it.
   */
  message('view', {
    video: Type.Array(Type.String({ maxLength: viewIdMaxLength }), { maxItems: viewLimit }),
    large: Type.Optional(Type.String({ maxLength: viewIdMaxLength })),
  }),
  message('chat', { text: Type.String() }),
  /** My own new name (the rule of every arrival; a few per 10 s): `state` with it goes to everyone. */
  message('rename', { name: Type.String() }),
  /** Moderators only: the meeting's subject, 0-128 characters, one line ('' clears it). */
  message('subject', { subject: Type.String() }),
  /** Moderators only: turn the waiting room of this meeting on or off for later arrivals. */
  message('waiting_room', { enabled: Type.Boolean() }),
  /** Moderators only. */
  message('lock', { locks: Locks }),
  /** Sub-groups 1..count; `names` (optional) names them in order, 1-64 characters each, one line. */
  message('create_subgroups', {
    count: Type.Integer(),
    names: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
  }),
  message('move', { participant_id: Type.String(), room_id: Type.String() }),
  /** Moderators only: move these people of this room into the sub-groups at once, evenly (in order) or at random. */
  message('assign_subgroups', {
    participant_ids: Type.Array(participantId, { minItems: 1, maxItems: 500 }),
    mode: Type.Union([Type.Literal('even'), Type.Literal('random')]),
  }),
  /** Moderators only: everyone comes back to the main room after `minutes` (1-240); null cancels the timer. */
  message('subgroup_timer', { minutes: Type.Union([Type.Integer(), Type.Null()]) }),
  /** Moderators only: a message shown on every page of the family (1-500 characters). */
  message('group_message', { text: Type.String() }),
  message('bring_back', {}),
  /** Moderators only: take someone else out of the meeting (her session is spent; she may knock again). */
  message('remove', { participant_id: participantId }),
  /** Moderators only: ask someone else's microphone off (she is told who; she may unmute herself). */
  message('mute', { participant_id: participantId }),
  /** Moderators only: end the meeting (and its sub-groups) for everyone, durably. */
  message('end_meeting', {}),
  /** My own hand up (true) or down (false); a few per 10 s. */
  message('hand', { raised: Type.Boolean() }),
  /** Moderators only: lower someone's raised hand. */
  message('lower_hand', { participant_id: participantId }),
  /** A reaction on my tile, shown briefly to everyone; a few per 10 s. */
  message('react', { reaction: Reaction }),
  /** Moderators only: send me the whole waiting list again (the client saw a gap in `seq`). */
  message('waiting_resync', {}),
]);
