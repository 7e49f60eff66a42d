/**
 * The meeting as the page knows it, kept by a reducer: the live socket's messages and her own
 * gestures in, the next state and what the view must do out. No DOM, no timers, no words: an
 * announcement is named (`Said`) and the view finds its sentence in the catalogue, so this runs
 * and is tested in Node (test/unit/web/state/meeting.test.ts).
 */
import type {
  ChatMessage,
  IceServer,
  LiveErrorCode,
  Locks,
  MediaKind,
  ParticipantView,
  RaisedHand,
  Reaction,
  ServerMessage,
  SignalData,
  SubgroupInfo,
} from '../../protocol/live.js';
import { mayAudio as lockAllowsAudio, mayVideo as lockAllowsVideo } from '../../protocol/locks.js';

export interface MeetingState {
  /** Herself as the server sees her; null until the first welcome. */
  readonly self: ParticipantView | null;
  /** The room's name, from the welcome (the socket opens only once she is admitted). */
  readonly roomName: string;
  /** The meeting's subject a moderator set; '' for none. */
  readonly subject: string;
  readonly locks: Locks;
  /** Everyone in the room, her too, in the order they came. */
  readonly participants: ReadonlyMap<string, ParticipantView>;
  readonly subgroups: readonly string[];
  /** The family's sub-groups with the names a moderator chose ('' for a numbered one). */
  readonly groups: readonly SubgroupInfo[];
  /** When the sub-groups' timer brings everyone back (ISO 8601), or null. */
  readonly groupsEndAt: string | null;
  /** A moderator's latest message to all groups, until she hides it. */
  readonly groupMessage: { readonly text: string; readonly from: string } | null;
  /** Her own outgoing media: what her buttons show and what she tells the server. */
  readonly audio: boolean;
  readonly video: boolean;
  readonly screen: boolean;
  /** Welcomes heard: a second one is the same meeting after a lost connection. */
  readonly welcomes: number;
}

/** What the page says aloud, by name: the view reads the sentence from words.meeting (or words.liveErrors). */
export type Said =
  | {
      readonly key:
        | 'welcome'
        | 'micOn'
        | 'micMuted'
        | 'cameraOn'
        | 'cameraOff'
        | 'sharing'
        | 'shareStopped'
        | 'locksChanged'
        | 'nowModerator'
        | 'subjectRemoved';
    }
  | { readonly key: 'joined' | 'left' | 'removed' | 'mutedBy'; readonly name: string }
  | { readonly key: 'renamed' | 'yourNameNow'; readonly before: string; readonly name: string }
  | { readonly key: 'subjectIs'; readonly subject: string }
  | { readonly key: 'groupsEndAt'; readonly endsAt: string }
  | { readonly key: 'groupMessage'; readonly name: string; readonly text: string }
  | { readonly key: 'liveError'; readonly code: LiveErrorCode };

/** What the view does after a step, in this order. The rest (buttons, title, lists) it draws from the state. */
export type MeetingEffect =
  /** A welcome after a lost connection: the tiles (of these participants), peers and chat of the previous one go. */
  | { readonly do: 'forget'; readonly tiles: readonly string[] }
  /** Media starts afresh with everyone: her id, who to connect to, and what the locks let her send. */
  | {
      readonly do: 'media';
      readonly media: MediaKind;
      readonly self: string;
      readonly peers: readonly string[];
      readonly audio: boolean;
      readonly video: boolean;
    }
  | { readonly do: 'tile'; readonly participant: ParticipantView }
  /** Her tile and her media peer go. */
  | { readonly do: 'untile'; readonly participant_id: string }
  | { readonly do: 'chat'; readonly message: ChatMessage }
  | { readonly do: 'speaking'; readonly participant_id: string; readonly speaking: boolean }
  | { readonly do: 'signal'; readonly from: string; readonly data: SignalData }
  | { readonly do: 'ice'; readonly servers: readonly IceServer[] }
  | { readonly do: 'move'; readonly room_id: string }
  /** The moderator's Waiting section takes it (state/waiting-list.ts). */
  | {
      readonly do: 'waiting';
      readonly message: Extract<ServerMessage, { type: 'waiting_list' | 'waiting_changes' | 'waiting_room' }>;
    }
  /** Her name is what she asked for: a rename form still open closes. */
  | { readonly do: 'renamed' }
  /** The server refused a rename she may be waiting on: said where she typed it. */
  | { readonly do: 'renameRefused'; readonly why: 'name' | 'rate_limited' }
  /** Tell the server her media state (state.audio, state.video, state.screen). */
  | { readonly do: 'publish' }
  | { readonly do: 'announce'; readonly said: Said }
  /** The room's raised hands (state/classroom.ts keeps them). */
  | { readonly do: 'hands'; readonly hands: readonly RaisedHand[] }
  | { readonly do: 'reaction'; readonly participant_id: string; readonly reaction: Reaction }
  /** A moderator turned her microphone off: said where she sees her own controls until she unmutes. */
  | { readonly do: 'mutedBy'; readonly name: string }
  /** The meeting is over for her: it ended, or she was removed. */
  | { readonly do: 'end'; readonly reason: 'ended' | 'removed' };

