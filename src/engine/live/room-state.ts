import type { ParticipantView, ServerMessage, WaitingItem, WaitingOutcome } from '../../protocol/live.js';
import type { Clock } from '../clock.js';
import type { Participant } from '../meetings/meeting.js';
import type { Room } from '../rooms/room.js';
import type { Outbox } from './outbox.js';
import { RateWindow } from './rate-windows.js';

/** One connected participant of a room. */
export interface Member {
  readonly participantId: string;
  /** A copy of the participant record's name, kept in step by a rename. */
  name: string;
  /** A copy of the participant record's role, kept in step by MeetingService.onRoleChanged. */
  role: Participant['role'];
  /** Her picture from the participant record, if her join link carried one. */
  readonly avatarUrl: string | null;
  readonly outbox: Outbox;
  audio: boolean;
  video: boolean;
  screen: boolean;
  speaking: boolean;
  /** Her media and speaking as the room was last told (the coalesced flush sends only a difference). */
  readonly told: { audio: boolean; video: boolean; screen: boolean; speaking: boolean };
  /** The room window (RoomState.messages) in which she was last told `rate_limited` for the room's sake. */
  roomWarnedAt: number;
  /** The room this participant was told to move to. */
  movingTo: string | null;
  /** Removed from the hub (replaced, left, ended): its socket's events are ignored. */
  gone: boolean;
  readonly windows: {
    readonly messages: RateWindow;
    readonly media: RateWindow;
    readonly chats: RateWindow;
    readonly resyncs: RateWindow;
    readonly renames: RateWindow;
    readonly settings: RateWindow;
    readonly views: RateWindow;
  };
}

/** Waiting-list changes of one turn, merged (see waiting-push.ts), until the push. */
export interface PendingWaiting {
  readonly added: Map<string, WaitingItem>;
  readonly removed: Set<string>;
  /** Items replaced in place (her connection lost or back). */
  readonly updated: Map<string, WaitingItem>;
  /** Of `removed`, those whose grace ran out (told to moderators as `timed_out`). */
  readonly timedOut: Set<string>;
  /** What became of each of `removed` (told as `outcomes`). */
  readonly outcomes: Map<string, WaitingOutcome>;
  reset: boolean;
}

/** A socket until its welcome (live-hub.ts): closed before it, or joined to a room by it. */
export interface Joining {
  closed: boolean;
  joined: { readonly state: RoomState; readonly member: Member } | null;
}

/** The live state of one room's open meeting. */
export interface RoomState {
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
  /** Messages of all its sockets (LiveOptions.roomMessageLimit). */
  readonly messages: RateWindow;
  /** Members whose media or speaking changed since the room was last told; see media-flush.ts. */
  readonly flush: { readonly dirty: Set<Member>; timer: unknown; earliestMs: number };
}

export const viewOf = (m: Member): ParticipantView => ({
  participant_id: m.participantId,
  name: m.name,
  role: m.role,
  audio: m.audio,
  video: m.video,
  screen: m.screen,
  ...(m.avatarUrl !== null ? { avatar_url: m.avatarUrl } : {}),
});

/**
 * Her view as the room was last told it (media-flush.ts): what a welcome lists, so an arrival
 * starts where the others are and the next flush brings her along with them, even when a
 * change pending now is undone before it.
 */
export const toldViewOf = (m: Member): ParticipantView => ({
  ...viewOf(m),
  audio: m.told.audio,
  video: m.told.video,
  screen: m.told.screen,
});

