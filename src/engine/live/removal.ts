import { presentIn } from '../meetings/meeting.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { engineCall, liveError, settingsAllowed } from './live-errors.js';
import type { RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

export interface RemovalDeps {
  readonly meetings: Pick<MeetingService, 'current' | 'participant' | 'moderator' | 'leave'>;
  /** Shared with the moderator's other durable gestures told to everyone (subject, waiting room). */
  readonly settingsLimit: RateLimit;
}

/**
 * A moderator's `remove`: someone else present in this room's meeting leaves it, durably, with
 * the moderator named in the timeline (MeetingService.leave). Her admission is then spent: a
 * reload, a reconnect or a poll with her old cookie finds no session, and she comes back only by
 * arriving again (knocking where the room has a waiting room). It does not bar her: barring is
 * the waiting room's "Refuse and bar" when she knocks again. What her socket, the others and the
 * media side see follows from the leave (Presence.participantLeft).
 */
export function removeParticipant(
  rooms: LiveRooms,
  deps: RemovalDeps,
  state: RoomState,
  member: Member,
  targetId: string,
): void | Promise<void> {
  if (!settingsAllowed(member, rooms.nowMs(), deps.settingsLimit)) return;
  const meeting = deps.meetings.current(state.roomId);
  if (!meeting || meeting.meetingId !== state.meetingId) {
    member.outbox.send(liveError('meeting_not_found', 'this meeting is over'));
    return;
  }
  const actor = engineCall(member.outbox, () =>
    deps.meetings.moderator(meeting, { kind: 'participant', participantId: member.participantId }),
  );
  if (!actor) return;
  if (targetId === member.participantId) {
    member.outbox.send(liveError('invalid_field', 'a moderator cannot remove herself; to go, she leaves the meeting'));
    return;
  }
  // Only someone present in this very room: not a name from another meeting or a sub-group.
  if (!presentIn(deps.meetings.participant(targetId), state)) {
    member.outbox.send(liveError('participant_not_found', 'nobody of that id is present in this meeting'));
    return;
  }
  return deps.meetings.leave(targetId, actor).then(() => undefined);
}