export interface Step {
  readonly state: MeetingState;
  readonly effects: readonly MeetingEffect[];
}

export const initialMeeting: MeetingState = {
  self: null,
  roomName: '',
  subject: '',
  locks: { mic: false, cam: false, cams_moderators_only: false },
  participants: new Map(),
  subgroups: [],
  groups: [],
  groupsEndAt: null,
  groupMessage: null,
  audio: true,
  video: true,
  screen: false,
  welcomes: 0,
};

/**
 * A meeting view's first state: her microphone and camera as her tracks are (on, or muted and
 * off), so a move to a sub-group and back, or a device check before entering, keeps them.
 */
export function meetingWith(tracks: { readonly audio: boolean; readonly video: boolean }): MeetingState {
  return { ...initialMeeting, audio: tracks.audio, video: tracks.video };
}

export const isModerator = (state: MeetingState): boolean => state.self?.role === 'moderator';
export const mayAudio = (state: MeetingState): boolean =>
  lockAllowsAudio(state.self?.role ?? 'participant', state.locks);
export const mayVideo = (state: MeetingState): boolean =>
  lockAllowsVideo(state.self?.role ?? 'participant', state.locks);
/** Whether anyone in the room shares a screen (the knock notification then keeps out of the way). */
/** The sub-group she is in (null: the main room). */
export const groupOf = (state: MeetingState, roomId: string): SubgroupInfo | null =>
  state.groups.find((g) => g.room_id === roomId) ?? null;
export const anyoneSharing = (state: MeetingState): boolean => [...state.participants.values()].some((p) => p.screen);

/** A key of words.meeting, not a sentence: the view looks it up. */
const spoken = (said: Said): MeetingEffect => ({ do: 'announce', said });

function withParticipant(
  participants: ReadonlyMap<string, ParticipantView>,
  p: ParticipantView,
): ReadonlyMap<string, ParticipantView> {
  return new Map(participants).set(p.participant_id, p);
}

function without(participants: ReadonlyMap<string, ParticipantView>, id: string): ReadonlyMap<string, ParticipantView> {
  const next = new Map(participants);
  next.delete(id);
  return next;
}

/** What the locks no longer let her send is switched off (and the server told); a moderator is never bound. */
function obeyLocks(state: MeetingState): Step {
  const audio = state.audio && mayAudio(state);
  const video = state.video && mayVideo(state);
  if (audio === state.audio && video === state.video) return { state, effects: [] };
  return { state: { ...state, audio, video }, effects: [{ do: 'publish' }] };
}

