import type { Clock } from '../../engine/clock.js';
import type { EngineLog } from '../../engine/listeners.js';
import { EngineError } from '../../engine/errors.js';
import { systemName } from '../../engine/display-name.js';
import type { ChatEntry, ChatLog } from '../../engine/live/chat-log.js';
import type { LiveApi, LiveAttendee } from '../../engine/live/live-api.js';
import { mayAudio, mayVideo, type LockDefaults, type LockSettings, type MeetingLocks } from '../../engine/live/meeting-locks.js';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import { presentIn, type Meeting, type Participant } from '../../engine/meetings/meeting.js';
import type { RoomService } from '../../engine/rooms/room-service.js';
import type { MeetingStats } from '../../engine/stats/meeting-stats.js';
import type { SessionClaims } from '../../engine/tokens/token-service.js';
import type { WaitingListChange, WaitingRoomService } from '../../engine/waiting/waiting-room-service.js';
import type { MediaBackend, MediaBackendFactory, MediaContext, MediaPeer } from '../../media/media-backend.js';
import { MeshSignallingRelay } from '../../media/mesh-relay.js';
import { lockSettingsOf, parseClientMessage } from './client-messages.js';
import {
  closeCodes,
  isLiveErrorCode,
  type LiveErrorCode,
  type ChatMessage,
  type ClientMessage,
  type Locks,
  type ParticipantView,
  type Role,
  type ServerMessage,
  type WaitingItem,
} from '../../protocol/live.js';

/** One open socket, as the hub needs it (the route adapts a `ws` WebSocket). */
export interface LiveConnection {
  send(message: ServerMessage): void;
  close(code: number, reason: string): void;
}

/** What the route calls for the life of one socket. */
export interface LiveSession {
  readonly participantId: string;
  /** One text frame from the client. */
  receive(raw: string): void;
  /** The socket closed (whoever closed it). */
  closed(): void;
}

/** Timers, injected so that tests run the grace periods under a fake clock. */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Scheduler = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

export interface LiveOptions {
  /** A closed socket counts as leaving the meeting after this long (a reload does not). */
  readonly leaveGraceMs?: number;
  /** Who went into a sub-group stays present in the parent meeting; after `bring_back`, or while no sub-group has a meeting, this long at most. */
  readonly awayGraceMs?: number;
  readonly maxSubgroups?: number;
  /** Chat messages per participant per window. */
  readonly chatLimit?: { readonly count: number; readonly windowMs: number };
  /** Messages of any kind per socket per window. */
  readonly messageLimit?: { readonly count: number; readonly windowMs: number };
  /** Whole waiting lists a moderator may ask for (`waiting_resync`) per window: each costs the list's size. */
  readonly resyncLimit?: { readonly count: number; readonly windowMs: number };
  /** Renames per participant per window: each is a durable write and a message to everyone. */
  readonly renameLimit?: { readonly count: number; readonly windowMs: number };
  /** A moderator's meeting settings (subject, waiting room on/off) per window: durable writes told to everyone. */
  readonly settingsLimit?: { readonly count: number; readonly windowMs: number };
  /** A turn's waiting-list changes above this many go out as the whole list when that is shorter (admit all). */
  readonly waitingFullListAbove?: number;
}

export const liveDefaults = {
  leaveGraceMs: 5_000,
  awayGraceMs: 60_000,
  maxSubgroups: 20,
  chatLimit: { count: 10, windowMs: 10_000 },
  messageLimit: { count: 1_000, windowMs: 10_000 },
  resyncLimit: { count: 5, windowMs: 10_000 },
  renameLimit: { count: 5, windowMs: 10_000 },
  settingsLimit: { count: 10, windowMs: 10_000 },
  waitingFullListAbove: 64,
} as const;

export interface LiveHubDeps {
  readonly meetings: MeetingService;
  readonly waiting: Pick<
    WaitingRoomService,
    'list' | 'onWaitingListChange' | 'switchState' | 'onWaitingRoomSwitched' | 'enableWaitingRoom' | 'disableWaitingRoom'
  >;
  readonly rooms: Pick<RoomService, 'find' | 'create'>;
  /** Ids of a room's sub-groups. */
  readonly subgroupsOf: (roomId: string) => string[];
  readonly chat: ChatLog;
  readonly locks: MeetingLocks;
  readonly stats: MeetingStats;
  readonly clock: Clock;
  readonly scheduler?: Scheduler;
  readonly media?: MediaBackendFactory;
  readonly options?: LiveOptions;
  /** Where failures of background work (timers, socket events, a waiting-list push) are logged: the daemon's logger. */
  readonly log: EngineLog;
}