/** Sub-group ids in their natural order: g2 before g10. */
export function byGroupNumber(a: string, b: string): number {
  const na = Number(/-g(\d+)$/.exec(a)?.[1] ?? NaN);
  const nb = Number(/-g(\d+)$/.exec(b)?.[1] ?? NaN);
  if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface LiveRoomsDeps {
  /** A room of a family, from memory (a new room state's parent; see LiveHubDeps.roomOf). */
  readonly roomOf: (roomId: string) => Pick<Room, 'parentRoomId'> | null;
  /** Ids of a room's sub-groups. */
  readonly subgroupsOf: (roomId: string) => string[];
  readonly clock: Clock;
}

/**
 * Per-room state of open meetings and the fan-out to their members: who is connected where,
 * and the one place a message goes to a room, a room's family or its moderators. Nothing lives
 * at module level: a hub owns one.
 */
export class LiveRooms {
  readonly states = new Map<string, RoomState>();
  /** Every connected participant, whatever the room. */
  readonly connected = new Map<string, { readonly state: RoomState; readonly member: Member }>();

  constructor(private readonly deps: LiveRoomsDeps) {}

  nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  /** The room's state when it belongs to this meeting; undefined for an older or unknown one. */
  live(roomId: string, meetingId: string): RoomState | undefined {
    const state = this.states.get(roomId);
    return state && state.meetingId === meetingId ? state : undefined;
  }

  /** The room's state for this meeting, made when the room has none (or one of an earlier meeting). */
  stateFor(roomId: string, meetingId: string): RoomState {
    const existing = this.live(roomId, meetingId);
    if (existing) return existing;
    const state: RoomState = {
      roomId,
      meetingId,
      parentRoomId: this.deps.roomOf(roomId)?.parentRoomId ?? null,
      members: new Map(),
      away: new Set(),
      waitingPushScheduled: false,
      waitingSeq: 0,
      waitingPending: null,
      messages: new RateWindow(this.nowMs()),
      flush: { dirty: new Set(), timer: null, earliestMs: 0 },
    };
    this.states.set(roomId, state);
    return state;
  }

  /** A member for a participant's new connection, added to the room (a previous one must be dropped first). */
  add(state: RoomState, participant: Participant, outbox: Outbox): Member {
    const now = this.nowMs();
    const member: Member = {
      participantId: participant.participantId,
      name: participant.name,
      role: participant.role,
      avatarUrl: participant.avatarUrl ?? null,
      outbox,
      audio: false,
      video: false,
      screen: false,
      speaking: false,
      told: { audio: false, video: false, screen: false, speaking: false },
      roomWarnedAt: -1,
      movingTo: null,
      gone: false,
      windows: {
        messages: new RateWindow(now),
        media: new RateWindow(now),
        chats: new RateWindow(now),
        resyncs: new RateWindow(now),
        renames: new RateWindow(now),
        settings: new RateWindow(now),
        views: new RateWindow(now),
      },
    };
    state.members.set(member.participantId, member);
    this.connected.set(member.participantId, { state, member });
    return member;
  }

  /** Takes a member out of the room and of the connected (her socket is closing or closed). */
  remove(state: RoomState, member: Member): void {
    member.gone = true;
    state.members.delete(member.participantId);
    if (this.connected.get(member.participantId)?.member === member) this.connected.delete(member.participantId);
  }

  /** The main room of this room's family and the family's sub-groups. */
  family(state: RoomState): { root: string; subgroups: string[] } {
    const root = state.parentRoomId ?? state.roomId;
    return { root, subgroups: this.subgroupsOf(root) };
  }

  subgroupsOf(roomId: string): string[] {
    return [...this.deps.subgroupsOf(roomId)].sort(byGroupNumber);
  }

  moderatorsOf(state: RoomState): Member[] {
    const moderators: Member[] = [];
    for (const member of state.members.values()) if (member.role === 'moderator') moderators.push(member);
    return moderators;
  }

  /**
   * One message object to every member of the room: the same object to each, so the socket code
   * serialises it once (http/live/live-routes.ts). Returns how many it was sent to.
   */
  broadcast(state: RoomState, message: ServerMessage, except?: string): number {
    let sent = 0;
    for (const member of state.members.values()) {
      if (member.participantId === except) continue;
      member.outbox.send(message);
      sent++;
    }
    return sent;
  }

  /** To the main room and every sub-group of its family. */
  broadcastFamily(root: string, message: ServerMessage): void {
    for (const roomId of [root, ...this.subgroupsOf(root)]) {
      const state = this.states.get(roomId);
      if (state) this.broadcast(state, message);
    }
  }
}
