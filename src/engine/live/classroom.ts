import type { RaisedHand, Reaction, ServerMessage } from '../../protocol/live.js';
import type { Participant } from '../meetings/meeting.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { engineCallAsync, liveError } from './live-errors.js';
import { RateWindow, type RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

export interface ClassroomDeps {
  readonly meetings: Pick<MeetingService, 'end' | 'current' | 'moderator' | 'record'>;
  /** Hands raised or lowered (her own) per participant per window. */
  readonly handLimit: RateLimit;
  /** Reactions per participant per window: beyond it she is told once, then they are dropped. */
  readonly reactionLimit: RateLimit;
  /** A moderator's `mute` and `lower_hand` per window. */
  readonly muteLimit: RateLimit;
}

type Kind = 'hands' | 'reactions' | 'mutes';

/**
 * The everyday controls of a lesson (issue 31 point 10): a raised hand, a reaction, a moderator
 * muting someone or lowering her hand, and ending the meeting for everyone. Who may do what is
 * decided here: anyone present raises and lowers her own hand and reacts; only a moderator mutes
 * someone else, lowers another's hand or ends the meeting. Muting only asks her page to turn the
 * microphone off (as in every anchor): nothing here can turn anyone's microphone on.
 *
 * Raised hands live in memory with the room's live state (a WeakMap, so they go with it when the
 * meeting ends), in raising order; a hand goes down when she leaves the meeting. Each member's
 * windows for these gestures are kept here too.
 */
export class Classroom {
  private readonly hands = new WeakMap<RoomState, Map<string, string>>();
  private readonly windows = new WeakMap<Member, Record<Kind, RateWindow>>();

  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: ClassroomDeps,
  ) {}

  /** The room's raised hands, in raising order: sent after every welcome and on every change. */
  handsMessage(state: RoomState): ServerMessage {
    const hands: RaisedHand[] = [...this.handsOf(state)].map(([participant_id, raised_at]) => ({
      participant_id,
      raised_at,
    }));
    return { type: 'hands', hands };
  }

  /** Her own hand up or down. Raising a raised hand keeps its place in the order. */
  hand(state: RoomState, member: Member, raised: boolean): void {
    if (!this.admit(member, 'hands', this.deps.handLimit, 'too many hand changes; wait a few seconds')) return;
    const hands = this.handsOf(state);
    if (raised === hands.has(member.participantId)) return;
    if (raised) hands.set(member.participantId, new Date(this.rooms.nowMs()).toISOString());
    else hands.delete(member.participantId);
    this.rooms.broadcast(state, this.handsMessage(state));
  }

  /** A moderator lowers someone's hand (her own too). A hand not raised is no change; nobody present there is refused. */
  lowerHand(state: RoomState, member: Member, targetId: string): void {
    if (!this.moderator(member) || !this.admit(member, 'mutes', this.deps.muteLimit, 'too many gestures; wait')) return;
    const hands = this.handsOf(state);
    if (!hands.has(targetId)) {
      if (!state.members.has(targetId) && !state.away.has(targetId))
        member.outbox.send(liveError('participant_not_found', 'nobody of that id is present in this meeting'));
      return;
    }
    hands.delete(targetId);
    this.rooms.broadcast(state, this.handsMessage(state));
  }

  /** A reaction on her own tile, to everyone in the room; a flood is cut by her window. */
  react(state: RoomState, member: Member, reaction: Reaction): void {
    if (!this.admit(member, 'reactions', this.deps.reactionLimit, 'too many reactions; wait a few seconds')) return;
    this.rooms.broadcast(state, { type: 'reaction', participant_id: member.participantId, reaction });
  }

  /**
   * A moderator asks someone else's microphone off: only she is told, by whom. The meeting's
   * timeline records it (`participant_muted`: who muted whom, when), durably, before she is told.
   */
  async mute(state: RoomState, member: Member, targetId: string): Promise<void> {
    if (!this.moderator(member) || !this.admit(member, 'mutes', this.deps.muteLimit, 'too many gestures; wait')) return;
    if (targetId === member.participantId) {
      member.outbox.send(
        liveError('invalid_field', 'participant_id: to mute herself, a moderator uses her own button'),
      );
      return;
    }
    const target = state.members.get(targetId);
    if (!target) {
      member.outbox.send(liveError('participant_not_found', 'nobody of that id is connected in this meeting'));
      return;
    }
    const meeting = this.deps.meetings.current(state.roomId);
    const recorded = await engineCallAsync(member.outbox, async () => {
      if (!meeting || meeting.meetingId !== state.meetingId) return false;
      const actor = { kind: 'participant', participantId: member.participantId } as const;
      const subject = { requestId: null, participantId: targetId, name: target.name };
      await this.deps.meetings.record(
        meeting,
        'participant_muted',
        this.deps.meetings.moderator(meeting, actor),
        subject,
      );
      return true;
    });
    if (!recorded) {
      if (recorded === false) member.outbox.send(liveError('meeting_not_found', 'this meeting is over'));
      return;
    }
    target.outbox.send({ type: 'muted', by: member.participantId, by_name: member.name });
  }

  /**
   * A moderator ends the meeting for everyone: durably, with her named in the timeline
   * (MeetingService.end checks she is a moderator of it); the sub-groups of a main room end with
   * it. Every page is told `ended` and its socket closes (LiveHub.meetingEnded).
   */
  async end(state: RoomState, member: Member): Promise<void> {
    if (!this.moderator(member)) return;
    const actor = { kind: 'participant', participantId: member.participantId } as const;
    const ended = await engineCallAsync(member.outbox, () => this.deps.meetings.end(state.roomId, actor));
    if (!ended) {
      if (ended === false) member.outbox.send(liveError('meeting_not_found', 'this meeting is over'));
      return;
    }
    if (state.parentRoomId !== null) return;
    for (const subgroup of this.rooms.subgroupsOf(state.roomId))
      await engineCallAsync(member.outbox, () => this.deps.meetings.end(subgroup));
  }

  /** She left the meeting: her hand goes down. */
  left(participant: Participant): void {
    const state = this.rooms.live(participant.roomId, participant.meetingId);
    if (!state || !this.handsOf(state).delete(participant.participantId)) return;
    this.rooms.broadcast(state, this.handsMessage(state));
  }

  private handsOf(state: RoomState): Map<string, string> {
    let hands = this.hands.get(state);
    if (!hands) this.hands.set(state, (hands = new Map<string, string>()));
    return hands;
  }

  private moderator(member: Member): boolean {
    if (member.role === 'moderator') return true;
    member.outbox.send(liveError('not_moderator', 'only a moderator may do this'));
    return false;
  }

  /** Her window of this kind: beyond it she is told once (`rate_limited`), then the rest is dropped unanswered. */
  private admit(member: Member, kind: Kind, limit: RateLimit, words: string): boolean {
    let windows = this.windows.get(member);
    if (!windows) {
      const now = this.rooms.nowMs();
      windows = { hands: new RateWindow(now), reactions: new RateWindow(now), mutes: new RateWindow(now) };
      this.windows.set(member, windows);
    }
    const allowance = windows[kind].allowance(this.rooms.nowMs(), limit);
    if (allowance === 'warn') member.outbox.send(liveError('rate_limited', words));
    return allowance === 'admit';
  }
}