function welcome(state: MeetingState, message: Extract<ServerMessage, { type: 'welcome' }>): Step {
  const self = message.self;
  let next: MeetingState = {
    ...state,
    self,
    roomName: message.room_name,
    subject: message.subject,
    locks: message.locks,
    subgroups: [...message.subgroups],
    groups: message.groups,
    groupsEndAt: message.groups_end_at,
    participants: new Map([self, ...message.participants].map((p) => [p.participant_id, p])),
    welcomes: state.welcomes + 1,
  };
  next = obeyLocks(next).state;
  // Asked to arrive muted: on every welcome, as the server counts her as a new arrival.
  if (message.mute_on_start && next.audio) next = { ...next, audio: false };
  const peers = message.participants.map((p) => p.participant_id).filter((id) => id !== self.participant_id);
  return {
    state: next,
    effects: [
      ...(state.self ? [{ do: 'forget', tiles: [...state.participants.keys()] } as const] : []),
      ...[...next.participants.values()].map((participant) => ({ do: 'tile', participant }) as const),
      ...message.chat.map((m) => ({ do: 'chat', message: m }) as const),
      {
        do: 'media',
        media: message.media,
        self: self.participant_id,
        peers,
        audio: mayAudio(next),
        video: mayVideo(next),
      },
      { do: 'publish' },
      spoken({ key: 'welcome' }),
    ],
  };
}

/** A participant's new view (media state, name): a rename is said, hers as her own. */
function stateOf(state: MeetingState, p: ParticipantView): Step {
  const before = state.participants.get(p.participant_id);
  const mine = p.participant_id === state.self?.participant_id;
  const self = mine && state.self ? { ...state.self, name: p.name } : state.self;
  const effects: MeetingEffect[] = [];
  if (before && before.name !== p.name) {
    if (mine) effects.push({ do: 'renamed' });
    effects.push(spoken({ key: mine ? 'yourNameNow' : 'renamed', before: before.name, name: p.name }));
  }
  effects.push({ do: 'tile', participant: p });
  return { state: { ...state, self, participants: withParticipant(state.participants, p) }, effects };
}

function roleOf(state: MeetingState, message: Extract<ServerMessage, { type: 'role' }>): Step {
  const known = state.participants.get(message.participant_id);
  const effects: MeetingEffect[] = [];
  let next = state;
  if (known) {
    const changed = { ...known, role: message.role };
    next = { ...next, participants: withParticipant(next.participants, changed) };
    effects.push({ do: 'tile', participant: changed });
  }
  if (next.self && message.participant_id === next.self.participant_id && next.self.role !== message.role) {
    // As a welcome does for a moderator: locks no longer bind her (or bind her again).
    const locked = obeyLocks({ ...next, self: { ...next.self, role: message.role } });
    next = locked.state;
    effects.push(...locked.effects);
    if (isModerator(next)) effects.push(spoken({ key: 'nowModerator' }));
  }
  return { state: next, effects };
}

