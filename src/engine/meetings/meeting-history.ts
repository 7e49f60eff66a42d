import { EngineError } from '../errors.js';
import type { Attendance, Refusal } from './attendance.js';
import type { AsyncPort } from '../async-port.js';
import type { MeetingStore } from './meeting.js';
import type { Meeting } from './meeting.js';
import type { TimelineEntry } from './timeline.js';

/**
 * A room's past and present meetings as the store has them: the list, a meeting's timeline and its
 * attendance. Read only; MeetingService answers these through it.
 */
export class MeetingHistory {
  constructor(
    private readonly store: Pick<
      AsyncPort<MeetingStore>,
      'meetingsOf' | 'getMeeting' | 'timelineOf' | 'participantsOf'
    >,
    /** The room's open meeting, from memory. */
    private readonly current: (roomId: string) => Meeting | null,
    /** Who was refused or barred in a meeting (the waiting room's, through MeetingHooks). */
    private readonly refusals: (meeting: Meeting) => Promise<Refusal[]>,
  ) {}

  async list(roomId: string): Promise<Meeting[]> {
    return this.store.meetingsOf(roomId);
  }

  async timeline(roomId: string, meetingId?: string): Promise<TimelineEntry[]> {
    return this.store.timelineOf((await this.find(roomId, meetingId)).meetingId);
  }

  async attendance(roomId: string, meetingId?: string): Promise<Attendance> {
    const meeting = await this.find(roomId, meetingId);
    const participants = (await this.store.participantsOf(meeting.meetingId)).map(
      ({ participantId, name, role, joinedAt, leftAt, externalId }) => ({
        participantId,
        name,
        role,
        joinedAt,
        leftAt,
        ...(externalId ? { externalId } : {}),
      }),
    );
    return { meeting, participants, refused: await this.refusals(meeting) };
  }

  /** The given meeting, else the open one, else the latest; meeting_not_found. */
  private async find(roomId: string, meetingId: string | undefined): Promise<Meeting> {
    const meeting =
      meetingId === undefined || meetingId === ''
        ? (this.current(roomId) ?? (await this.store.meetingsOf(roomId))[0] ?? null)
        : await this.store.getMeeting(meetingId);
    if (!meeting || meeting.roomId !== roomId)
      throw new EngineError('meeting_not_found', `room ${roomId} has no such meeting`);
    return meeting;
  }
}
