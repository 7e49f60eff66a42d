import { closeCodes } from '../../protocol/live.js';
import type { Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import type { Participant } from '../meetings/meeting.js';
import type { RecordedActor } from '../meetings/timeline.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { Room } from '../rooms/room.js';
import type { MeetingStats } from '../stats/meeting-stats.js';
import { guarded } from './live-errors.js';
import type { MediaBackend } from './media-port.js';
import { peerOf } from './media-rules.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

export interface PresenceDeps {
  readonly meetings: Pick<MeetingService, 'participant' | 'leave' | 'current'>;
  readonly roomOf: (roomId: string) => Pick<Room, 'parentRoomId' | 'name'> | null;
  readonly stats: Pick<MeetingStats, 'disconnected'>;
  readonly media: () => MediaBackend;
  readonly scheduler: Scheduler;
  readonly log: EngineLog;
  readonly leaveGraceMs: number;
  readonly awayGraceMs: number;
  /** The hub is closing or closed: a socket's close is then no leave. */
  readonly closing: () => boolean;
}

interface Pending {
  readonly handle: unknown;
  readonly meetingId: string;
}

/**
 * Presence on the live connection and its graces. A socket that closes makes its participant
 * leave the meeting only after `leaveGraceMs`, so a reload (a new socket within that time) is
 * not a leave. Who closed her socket to go into a sub-group stays present in the parent room
 * ("away"), so that her parent session keeps opening the sub-groups and brings her back; that is
 * bounded by `awayGraceMs` (after `bring_back`, or while no sub-group has a meeting).
 */
export class Presence {
  private readonly pendingLeaves = new Map<string, Pending>();
  private readonly awayDeadlines = new Map<string, Pending>();

  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: PresenceDeps,
  ) {}

  /** A socket of the participant opened: no leave or away deadline is pending any more. */
  arrived(state: RoomState, participantId: string): void {
    this.cancel(this.pendingLeaves, participantId);
    this.cancel(this.awayDeadlines, participantId);
    state.away.delete(participantId);
  }

  /** Removes a member from the room (her socket is closing or closed): the others are told, the media side too. */
  drop(state: RoomState, member: Member): void {
    this.rooms.remove(state, member);
    guarded(this.deps.log, 'statistics', () => this.deps.stats.disconnected(state.meetingId, member.participantId));
    this.deps.media().disconnected(peerOf(state, member));
    this.rooms.broadcast(state, { type: 'participant_left', participant_id: member.participantId });
  }

  socketClosed(state: RoomState, member: Member): void {
    if (member.gone || this.deps.closing()) return;
    this.drop(state, member);
    const pid = member.participantId;
    const target = member.movingTo ? this.deps.roomOf(member.movingTo) : null;
    if (target && target.parentRoomId === state.roomId) {
      // Gone into a sub-group: still present here. Bounded: see awayDeadline.
      state.away.add(pid);
      this.awayDeadline(state, pid, () => !this.anySubgroupOpen(state.roomId));
      return;
    }
    this.leaveAfterGrace(pid, state.meetingId);
  }

  /**
   * Her socket closed: she leaves after the grace unless one opens again. Also for a socket closed
   * before its welcome joined her (she never arrived on it; a leave already pending stays as it is).
   */
  leaveAfterGrace(pid: string, meetingId: string): void {
    if (this.pendingLeaves.has(pid) || this.deps.closing()) return;
    const handle = this.deps.scheduler.setTimeout(
      () =>
        guarded(this.deps.log, 'leave after grace', () => {
          this.pendingLeaves.delete(pid);
          if (this.rooms.connected.has(pid)) return;
          const participant = this.deps.meetings.participant(pid);
          if (participant && participant.leftAt === null) return this.deps.meetings.leave(pid);
        }),
      this.deps.leaveGraceMs,
    );
    this.pendingLeaves.set(pid, { handle, meetingId });
  }

  /** After awayGraceMs, an away participant leaves if `due()` says so (else the check repeats). */
  awayDeadline(state: RoomState, pid: string, due: () => boolean): void {
    this.cancel(this.awayDeadlines, pid);
    const handle = this.deps.scheduler.setTimeout(
      () =>
        guarded(this.deps.log, 'away deadline', () => {
          this.awayDeadlines.delete(pid);
          if (!state.away.has(pid) || this.rooms.states.get(state.roomId) !== state) return;
          if (!due()) {
            this.awayDeadline(state, pid, due);
            return;
          }
          state.away.delete(pid);
          if (!this.rooms.connected.has(pid)) return this.deps.meetings.leave(pid);
        }),
      this.deps.awayGraceMs,
    );
    this.awayDeadlines.set(pid, { handle, meetingId: state.meetingId });
  }

  anySubgroupOpen(roomId: string): boolean {
    return this.rooms.subgroupsOf(roomId).some((id) => this.deps.meetings.current(id) !== null);
  }

  /**
   * The engine says she left (POST /leave, a grace ran out, a moderator's gesture): her socket
   * closes. A removal (`removedBy`) is told to everyone in the room, her too, before her media
   * and her socket go: the others' pages announce it, hers stops reconnecting (closeCodes.removed).
   */
  participantLeft(participant: Participant, removedBy: RecordedActor | null = null): void {
    const state = this.rooms.live(participant.roomId, participant.meetingId);
    if (!state) return;
    const pid = participant.participantId;
    state.away.delete(pid);
    this.cancel(this.awayDeadlines, pid);
    this.cancel(this.pendingLeaves, pid);
    if (removedBy) this.rooms.broadcast(state, { type: 'removed', participant_id: pid, by: removedBy.participantId });
    const member = state.members.get(pid);
    if (!member) return;
    this.drop(state, member);
    if (removedBy) member.outbox.close(closeCodes.removed, 'a moderator removed you from the meeting');
    else member.outbox.close(1000, 'left the meeting');
  }

  /** A meeting ended: its pending leaves and away deadlines go. */
  meetingEnded(meetingId: string): void {
    for (const timers of [this.pendingLeaves, this.awayDeadlines]) {
      for (const [pid, pending] of [...timers]) {
        if (pending.meetingId !== meetingId) continue;
        this.deps.scheduler.clearTimeout(pending.handle);
        timers.delete(pid);
      }
    }
  }

  /** A sub-group's meeting ended: when it was the family's last open one, those still counted as away in the parent leave it now. */
  subgroupEnded(parentRoomId: string | null): void {
    const parent = parentRoomId ? this.rooms.states.get(parentRoomId) : undefined;
    if (!parent || parent.away.size === 0 || this.anySubgroupOpen(parent.roomId)) return;
    for (const pid of [...parent.away]) {
      parent.away.delete(pid);
      this.cancel(this.awayDeadlines, pid);
      guarded(this.deps.log, 'away leave', () => this.deps.meetings.leave(pid));
    }
  }

  /** Every timer stops (the hub closes; nobody leaves: clients reconnect to the next process). */
  close(): void {
    for (const pending of [...this.pendingLeaves.values(), ...this.awayDeadlines.values()])
      this.deps.scheduler.clearTimeout(pending.handle);
    this.pendingLeaves.clear();
    this.awayDeadlines.clear();
  }

  private cancel(timers: Map<string, Pending>, pid: string): void {
    const pending = timers.get(pid);
    if (!pending) return;
    this.deps.scheduler.clearTimeout(pending.handle);
    timers.delete(pid);
  }
}
