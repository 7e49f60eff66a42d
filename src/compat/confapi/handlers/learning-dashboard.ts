import type { AttendanceParticipant } from '../../../engine/meetings/attendance.js';
import { attendeeRecords, type AttendanceSource } from '../attendees.js';
import type { Answer, CallContext } from '../context.js';
import { failure } from '../errors.js';
import type { CompatMeeting } from '../model.js';
import { meetingIdOf } from '../params.js';
import { sessionOfCall } from './get-join-url.js';
import type { LiveActivity } from '../../live-view.js';

function ms(iso: string | null): number {
  return iso === null ? 0 : Date.parse(iso);
}

function userEntry(p: AttendanceParticipant, activity: LiveActivity) {
  const userKey = `${p.participantId}-1`;
  return [
    userKey,
    {
      userKey,
      extId: p.participantId,
      intIds: {
        [p.participantId]: {
          intId: p.participantId,
          sessions: [{ registeredOn: ms(p.joinedAt), leftOn: ms(p.leftAt) }],
          userLeftFlag: p.leftAt !== null,
        },
      },
      name: p.name,
      isModerator: p.role === 'moderator',
      isDialIn: false,
      currentIntId: p.participantId,
      answers: {},
      genericData: {},
      talk: { totalTime: activity.talkTimeMs, lastTalkStartedOn: 0 },
      reactions: [],
      raiseHand: [],
      away: [],
      webcams: activity.webcams.map((w) => ({ startedOn: w.startedOn, stoppedOn: w.stoppedOn })),
      totalOfMessages: activity.messages,
      registeredInLadOn: ms(p.joinedAt),
    },
  ] as const;
}

/** The session data in the upstream learning-dashboard shape, from the engine's attendance and the live connection's activity. */
export async function dashboardData(
  source: AttendanceSource,
  meeting: CompatMeeting,
): Promise<Record<string, unknown>> {
  const users: Record<string, unknown> = {};
  for (const { participant, activity } of await attendeeRecords(source, meeting)) {
    const [key, entry] = userEntry(participant, activity);
    users[key] = entry;
  }
  return {
    intId: meeting.internalId,
    extId: meeting.meetingId,
    name: meeting.name,
    downloadSessionDataEnabled: true,
    other: {},
    users,
    genericDataTitles: [],
    polls: {},
    screenshares: [],
    presentationSlides: [],
    createdOn: meeting.createTime,
    endedOn: meeting.endTime ?? 0,
  };
}

/**
 * learningDashboard: the JSON the upstream dashboard reads, wrapped as the upstream call
 * answers: {"response": {"returncode": "SUCCESS", "data": "<JSON text>"}}. As upstream, by
 * `sessionToken` (a moderator's join; the answer repeats it); as an extension, by `meetingID`
 * (the newest meeting of that id counts, ended or not).
 */
export async function learningDashboard(ctx: CallContext): Promise<Answer> {
  if (ctx.params.get('sessionToken') !== undefined) {
    const { session, meeting } = await sessionOfCall(ctx);
    if (session.role !== 'moderator') throw failure('accessDenied');
    return {
      kind: 'json',
      body: {
        response: {
          returncode: 'SUCCESS',
          data: JSON.stringify(await dashboardData(ctx.deps, meeting)),
          sessionToken: ctx.params.get('sessionToken'),
        },
      },
    };
  }
  const meeting = await ctx.deps.meetings.latest(ctx.tenant.id, meetingIdOf(ctx.params));
  if (!meeting) throw failure('notFound');
  return {
    kind: 'json',
    body: { response: { returncode: 'SUCCESS', data: JSON.stringify(await dashboardData(ctx.deps, meeting)) } },
  };
}
