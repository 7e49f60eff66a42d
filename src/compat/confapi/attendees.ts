import { EngineError } from '../../engine/errors.js';
import type { AttendanceParticipant } from '../../engine/meetings/attendance.js';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import type { LiveActivity, MeetingLiveView } from '../live-view.js';
import type { CompatMeeting } from './model.js';

// Below both learningDashboard and the analytics callback (which CompatMeetings sends at an end),
// so neither imports the other's side of the call tree.

const noActivity: LiveActivity = { talkTimeMs: 0, webcams: [], messages: 0 };

/** Where a meeting's attendance and activity are read from (the call deps, or CompatMeetings at an end). */
export interface AttendanceSource {
  readonly engineMeetings: Pick<MeetingService, 'attendance'>;
  readonly live: () => MeetingLiveView;
}

export interface AttendeeRecord {
  readonly participant: AttendanceParticipant;
  readonly activity: LiveActivity;
}

/**
 * Everyone who entered the meeting's engine meeting, in join order, with what the live
 * connection measured of them. Empty when nobody entered or the engine no longer knows it.
 * learningDashboard and the analytics callback both read it, so they never disagree.
 */
export async function attendeeRecords(source: AttendanceSource, meeting: CompatMeeting): Promise<AttendeeRecord[]> {
  if (meeting.engineMeetingId === null) return [];
  try {
    const attendance = await source.engineMeetings.attendance(meeting.roomId, meeting.engineMeetingId);
    const activity = await source.live().activity(meeting.roomId, meeting.engineMeetingId);
    return attendance.participants.map((participant) => ({
      participant,
      activity: activity.get(participant.participantId) ?? noActivity,
    }));
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    return [];
  }
}
