import type { Moderation } from './moderation.js';
import { closeCodes, floodCloseCode } from '../../protocol/live.js';
import type { AsyncGroupMessageStore, AsyncSubgroupTimerStore } from '../async-ports.js';
import type { Clock, Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import { presentIn, type Meeting, type Participant } from '../meetings/meeting.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { KeyedQueue } from '../keyed-queue.js';
import type { RoomService } from '../rooms/room-service.js';
import type { Room } from '../rooms/room.js';
import type { MeetingStats } from '../stats/meeting-stats.js';
import type { SessionClaims } from '../tokens/token-service.js';
import type { WaitingRoomService } from '../waiting/waiting-room-service.js';
import type { ChatEntry, ChatLog } from './chat-log.js';
import { attendeesOf, type LiveApi, type LiveAttendee } from './live-api.js';
import { Classroom } from './classroom.js';
import { LiveChat } from './live-chat.js';
import { IceRenewal, type IceCredentials } from './ice-renewal.js';
import { guarded, guardedAll, liveError } from './live-errors.js';
import { MeetingEdits } from './meeting-edits.js';
import { liveDefaults, type LiveOptions } from './live-options.js';
import {
  locksFromWire,
  locksOnWire,
  type LockDefaults,
  type LockSettings,
  type MeetingLocks,
} from './meeting-locks.js';
import type { MediaBackend, MediaBackendFactory } from './media-port.js';
import { MediaRules, peerOf } from './media-rules.js';
import type { Incoming, LiveSession, Outbox } from './outbox.js';
import type { Allowance } from './rate-windows.js';
import { Presence } from './presence.js';
import { removeParticipant } from './removal.js';
import { LiveRooms, toldViewOf, viewOf, type Joining, type Member, type RoomState } from './room-state.js';
import { Subgroups } from './subgroups.js';
import { SocketQueue } from './socket-queue.js';
import { WaitingPush } from './waiting-push.js';

export interface LiveHubDeps {
  readonly meetings: MeetingService;
  /** The engine's transactions: a chat message and its count commit together. */
  readonly transactions: Pick<AsyncTransactions, 'atomically'>;
  readonly waiting: Pick<
    WaitingRoomService,
    | 'list'
    | 'takeArrivalSkipped'
    | 'onWaitingListChange'
    | 'switchState'
    | 'onWaitingRoomSwitched'
    | 'enableWaitingRoom'
    | 'disableWaitingRoom'
  >;
  /** Sub-groups are made and renamed through the room service. */
  readonly rooms: Pick<RoomService, 'find' | 'create' | 'update'>;
  /** Room-level decisions that span the store's awaits take turns per room (sub-groups made by two moderators at once). */
  readonly turns: KeyedQueue;
  /** A room of a family (a move, a parent, the groups' names), from memory: RoomFamilies (rooms/room-families.ts). */
  readonly roomOf: (roomId: string) => Pick<Room, 'parentRoomId' | 'name'> | null;
  /** Ids of a room's sub-groups, from the same memory. */
  readonly subgroupsOf: (roomId: string) => string[];
  /** The sub-groups' timers and message to all groups (durable: a restart still brings everyone back on time, and tells it). */
  readonly subgroupTimers: AsyncSubgroupTimerStore & AsyncGroupMessageStore;
  /** A number in [0, 1): the draw of "assign at random". */
  readonly random: () => number;
  readonly chat: ChatLog;
  readonly locks: MeetingLocks;
  readonly stats: MeetingStats;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  /** The media backend, chosen by the daemon (the embedded mesh relay today). */
  readonly media: MediaBackendFactory;
  readonly options?: LiveOptions;
  /** Short-lived TURN credentials, renewed over the socket while she stays (none: nothing to renew). */
  readonly ice?: IceCredentials;
  /** Where failures of background work (timers, socket events, a waiting-list push) are logged: the daemon's logger. */
  readonly log: EngineLog;
}

/**
 * The live meeting of every room: who is connected, their media states, chat, speaking, lock settings, the
 * moderators' waiting list, sub-groups and the end of the meeting. Plain engine code: it reaches connections
 * through their `Outbox` and time through the injected clock and scheduler; the socket code (http/live/)
 * upgrades, authenticates and parses, and calls `connect`. It holds no module-level state: the daemon
 * creates one per process (a node of a future cluster would own the rooms pinned to it).
 *
 * A second connection of the same participant replaces the first (closed with 4409);
 * `participant_joined` is broadcast when one opens, `participant_left` when it closes (its
 * media is gone); leaving the meeting follows a grace (presence.ts).
 */
export class LiveHub implements LiveApi {
  private readonly rooms: LiveRooms;
  private readonly presence: Presence;
  private readonly media: MediaRules;
  private readonly chat: LiveChat;
  private readonly subgroups: Subgroups;
  private readonly waiting: WaitingPush;
  private readonly ice: IceRenewal;
  private readonly classroom: Classroom;
  private readonly edits: MeetingEdits;
  private readonly options: Required<LiveOptions>;
  private readonly unsubscribe: (() => void)[] = [];
  private closedHub = false;
  private muteOnStart: (roomId: string) => boolean = () => false;

  constructor(private readonly deps: LiveHubDeps) {
    const options = (this.options = { ...liveDefaults, ...deps.options });
    const rooms = (this.rooms = new LiveRooms(deps));
    this.media = new MediaRules(rooms, {
      ...deps,
      stateFlushMs: options.stateFlushMs,
      roomSendsPerSecond: options.roomSendsPerSecond,
    });
    this.presence = new Presence(rooms, {
      ...deps,
      media: () => this.media.backend,
      leaveGraceMs: options.leaveGraceMs,
      awayGraceMs: options.awayGraceMs,
      closing: () => this.closedHub,
    });
    this.chat = new LiveChat(rooms, { ...deps, chatLimit: options.chatLimit });
    this.subgroups = new Subgroups(rooms, this.presence, {
      ...deps,
      timers: deps.subgroupTimers,
      maxSubgroups: options.maxSubgroups,
      settingsLimit: options.settingsLimit,
    });
    this.ice = new IceRenewal(deps);
    this.classroom = new Classroom(rooms, { ...deps, ...options });
    this.edits = new MeetingEdits(rooms, { ...deps, ...options, flush: () => this.media.flush });
    this.waiting = new WaitingPush(rooms, {
      ...deps,
      fullListAbove: options.waitingFullListAbove,
      resyncLimit: options.resyncLimit,
      settingsLimit: options.settingsLimit,
    });
    this.unsubscribe.push(
      // The engine's listener sets log a failing listener under the event's name (engine/listeners.ts).
      deps.meetings.onEnded((meeting) => this.meetingEnded(meeting)),
      deps.meetings.onLeft((participant, removedBy) => {
        this.classroom.left(participant);
        this.presence.participantLeft(participant, removedBy);
      }),
      deps.meetings.onRoleChanged((participant) => this.roleChanged(participant)),
      deps.waiting.onWaitingListChange((roomId, change) => this.waiting.changed(roomId, change)),
      deps.waiting.onWaitingRoomSwitched((roomId, meetingId) => this.waiting.switched(roomId, meetingId)),
    );
  }

  get mediaBackend(): MediaBackend {
    return this.media.backend;
  }

  /**
   * A connection opened with a verified session. Null (and the connection closed with 4401) when
   * its participant is no longer present in the room's open meeting (left, or the meeting ended).
   * The session is answered at once; the welcome, which awaits the store, is the first task of the
   * socket's queue, so every frame the client sends after opening is handled after it, in order.
   */
  connect(claims: SessionClaims, outbox: Outbox): LiveSession | null {
    const participant = this.deps.meetings.participant(claims.participant);
    // Who left (POST /leave, the grace ran out) has no session: a leave can land after the route's own check.
    if (this.closedHub || !presentIn(participant, { meetingId: claims.meeting, roomId: claims.room })) {
      outbox.close(closeCodes.unauthorized, 'an admitted session of this room is required');
      return null;
    }
    // Handling a message may await the store: the socket's next message waits for it (arrival order).
    const inbox = new SocketQueue(
      (err) => this.deps.log.error({ err, event: 'message' }, 'live connection: message failed'),
      this.options.messageLimit.count,
      () => outbox.close(floodCloseCode, 'too many messages'),
    );
    const socket: Joining = { closed: false, joined: null };
    inbox.push(() =>
      this.welcome(participant, outbox, socket).catch((err: unknown) => {
        this.deps.log.error({ err, event: 'welcome' }, 'live connection: welcome failed');
        if (!socket.closed) outbox.close(1011, 'internal error');
      }),
    );
    return {
      participantId: participant.participantId,
      // Not welcomed (closed, refused or failed before it): her frames go nowhere.
      receive: (incoming) =>
        inbox.push(() =>
          socket.joined ? this.receive(socket.joined.state, socket.joined.member, incoming) : undefined,
        ),
      closed: () => {
        socket.closed = true;
        const joined = socket.joined;
        // Closed before her welcome: she never joined, so nobody is told; she leaves after the grace as from any socket.
        if (!joined) return this.presence.leaveAfterGrace(participant.participantId, participant.meetingId);
        guarded(this.deps.log, 'socket closed', () => {
          this.ice.disconnected(joined.member);
          this.presence.socketClosed(joined.state, joined.member);
        });
      },
    };
  }

  /** Reads what a welcome tells (awaiting the store), then joins her to the room and tells it, with no await between. */
  private async welcome(participant: Participant, outbox: Outbox, socket: Joining): Promise<void> {
    const { roomId, meetingId, participantId: pid } = participant;
    const [room, chat] = await Promise.all([
      this.deps.rooms.find(roomId),
      this.deps.chat.latest(meetingId),
      this.deps.locks.get({ meetingId, roomId }),
      this.subgroups.loaded,
    ]);
    if (socket.closed) return;
    // The record as it is now: she may have left, or been promoted, while the store was read.
    const current = this.deps.meetings.participant(pid);
    if (this.closedHub || !presentIn(current, { meetingId, roomId })) {
      outbox.close(closeCodes.unauthorized, 'an admitted session of this room is required');
      return;
    }
    const state = this.rooms.stateFor(roomId, meetingId);
    this.presence.arrived(state, pid);
    const previous = state.members.get(pid);
    if (previous) {
      this.presence.drop(state, previous);
      previous.outbox.close(closeCodes.replaced, 'replaced by a newer connection of the same participant');
    }
    const member = this.rooms.add(state, current, outbox);
    socket.joined = { state, member };
    guarded(this.deps.log, 'statistics', () => this.deps.stats.joined(meetingId, pid));

    const groups = this.subgroups.info(this.rooms.family(state).root);
    outbox.send({
      type: 'welcome',
      self: viewOf(member),
      room_id: roomId,
      room_name: room?.name ?? '',
      participants: [...state.members.values()].map(toldViewOf),
      // As memory holds them now (the reads above loaded them): a change since reached the room, not her.
      locks: locksOnWire(this.media.locksOf(state)),
      chat: this.chat.onWire(chat),
      subgroups: groups.groups.map((g) => g.room_id),
      groups: groups.groups,
      groups_end_at: groups.endsAt,
      // The room's "microphones off on entry" is for participants; a moderator enters as she was (as in Zoom).
      mute_on_start: this.muteOnStart(roomId) || (member.role !== 'moderator' && room?.micsOffOnEntry === true),
      subject: this.deps.meetings.current(roomId)?.subject ?? '',
      media: this.media.backend.kindFor(meetingId),
    });
    outbox.send(this.classroom.handsMessage(state));
    this.rooms.broadcast(state, { type: 'participant_joined', participant: viewOf(member) }, pid);
    if (member.role === 'moderator') {
      await this.waiting.sendList(state, member);
      await this.waiting.sendSwitch(state, member);
      if (member.gone) return;
    }
    this.media.backend.connected(peerOf(state, member));
    this.ice.connected(state, member);
    this.subgroups.connected(state, member);
  }

  // ---- LiveApi -------------------------------------------------------------------------

  async postSystemChat(roomId: string, text: string): Promise<ChatEntry | null> {
    return this.chat.system(roomId, text);
  }

  attendees(roomId: string): LiveAttendee[] {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return [];
    return attendeesOf(this.deps.meetings.present(roomId), this.rooms.live(roomId, meeting.meetingId));
  }

  async locks(roomId: string): Promise<LockSettings | null> {
    const meeting = this.deps.meetings.current(roomId);
    return meeting ? await this.deps.locks.get(meeting) : null;
  }

  async setLocks(roomId: string, locks: LockSettings): Promise<boolean> {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return false;
    await this.media.applyLocks(this.rooms.stateFor(roomId, meeting.meetingId), locks);
    return true;
  }

  setMuteOnStart(provider: (roomId: string) => boolean): void {
    this.muteOnStart = provider;
  }

  setLockDefaults(provider: LockDefaults): void {
    this.deps.locks.setDefaults(provider);
  }

  /** Stops timers and listeners; nobody leaves (clients reconnect). Resolves once running intervals of statistics ended. */
  async close(): Promise<void> {
    if (this.closedHub) return;
    this.closedHub = true;
    for (const off of this.unsubscribe) off();
    this.presence.close();
    this.subgroups.close();
    this.ice.close();
    this.media.flush.close();
    const ending = [...this.rooms.connected.values()].map(({ state, member }) => {
      member.gone = true;
      return this.deps.stats.disconnected(state.meetingId, member.participantId);
    });
    this.rooms.connected.clear();
    this.rooms.states.clear();
    await guardedAll(this.deps.log, 'closing', ending);
  }

  // ---- messages ------------------------------------------------------------------------

  private receive(state: RoomState, member: Member, incoming: Incoming): void | Promise<void> {
    if (member.gone || this.closedHub) return;
    const now = this.rooms.nowMs();
    if (
      !this.allowed(
        member,
        member.windows.messages.allowance(now, this.options.messageLimit),
        'too many messages; slow down',
      )
    )
      return;
    if (!incoming.ok) {
      member.outbox.send(liveError('invalid_message', incoming.message));
      return;
    }
    const message = incoming.message;
    if (message.type === 'state' || message.type === 'speaking') {
      const allowance = member.windows.media.allowance(now, this.options.mediaLimit);
      if (!this.allowed(member, allowance, 'too many microphone, camera or speaking changes; slow down')) return;
    }
    // The room's budget comes last, so a socket's own flood is cut by its own windows first.
    if (!state.messages.admit(now, this.options.roomMessageLimit)) {
      if (member.roomWarnedAt !== state.messages.openedAt) {
        member.roomWarnedAt = state.messages.openedAt;
        member.outbox.send(liveError('rate_limited', 'this room sends too many messages; wait a few seconds'));
      }
      return;
    }
    switch (message.type) {
      case 'signal':
        return this.media.relay(member, message.to, message.data);
      case 'state':
        return this.media.state(state, member, message);
      case 'speaking':
        return this.media.claimed(state, member, message.speaking);
      case 'view':
        return this.media.view(state, member, message.video, message.large, this.options.viewLimit);
      case 'chat':
        return this.chat.post(state, member, message.text);
      case 'rename':
        return this.edits.rename(state, member, message.name);
      case 'hand':
        return this.classroom.hand(state, member, message.raised);
      case 'react':
        return this.classroom.react(state, member, message.reaction);
      case 'mute':
        return this.classroom.mute(state, member, message.participant_id);
      case 'lower_hand':
        return this.classroom.lowerHand(state, member, message.participant_id);
      case 'end_meeting':
        return this.classroom.end(state, member);
      default:
        return this.moderate(state, member, message);
    }
  }

  /** What a window's allowance means for the message and the socket: false when it is not handled. */
  private allowed(member: Member, allowance: Allowance, words: string): boolean {
    if (allowance === 'admit') return true;
    if (allowance === 'warn') member.outbox.send(liveError('rate_limited', words));
    if (allowance === 'close') member.outbox.close(floodCloseCode, 'too many messages');
    return false;
  }

  private moderate(state: RoomState, member: Member, message: Moderation): void | Promise<void> {
    if (member.role !== 'moderator') {
      member.outbox.send(liveError('not_moderator', 'only a moderator may do this'));
      return;
    }
    switch (message.type) {
      case 'lock':
        return this.media.applyLocks(state, locksFromWire(message.locks));
      case 'create_subgroups':
        return this.subgroups.create(state, member, message.count, message.names);
      case 'assign_subgroups':
        return this.subgroups.assign(state, member, message.participant_ids, message.mode);
      case 'subgroup_timer':
        return this.subgroups.setTimer(state, member, message.minutes);
      case 'group_message':
        return this.subgroups.message(state, member, message.text);
      case 'move':
        return this.subgroups.move(state, member, message.participant_id, message.room_id);
      case 'bring_back':
        return this.subgroups.bringBack(state);
      case 'subject':
        return this.edits.subject(state, member, message.subject);
      case 'waiting_room':
        return this.waiting.switch(state, member, message.enabled);
      case 'waiting_resync':
        return this.waiting.resync(state, member);
      case 'remove':
        return removeParticipant(
          this.rooms,
          { meetings: this.deps.meetings, settingsLimit: this.options.settingsLimit },
          state,
          member,
          message.participant_id,
        );
    }
  }

  // ---- engine events -------------------------------------------------------------------

  /** The record changed (a promotion): locks and gestures follow the new role from now on. */
  private roleChanged(participant: Participant): void {
    const state = this.rooms.live(participant.roomId, participant.meetingId);
    if (!state) return;
    const member = state.members.get(participant.participantId);
    if (member) member.role = participant.role;
    this.rooms.broadcast(state, { type: 'role', participant_id: participant.participantId, role: participant.role });
    // Not connected now: she gets the role and the list in her welcome when she reconnects.
    if (member?.role === 'moderator') {
      guarded(this.deps.log, 'waiting list push', async () => {
        await this.waiting.sendList(state, member);
        await this.waiting.sendSwitch(state, member);
      });
    }
  }

  private meetingEnded(meeting: Meeting): void {
    const state = this.rooms.live(meeting.roomId, meeting.meetingId);
    if (state) {
      this.media.flush.forget(state);
      this.rooms.states.delete(meeting.roomId);
      for (const member of state.members.values()) {
        member.gone = true;
        this.rooms.connected.delete(member.participantId);
        member.outbox.send({ type: 'ended' });
        member.outbox.close(closeCodes.ended, 'the meeting ended');
      }
    }
    this.presence.meetingEnded(meeting.meetingId);
    guarded(this.deps.log, 'statistics', () => this.deps.stats.meetingEnded(meeting.meetingId));
    this.deps.chat.forget(meeting.meetingId);
    this.deps.locks.forget(meeting.meetingId);
    this.media.backend.meetingEnded(meeting.meetingId);
    this.subgroups.meetingEnded(meeting.roomId);
    // The last sub-group to end lets go of those still counted as away in the parent.
    this.presence.subgroupEnded(state?.parentRoomId ?? this.deps.roomOf(meeting.roomId)?.parentRoomId ?? null);
  }
}