interface Window {
  startMs: number;
  count: number;
}

interface Member {
  readonly participantId: string;
  /** A copy of the participant record's name, kept in step by a rename. */
  name: string;
  /** A copy of the participant record's role, kept in step by MeetingService.onRoleChanged. */
  role: Participant['role'];
  readonly conn: LiveConnection;
  audio: boolean;
  video: boolean;
  screen: boolean;
  speaking: boolean;
  /** The room this participant was told to move to. */
  movingTo: string | null;
  /** Removed from the hub (replaced, left, ended): its socket's events are ignored. */
  gone: boolean;
  readonly messages: Window;
  readonly chats: Window;
  readonly resyncs: Window;
  readonly renames: Window;
  readonly settings: Window;
}

/** Waiting-list changes of one turn, merged (see `waitingChanged`), until the push. */
interface PendingWaiting {
  readonly added: Map<string, WaitingItem>;
  readonly removed: Set<string>;
  reset: boolean;
}

interface RoomState {
  readonly roomId: string;
  readonly meetingId: string;
  readonly parentRoomId: string | null;
  readonly members: Map<string, Member>;
  /** Participants of this room who went into one of its sub-groups: still present here. */
  readonly away: Set<string>;
  waitingPushScheduled: boolean;
  /** The sequence number of the last waiting-list message this room's moderators were sent. */
  waitingSeq: number;
  waitingPending: PendingWaiting | null;
}

interface Pending {
  readonly handle: unknown;
  readonly meetingId: string;
}

const viewOf = (m: Member): ParticipantView => ({
  participant_id: m.participantId,
  name: m.name,
  role: m.role,
  audio: m.audio,
  video: m.video,
  screen: m.screen,
});

const wireLocks = (l: LockSettings): Locks => ({ mic: l.mic, cam: l.cam, cams_moderators_only: l.camsModeratorsOnly });

/**
 * A chat message on the wire. The sender's marker travels as fields (`system`, `role`) so the
 * client draws it as a badge; nothing about who sent it is ever put into `name` or `text`.
 * The role is the author's in this meeting now (a moderator's old messages show the badge).
 */
function wireChat(entry: ChatEntry, roleOf: (participantId: string) => Role | undefined): ChatMessage {
  const system = entry.participantId === null;
  const role = system ? null : (roleOf(entry.participantId) ?? 'participant');
  return { from: { participant_id: entry.participantId, name: entry.name, role, system }, text: entry.text, at: entry.at };
}

const error = (code: LiveErrorCode, message: string): ServerMessage => ({ type: 'error', code, message });

/**
 * The engine's refusal of a gesture, passed on to its sender with the engine's code and words.
 * A code the live table does not list is a refusal this socket was never meant to meet: it goes
 * to the log (rethrown to the guard), not onto the wire as a code no client knows.
 */
function refusal(err: EngineError): ServerMessage {
  if (!isLiveErrorCode(err.code)) throw err;
  return error(err.code, err.message);
}