/** One message of the live socket. */
export function receive(state: MeetingState, message: ServerMessage): Step {
  const none = (next: MeetingState = state): Step => ({ state: next, effects: [] });
  switch (message.type) {
    case 'welcome':
      return welcome(state, message);
    case 'participant_joined': {
      const p = message.participant;
      // The same arrival twice (a repeated message) is one arrival: its tile is refreshed, she is not announced again.
      const again = state.participants.has(p.participant_id);
      return {
        state: { ...state, participants: withParticipant(state.participants, p) },
        effects: [{ do: 'tile', participant: p }, ...(again ? [] : [spoken({ key: 'joined', name: p.name })])],
      };
    }
    case 'participant_left': {
      const gone = state.participants.get(message.participant_id);
      return {
        state: gone ? { ...state, participants: without(state.participants, message.participant_id) } : state,
        effects: [
          { do: 'untile', participant_id: message.participant_id },
          ...(gone ? [spoken({ key: 'left', name: gone.name })] : []),
        ],
      };
    }
    case 'state':
      return stateOf(state, message.participant);
    case 'role':
      return roleOf(state, message);
    case 'subject':
      return {
        state: { ...state, subject: message.subject },
        effects: [spoken(message.subject ? { key: 'subjectIs', subject: message.subject } : { key: 'subjectRemoved' })],
      };
    case 'locks': {
      const locked = obeyLocks({ ...state, locks: message.locks });
      return { state: locked.state, effects: [...locked.effects, spoken({ key: 'locksChanged' })] };
    }
    case 'subgroups': {
      const next = {
        ...state,
        subgroups: [...message.subgroups],
        groups: message.groups,
        groupsEndAt: message.ends_at,
      };
      const timerSet = message.ends_at !== null && message.ends_at !== state.groupsEndAt;
      return { state: next, effects: timerSet ? [spoken({ key: 'groupsEndAt', endsAt: message.ends_at ?? '' })] : [] };
    }
    case 'group_message': {
      const groupMessage = { text: message.text, from: message.from };
      // The server tells the current message again after each welcome (a reconnect): said once.
      const known = state.groupMessage?.text === message.text && state.groupMessage.from === message.from;
      return {
        state: { ...state, groupMessage },
        effects: known ? [] : [spoken({ key: 'groupMessage', name: message.from, text: message.text })],
      };
    }
    case 'waiting_room':
    case 'waiting_list':
    case 'waiting_changes':
      return { state, effects: [{ do: 'waiting', message }] };
    case 'speaking':
      return {
        state,
        effects: [{ do: 'speaking', participant_id: message.participant_id, speaking: message.speaking }],
      };
    case 'chat':
      return { state, effects: [{ do: 'chat', message: message.message }] };
    case 'signal':
      return { state, effects: [{ do: 'signal', from: message.from, data: message.data }] };
    case 'ice_servers':
      return { state, effects: [{ do: 'ice', servers: message.ice_servers }] };
    case 'move':
      return { state, effects: [{ do: 'move', room_id: message.room_id }] };
    case 'removed': {
      if (message.participant_id === state.self?.participant_id)
        return { state, effects: [{ do: 'end', reason: 'removed' }] };
      // Someone else: the others hear who was removed, and not, a moment later, that she left
      // (her participant_left then finds nobody to announce; it still takes her tile).
      const gone = state.participants.get(message.participant_id);
      if (!gone) return none();
      return {
        state: { ...state, participants: without(state.participants, message.participant_id) },
        effects: [spoken({ key: 'removed', name: gone.name })],
      };
    }
    case 'ended':
      return { state, effects: [{ do: 'end', reason: 'ended' }] };
    case 'muted':
      // Asked, never forced to stay so: her own button turns it on again. Nothing turns it on for her.
      return {
        state: { ...state, audio: false },
        effects: [
          ...(state.audio ? [{ do: 'publish' } as const] : []),
          { do: 'mutedBy', name: message.by_name },
          spoken({ key: 'mutedBy', name: message.by_name }),
        ],
      };
    case 'hands':
      return { state, effects: [{ do: 'hands', hands: message.hands }] };
    case 'reaction':
      return {
        state,
        effects: [{ do: 'reaction', participant_id: message.participant_id, reaction: message.reaction }],
      };
    case 'error': {
      // A refused name is said where it was typed, in the page's plain words.
      const why =
        message.code === 'invalid_field' && message.message.startsWith('name')
          ? 'name'
          : message.code === 'rate_limited'
            ? 'rate_limited'
            : null;
      return {
        state,
        effects: [
          ...(why ? [{ do: 'renameRefused', why } as const] : []),
          spoken({ key: 'liveError', code: message.code }),
        ],
      };
    }
  }
}

/** She hid the message to all groups. */
export function hideGroupMessage(state: MeetingState): Step {
  return { state: { ...state, groupMessage: null }, effects: [] };
}

/** Her microphone button (or M, or an embedding page): what the locks allow is the view's to check. */
export function toggleAudio(state: MeetingState): Step {
  const audio = !state.audio;
  return { state: { ...state, audio }, effects: [{ do: 'publish' }, spoken({ key: audio ? 'micOn' : 'micMuted' })] };
}

export function toggleVideo(state: MeetingState): Step {
  const video = !state.video;
  return {
    state: { ...state, video },
    effects: [{ do: 'publish' }, spoken({ key: video ? 'cameraOn' : 'cameraOff' })],
  };
}

/** Her screen share started or stopped (the browser's picker, or the browser's own Stop). */
export function shareScreen(state: MeetingState, screen: boolean): Step {
  return {
    state: { ...state, screen },
    effects: [spoken({ key: screen ? 'sharing' : 'shareStopped' }), { do: 'publish' }],
  };
}