/** Sub-group ids in their natural order: g2 before g10. */
function byGroupNumber(a: string, b: string): number {
  const na = Number(/-g(\d+)$/.exec(a)?.[1] ?? NaN);
  const nb = Number(/-g(\d+)$/.exec(b)?.[1] ?? NaN);
  if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The live connection of every room: who is connected, their media states, chat, speaking,
 * lock settings, the moderators' waiting list, sub-groups and the end of the meeting. It
 * holds no module-level state: the daemon creates one per process (a node of a future
 * cluster would own the rooms pinned to it).
 *
 * Presence: a socket that closes makes its participant leave the meeting only after
 * `leaveGraceMs`, so a reload (a new socket within that time) is not a leave; once left, the
 * session opens no socket any more (the person arrives again through the door). `participant_left` is broadcast when the socket closes (its media is gone), and
 * `participant_joined` when one opens. A second socket of the same participant replaces the
 * first (closed with 4409).
 */
export class LiveHub implements LiveApi {
  private readonly states = new Map<string, RoomState>();
  private readonly connected = new Map<string, { readonly state: RoomState; readonly member: Member }>();
  private readonly pendingLeaves = new Map<string, Pending>();
  private readonly awayDeadlines = new Map<string, Pending>();
  private readonly media: MediaBackend;
  private readonly scheduler: Scheduler;
  private readonly options: Required<LiveOptions>;
  private readonly unsubscribe: (() => void)[] = [];
  private closedHub = false;
  private muteOnStart: (roomId: string) => boolean = () => false;

  constructor(private readonly deps: LiveHubDeps) {
    this.scheduler = deps.scheduler ?? realTimers;
    this.options = { ...liveDefaults, ...deps.options };
    this.media = (deps.media ?? ((context) => new MeshSignallingRelay(context)))(this.mediaContext());
    this.unsubscribe.push(
      // The engine's listener sets log a failing listener under the event's name (engine/listeners.ts).
      deps.meetings.onEnded((meeting) => this.meetingEnded(meeting)),
      deps.meetings.onLeft((participant) => this.participantLeft(participant)),
      deps.meetings.onRoleChanged((participant) => this.roleChanged(participant)),
      deps.waiting.onWaitingListChange((roomId, change) => this.waitingChanged(roomId, change)),
      deps.waiting.onWaitingRoomSwitched((roomId, meetingId) => this.waitingSwitched(roomId, meetingId)),
    );
  }

  get mediaBackend(): MediaBackend {
    return this.media;
  }

  /**
   * A socket opened with a verified session. Null (and the socket closed with 4401) when its
   * participant is no longer present in the room's open meeting (left, or the meeting ended).
   */
  connect(claims: SessionClaims, conn: LiveConnection): LiveSession | null {
    const participant = this.deps.meetings.participant(claims.participant);
    // Who left (POST /leave, or the grace period ran out) has no session any more; the route
    // checked this too, but a leave can land between its check and this call.
    if (this.closedHub || !presentIn(participant, { meetingId: claims.meeting, roomId: claims.room })) {
      conn.close(closeCodes.unauthorized, 'an admitted session of this room is required');
      return null;
    }
    const pid = participant.participantId;
    this.cancel(this.pendingLeaves, pid);
    this.cancel(this.awayDeadlines, pid);
    const state = this.stateFor(participant.roomId, participant.meetingId);
    state.away.delete(pid);

    const previous = state.members.get(pid);
    if (previous) {
      this.drop(state, previous);
      previous.conn.close(closeCodes.replaced, 'replaced by a newer connection of the same participant');
    }
    const now = this.nowMs();
    const member: Member = {
      participantId: pid,
      name: participant.name,
      role: participant.role,
      conn,
      audio: false,
      video: false,
      screen: false,
      speaking: false,
      movingTo: null,
      gone: false,
      messages: { startMs: now, count: 0 },
      chats: { startMs: now, count: 0 },
      resyncs: { startMs: now, count: 0 },
      renames: { startMs: now, count: 0 },
      settings: { startMs: now, count: 0 },
    };
    state.members.set(pid, member);
    this.connected.set(pid, { state, member });
    this.deps.stats.joined(state.meetingId, pid);

    conn.send({
      type: 'welcome',
      self: viewOf(member),
      room_id: state.roomId,
      room_name: this.deps.rooms.find(state.roomId)?.name ?? '',
      participants: [...state.members.values()].map(viewOf),
      locks: wireLocks(this.locksOf(state)),
      chat: this.deps.chat.latest(state.meetingId).map((entry) => this.wireChat(entry)),
      subgroups: this.family(state).subgroups,
      mute_on_start: this.muteOnStart(state.roomId),
      subject: this.deps.meetings.current(state.roomId)?.subject ?? '',
    });
    this.broadcast(state, { type: 'participant_joined', participant: viewOf(member) }, pid);
    if (member.role === 'moderator') {
      this.sendWaitingList(state, member);
      conn.send(this.waitingRoomMessage(state));
    }
    this.media.connected(this.peerOf(state, member));

    return {
      participantId: pid,
      receive: (raw) => this.guard('message', () => this.receive(state, member, raw)),
      closed: () => this.guard('socket closed', () => this.socketClosed(state, member)),
    };
  }

  // ---- LiveApi -------------------------------------------------------------------------

  postSystemChat(roomId: string, text: string): ChatEntry | null {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return null;
    const entry = this.deps.chat.post(meeting.meetingId, { participantId: null, name: systemName }, text);
    const state = this.states.get(roomId);
    if (state && state.meetingId === meeting.meetingId) this.broadcast(state, { type: 'chat', message: this.wireChat(entry) });
    return entry;
  }

  attendees(roomId: string): LiveAttendee[] {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return [];
    const state = this.states.get(roomId);
    const live = state && state.meetingId === meeting.meetingId ? state : null;
    return this.deps.meetings
      .present(roomId)
      .filter((p) => !live?.away.has(p.participantId))
      .map((p) => {
        const member = live?.members.get(p.participantId);
        return {
          participantId: p.participantId,
          name: p.name,
          role: p.role,
          audio: member?.audio ?? false,
          video: member?.video ?? false,
          screen: member?.screen ?? false,
          connected: member !== undefined,
        };
      });
  }

  locks(roomId: string): LockSettings | null {
    const meeting = this.deps.meetings.current(roomId);
    return meeting ? this.deps.locks.get(meeting) : null;
  }

  setLocks(roomId: string, locks: LockSettings): boolean {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return false;
    this.applyLocks(this.stateFor(roomId, meeting.meetingId), locks);
    return true;
  }

  setMuteOnStart(provider: (roomId: string) => boolean): void {
    this.muteOnStart = provider;
  }

  setLockDefaults(provider: LockDefaults): void {
    this.deps.locks.setDefaults(provider);
  }

  /** Stops timers and listeners. Running intervals of statistics end now; nobody leaves (clients reconnect). */
  close(): void {
    if (this.closedHub) return;
    this.closedHub = true;
    for (const off of this.unsubscribe) off();
    for (const pending of [...this.pendingLeaves.values(), ...this.awayDeadlines.values()]) this.scheduler.clearTimeout(pending.handle);
    this.pendingLeaves.clear();
    this.awayDeadlines.clear();
    for (const { state, member } of this.connected.values()) {
      member.gone = true;
      this.guard('closing', () => this.deps.stats.disconnected(state.meetingId, member.participantId));
    }
    this.connected.clear();
    this.states.clear();
  }

  // ---- messages ------------------------------------------------------------------------

  private receive(state: RoomState, member: Member, raw: string): void {
    if (member.gone || this.closedHub) return;
    if (!this.within(member.messages, this.options.messageLimit)) {
      member.conn.send(error('rate_limited', 'too many messages; slow down'));
      return;
    }
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      member.conn.send(error('invalid_message', parsed.message));
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'signal': {
        const result = this.media.relaySignal(member.participantId, message.to, message.data);
        // A signal to someone who is not (or no longer) in the meeting is dropped without a word.
        if (!result.ok && result.code !== 'not_member') member.conn.send(error(result.code, result.message));
        return;
      }
      case 'state':
        return this.state(state, member, message);
      case 'speaking':
        return this.speaking(state, member, message.speaking);
      case 'chat':
        return this.chat(state, member, message.text);
      case 'rename':
        return this.rename(state, member, message.name);
      default:
        return this.moderate(state, member, message);
    }
  }

  private state(state: RoomState, member: Member, wanted: { audio: boolean; video: boolean; screen: boolean }): void {
    const locks = this.locksOf(state);
    const audio = wanted.audio && mayAudio(member.role, locks);
    const videoAllowed = mayVideo(member.role, locks);
    const video = wanted.video && videoAllowed;
    const screen = wanted.screen && videoAllowed;
    if (audio !== wanted.audio || video !== wanted.video || screen !== wanted.screen) {
      member.conn.send(error('locked', 'a moderator locked this for participants'));
    }
    this.setMedia(state, member, { audio, video, screen }, true);
  }

  private setMedia(state: RoomState, member: Member, media: { audio: boolean; video: boolean; screen: boolean }, always: boolean): void {
    const changed = member.audio !== media.audio || member.video !== media.video || member.screen !== media.screen;
    if (!changed && !always) return;
    if (!media.audio && member.speaking) this.speaking(state, member, false);
    member.audio = media.audio;
    member.video = media.video;
    member.screen = media.screen;
    this.deps.stats.state(state.meetingId, member.participantId, { audio: media.audio, video: media.video });
    this.broadcast(state, { type: 'state', participant: viewOf(member) });
  }

  private speaking(state: RoomState, member: Member, speaking: boolean): void {
    if (speaking === member.speaking || (speaking && !member.audio)) return;
    member.speaking = speaking;
    this.deps.stats.speaking(state.meetingId, member.participantId, speaking);
    this.broadcast(state, { type: 'speaking', participant_id: member.participantId, speaking }, member.participantId);
  }

  private wireChat(entry: ChatEntry): ChatMessage {
    return wireChat(entry, (id) => this.deps.meetings.participant(id)?.role);
  }

  private chat(state: RoomState, member: Member, text: string): void {
    if (!this.within(member.chats, this.options.chatLimit)) {
      member.conn.send(error('rate_limited', 'too many chat messages; wait a few seconds'));
      return;
    }
    let entry: ChatEntry;
    try {
      entry = this.deps.meetings.atomically(() => {
        const posted = this.deps.chat.post(state.meetingId, { participantId: member.participantId, name: member.name }, text);
        this.deps.stats.chat(state.meetingId, member.participantId);
        return posted;
      });
    } catch (err) {
      if (err instanceof EngineError) {
        member.conn.send(error('invalid_message', err.message));
        return;
      }
      throw err;
    }
    this.broadcast(state, { type: 'chat', message: this.wireChat(entry) });
  }

  /**
   * Her own name, by the rule of every arrival, on disk before anyone is told. A flood is cut by
   * its own window (`renameLimit`): beyond it nothing is written or sent to anyone but her.
   */
  private rename(state: RoomState, member: Member, name: string): void {
    if (!this.within(member.renames, this.options.renameLimit)) {
      member.conn.send(error('rate_limited', 'too many name changes; wait a few seconds'));
      return;
    }
    const result = this.engineCall(member, () => this.deps.meetings.rename(member.participantId, name));
    if (!result?.changed) return;
    member.name = result.participant.name;
    this.broadcast(state, { type: 'state', participant: viewOf(member) });
  }

  private setSubject(state: RoomState, member: Member, subject: string): void {
    if (!this.within(member.settings, this.options.settingsLimit)) {
      member.conn.send(error('rate_limited', 'too many changes to the meeting; wait a few seconds'));
      return;
    }
    const actor = { kind: 'participant', participantId: member.participantId } as const;
    const result = this.engineCall(member, () => this.deps.meetings.setSubject(state.roomId, actor, subject));
    if (result?.changed) this.broadcast(state, { type: 'subject', subject: result.meeting.subject });
  }

  /** On or off for later arrivals; the moderators hear of it from the engine (`waitingSwitched`), as for a switch over HTTP. */
  private switchWaitingRoom(state: RoomState, member: Member, enabled: boolean): void {
    if (!this.within(member.settings, this.options.settingsLimit)) {
      member.conn.send(error('rate_limited', 'too many changes to the meeting; wait a few seconds'));
      return;
    }
    const actor = { kind: 'participant', participantId: member.participantId } as const;
    const before = this.deps.waiting.switchState(state.roomId);
    const done = this.engineCall(member, () =>
      enabled ? this.deps.waiting.enableWaitingRoom(state.roomId, actor) : this.deps.waiting.disableWaitingRoom(state.roomId, actor),
    );
    // A switch that changed nothing tells nobody else; she is sent the state as it stands (her toggle may be stale).
    if (done && this.deps.waiting.switchState(state.roomId).enabled === before.enabled) member.conn.send(this.waitingRoomMessage(state));
  }

  /** Runs an engine call for a member; its refusal goes back to her as a live error (code and words), never further. */
  private engineCall<T>(member: Member, fn: () => T): T | null {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      member.conn.send(refusal(err));
      return null;
    }
  }

  private waitingRoomMessage(state: RoomState): ServerMessage {
    const { enabled, switchable } = this.deps.waiting.switchState(state.roomId);
    return { type: 'waiting_room', enabled, switchable };
  }

  private waitingSwitched(roomId: string, meetingId: string): void {
    const state = this.states.get(roomId);
    if (!state || state.meetingId !== meetingId) return;
    const message = this.waitingRoomMessage(state);
    for (const moderator of this.moderatorsOf(state)) moderator.conn.send(message);
  }

  private moderate(state: RoomState, member: Member, message: Exclude<ClientMessage, { type: 'signal' | 'state' | 'speaking' | 'chat' | 'rename' }>): void {
    if (member.role !== 'moderator') {
      member.conn.send(error('not_moderator', 'only a moderator may do this'));
      return;
    }
    switch (message.type) {
      case 'lock': {
        const settings = lockSettingsOf(message.locks);
        if (settings) this.applyLocks(state, settings);
        return;
      }
      case 'create_subgroups':
        return this.createSubgroups(state, member, message.count);
      case 'move':
        return this.move(state, member, message.participant_id, message.room_id);
      case 'bring_back':
        return this.bringBack(state);
      case 'subject':
        return this.setSubject(state, member, message.subject);
      case 'waiting_room':
        return this.switchWaitingRoom(state, member, message.enabled);
      case 'waiting_resync':
        if (!this.within(member.resyncs, this.options.resyncLimit)) {
          member.conn.send(error('rate_limited', 'the waiting list was sent again a moment ago; wait a few seconds'));
          return;
        }
        return this.sendWaitingList(state, member);
    }
  }

  private applyLocks(state: RoomState, settings: LockSettings): void {
    const locks = this.deps.locks.set(state.meetingId, settings);
    this.broadcast(state, { type: 'locks', locks: wireLocks(locks) });
    for (const member of state.members.values()) {
      const audio = member.audio && mayAudio(member.role, locks);
      const videoAllowed = mayVideo(member.role, locks);
      this.setMedia(state, member, { audio, video: member.video && videoAllowed, screen: member.screen && videoAllowed }, false);
    }
    this.media.locksChanged(state.meetingId, locks);
  }

  private createSubgroups(state: RoomState, member: Member, count: number): void {
    const { root } = this.family(state);
    const max = this.options.maxSubgroups;
    if (count < 1 || count > max) {
      member.conn.send(error('invalid_message', `count must be an integer from 1 to ${max}`));
      return;
    }
    const parent = this.deps.rooms.find(root);
    if (!parent) return;
    try {
      for (let n = 1; n <= count; n++) {
        const roomId = `${root}-g${n}`;
        const existing = this.deps.rooms.find(roomId);
        if (existing?.parentRoomId === root) continue;
        this.deps.rooms.create({ room_id: roomId, name: `${parent.name} – group ${n}`.slice(0, 200), parent_room_id: root });
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      member.conn.send(refusal(err));
    }
    this.broadcastFamily(root, { type: 'subgroups', subgroups: this.subgroupsOf(root) });
  }

  private move(state: RoomState, member: Member, participantId: string, roomId: string): void {
    const { root, subgroups } = this.family(state);
    if (roomId === state.roomId || (roomId !== root && !subgroups.includes(roomId))) {
      member.conn.send(error('invalid_message', 'room_id must be the main room or one of its sub-groups, other than this room'));
      return;
    }
    const target = state.members.get(participantId);
    if (!target) {
      member.conn.send(error('participant_not_found', 'nobody with this participant_id is connected in this room'));
      return;
    }
    target.movingTo = roomId;
    target.conn.send({ type: 'move', room_id: roomId });
  }

  private bringBack(state: RoomState): void {
    const { root, subgroups } = this.family(state);
    for (const groupId of subgroups) {
      const group = this.states.get(groupId);
      for (const member of group?.members.values() ?? []) {
        member.movingTo = root;
        member.conn.send({ type: 'move', room_id: root });
      }
    }
    // Who does not come back within the grace period has left.
    const rootState = this.states.get(root);
    for (const pid of rootState?.away ?? []) this.awayDeadline(rootState!, pid, () => true);
  }

  // ---- presence --------------------------------------------------------------------------

  private socketClosed(state: RoomState, member: Member): void {
    if (member.gone || this.closedHub) return;
    this.drop(state, member);
    const pid = member.participantId;
    const target = member.movingTo ? this.deps.rooms.find(member.movingTo) : null;
    if (target && target.parentRoomId === state.roomId) {
      // Gone into a sub-group: still present here, so that its parent session keeps opening
      // the sub-groups and brings it back. Bounded: see awayDeadline.
      state.away.add(pid);
      this.awayDeadline(state, pid, () => !this.anySubgroupOpen(state.roomId));
      return;
    }
    const handle = this.scheduler.setTimeout(
      () =>
        this.guard('leave after grace', () => {
          this.pendingLeaves.delete(pid);
          if (this.connected.has(pid)) return;
          const participant = this.deps.meetings.participant(pid);
          if (participant && participant.leftAt === null) this.deps.meetings.leave(pid);
        }),
      this.options.leaveGraceMs,
    );
    this.pendingLeaves.set(pid, { handle, meetingId: state.meetingId });
  }

  /** After awayGraceMs, an away participant leaves if `due()` says so (else the check repeats). */
  private awayDeadline(state: RoomState, pid: string, due: () => boolean): void {
    this.cancel(this.awayDeadlines, pid);
    const handle = this.scheduler.setTimeout(
      () =>
        this.guard('away deadline', () => {
          this.awayDeadlines.delete(pid);
          if (!state.away.has(pid) || this.states.get(state.roomId) !== state) return;
          if (!due()) {
            this.awayDeadline(state, pid, due);
            return;
          }
          state.away.delete(pid);
          if (!this.connected.has(pid)) this.deps.meetings.leave(pid);
        }),
      this.options.awayGraceMs,
    );
    this.awayDeadlines.set(pid, { handle, meetingId: state.meetingId });
  }

  private anySubgroupOpen(roomId: string): boolean {
    return this.subgroupsOf(roomId).some((id) => this.deps.meetings.current(id) !== null);
  }

  /** Removes a member from the room (its socket is closing or closed). */
  private drop(state: RoomState, member: Member): void {
    member.gone = true;
    state.members.delete(member.participantId);
    if (this.connected.get(member.participantId)?.member === member) this.connected.delete(member.participantId);
    this.deps.stats.disconnected(state.meetingId, member.participantId);
    this.media.disconnected(this.peerOf(state, member));
    this.broadcast(state, { type: 'participant_left', participant_id: member.participantId });
  }

  private participantLeft(participant: Participant): void {
    const state = this.states.get(participant.roomId);
    if (!state || state.meetingId !== participant.meetingId) return;
    state.away.delete(participant.participantId);
    this.cancel(this.awayDeadlines, participant.participantId);
    const member = state.members.get(participant.participantId);
    if (!member) return;
    this.drop(state, member);
    member.conn.close(1000, 'left the meeting');
  }

  /** The record changed (a promotion): locks and gestures follow the new role from now on. */
  private roleChanged(participant: Participant): void {
    const state = this.states.get(participant.roomId);
    if (!state || state.meetingId !== participant.meetingId) return;
    const member = state.members.get(participant.participantId);
    if (member) member.role = participant.role;
    this.broadcast(state, { type: 'role', participant_id: participant.participantId, role: participant.role });
    // Not connected now: she gets the role and the list in her welcome when she reconnects.
    if (member?.role === 'moderator') {
      this.sendWaitingList(state, member);
      member.conn.send(this.waitingRoomMessage(state));
    }
  }

  private meetingEnded(meeting: Meeting): void {
    const state = this.states.get(meeting.roomId);
    if (state && state.meetingId === meeting.meetingId) {
      this.states.delete(meeting.roomId);
      for (const member of state.members.values()) {
        member.gone = true;
        this.connected.delete(member.participantId);
        member.conn.send({ type: 'ended' });
        member.conn.close(closeCodes.ended, 'the meeting ended');
      }
    }
    for (const timers of [this.pendingLeaves, this.awayDeadlines]) {
      for (const [pid, pending] of [...timers]) {
        if (pending.meetingId !== meeting.meetingId) continue;
        this.scheduler.clearTimeout(pending.handle);
        timers.delete(pid);
      }
    }
    this.deps.stats.meetingEnded(meeting.meetingId);
    this.deps.chat.forget(meeting.meetingId);
    this.deps.locks.forget(meeting.meetingId);
    this.media.meetingEnded(meeting.meetingId);
    // The last sub-group to end lets go of those still counted as away in the parent.
    const parentId = state?.parentRoomId ?? this.deps.rooms.find(meeting.roomId)?.parentRoomId ?? null;
    const parent = parentId ? this.states.get(parentId) : undefined;
    if (parent && parent.away.size > 0 && !this.anySubgroupOpen(parent.roomId)) {
      for (const pid of [...parent.away]) {
        parent.away.delete(pid);
        this.cancel(this.awayDeadlines, pid);
        this.deps.meetings.leave(pid);
      }
    }
  }

  // ---- waiting list ----------------------------------------------------------------------

  /**
   * The engine tells each change where it happens (a knock is one item), so the hub never
   * re-reads and compares the whole list to find it: at 1,000 waiting that would cost every
   * change a 1,000-item read and diff. Changes of one turn are merged and pushed once, after it.
   */
  private waitingChanged(roomId: string, change: WaitingListChange): void {
    const state = this.states.get(roomId);
    if (!state || state.meetingId !== change.meetingId) return;
    const pending = (state.waitingPending ??= { added: new Map(), removed: new Set(), reset: false });
    if (change.reset) pending.reset = true;
    // Removed-then-added in one turn is there (upserted); added-then-removed is gone.
    for (const id of change.removed) {
      pending.added.delete(id);
      pending.removed.add(id);
    }
    for (const item of change.added) {
      pending.removed.delete(item.request_id);
      pending.added.set(item.request_id, item);
    }
    if (state.waitingPushScheduled) return;
    state.waitingPushScheduled = true;
    // Listeners run inside the waiting room's change: push once the turn's changes are all in.
    queueMicrotask(() =>
      this.guard('waiting list push', () => {
        state.waitingPushScheduled = false;
        if (this.states.get(roomId) === state) this.flushWaiting(state);
      }),
    );
  }

  /** Sends the changes collected so far to the room's moderators (but `except`) as the next `seq`. */
  private flushWaiting(state: RoomState, except?: Member): void {
    const pending = state.waitingPending;
    state.waitingPending = null;
    if (!pending) return;
    const moderators = this.moderatorsOf(state).filter((m) => m !== except);
    // Nobody to tell: whoever becomes a moderator or connects reads the whole list.
    if (moderators.length === 0) return;
    const count = pending.added.size + pending.removed.size;
    let message: ServerMessage | null = null;
    if (pending.reset || count > this.options.waitingFullListAbove) {
      const requests = this.listFor(state, moderators[0]!);
      if (pending.reset || requests.length < count) message = { type: 'waiting_list', seq: state.waitingSeq + 1, requests };
    }
    message ??= { type: 'waiting_changes', seq: state.waitingSeq + 1, added: [...pending.added.values()], updated: [], removed: [...pending.removed] };
    state.waitingSeq = message.seq;
    for (const moderator of moderators) moderator.conn.send(message);
  }

  /** The whole list to one moderator, at the room's current `seq` (changes not pushed yet go to the others first). */
  private sendWaitingList(state: RoomState, member: Member): void {
    this.flushWaiting(state, member);
    const requests = this.listFor(state, member);
    member.conn.send({ type: 'waiting_list', seq: state.waitingSeq, requests });
  }

  private listFor(state: RoomState, moderator: Member): WaitingItem[] {
    return this.deps.waiting.list(state.roomId, { kind: 'participant', participantId: moderator.participantId });
  }

  private moderatorsOf(state: RoomState): Member[] {
    const moderators: Member[] = [];
    for (const member of state.members.values()) if (member.role === 'moderator') moderators.push(member);
    return moderators;
  }

  // ---- helpers ---------------------------------------------------------------------------

  private stateFor(roomId: string, meetingId: string): RoomState {
    const existing = this.states.get(roomId);
    if (existing && existing.meetingId === meetingId) return existing;
    const state: RoomState = {
      roomId,
      meetingId,
      parentRoomId: this.deps.rooms.find(roomId)?.parentRoomId ?? null,
      members: new Map(),
      away: new Set(),
      waitingPushScheduled: false,
      waitingSeq: 0,
      waitingPending: null,
    };
    this.states.set(roomId, state);
    return state;
  }

  private locksOf(state: RoomState): LockSettings {
    return this.deps.locks.get({ meetingId: state.meetingId, roomId: state.roomId });
  }

  /** The main room of this room's family and the family's sub-groups. */
  private family(state: RoomState): { root: string; subgroups: string[] } {
    const root = state.parentRoomId ?? state.roomId;
    return { root, subgroups: this.subgroupsOf(root) };
  }

  private subgroupsOf(roomId: string): string[] {
    return [...this.deps.subgroupsOf(roomId)].sort(byGroupNumber);
  }

  private broadcast(state: RoomState, message: ServerMessage, except?: string): void {
    for (const member of state.members.values()) {
      if (member.participantId !== except) member.conn.send(message);
    }
  }

  private broadcastFamily(root: string, message: ServerMessage): void {
    for (const roomId of [root, ...this.subgroupsOf(root)]) {
      const state = this.states.get(roomId);
      if (state) this.broadcast(state, message);
    }
  }

  private peerOf(state: RoomState, member: Member): MediaPeer {
    return { participantId: member.participantId, roomId: state.roomId, meetingId: state.meetingId, role: member.role };
  }

  private mediaContext(): MediaContext {
    return {
      peer: (participantId) => {
        const entry = this.connected.get(participantId);
        if (!entry || entry.member.gone) return null;
        const participant = this.deps.meetings.participant(participantId);
        if (!presentIn(participant, entry.state)) {
          return null;
        }
        return this.peerOf(entry.state, entry.member);
      },
      locks: (peer) => this.deps.locks.get(peer),
      deliver: (participantId, message) => {
        const entry = this.connected.get(participantId);
        if (!entry || entry.member.gone) return false;
        entry.member.conn.send(message);
        return true;
      },
    };
  }

  private within(window: Window, limit: { readonly count: number; readonly windowMs: number }): boolean {
    const now = this.nowMs();
    if (now - window.startMs >= limit.windowMs) {
      window.startMs = now;
      window.count = 0;
    }
    window.count++;
    return window.count <= limit.count;
  }

  private cancel(timers: Map<string, Pending>, pid: string): void {
    const pending = timers.get(pid);
    if (!pending) return;
    this.scheduler.clearTimeout(pending.handle);
    timers.delete(pid);
  }

  private guard(context: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.deps.log.error({ err, event: context }, `live connection: ${context} failed`);
    }
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }
}
