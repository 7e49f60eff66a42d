import { xml, type Answer, type CallContext } from '../context.js';
import { failure } from '../errors.js';
import { liveKey } from '../answer-cache.js';
import type { LiveState } from '../meetings.js';
import type { CompatMeeting } from '../model.js';
import { meetingIdOf } from '../params.js';
import { javaDate, renderResponse, success, type XmlElement } from '../xml.js';
import { sameSecret } from './join.js';

/** The elements of getMeetingInfo (and of each getMeetings entry), in upstream order. Passwords show as ***. */
export function meetingElements(meeting: CompatMeeting, live: LiveState): XmlElement {
  const attendees = live.attendees;
  const moderators = attendees.filter((a) => a.role === 'moderator').length;
  const metadata: Record<string, string> = Object.fromEntries(meeting.metadata);
  return {
    meetingName: meeting.name,
    meetingID: meeting.meetingId,
    internalMeetingID: meeting.internalId,
    createTime: meeting.createTime,
    createDate: javaDate(meeting.createTime),
    voiceBridge: meeting.voiceBridge,
    dialNumber: meeting.dialNumber,
    attendeePW: '***',
    moderatorPW: '***',
    running: live.running,
    duration: meeting.durationMin,
    hasUserJoined: meeting.engineMeetingId !== null,
    recording: false,
    hasBeenForciblyEnded: meeting.forciblyEnded,
    startTime: meeting.startTime ?? meeting.createTime,
    endTime: meeting.endTime ?? 0,
    participantCount: attendees.length,
    listenerCount: 0,
    voiceParticipantCount: attendees.filter((a) => a.audio).length,
    videoCount: attendees.filter((a) => a.video).length,
    maxUsers: meeting.maxParticipants,
    moderatorCount: moderators,
    attendees: {
      attendee: attendees.map((a) => ({
        userID: a.participantId,
        fullName: a.name,
        role: a.role === 'moderator' ? 'MODERATOR' : 'VIEWER',
        isPresenter: false,
        isListeningOnly: false,
        hasJoinedVoice: a.audio,
        hasVideo: a.video,
        clientType: 'HTML5',
        // The join's userdata-* (upstream's element, present only when there is custom data).
        ...(live.customData?.has(a.participantId)
          ? { customdata: Object.fromEntries(live.customData.get(a.participantId)!) }
          : {}),
      })),
    },
    metadata,
    isBreakout: false,
  };
}

// The answers that never vary are built once (by xml2js, like every answer).
const runningAnswer = success({ running: true });
const notRunningAnswer = success({ running: false });
const noMeetingsAnswer = success({
  meetings: '',
  messageKey: 'noMeetings',
  message: 'no meetings were found on this server',
});
const endAnswer = success({
  messageKey: 'sentEndMeetingRequest',
  message:
    'A request to end the meeting was sent.  Please wait a few seconds, and then use the getMeetingInfo or isMeetingRunning API calls to verify that it was ended.',
});

export async function isMeetingRunning(ctx: CallContext): Promise<Answer> {
  const meeting = await ctx.deps.meetings.open(ctx.tenant.id, meetingIdOf(ctx.params));
  return xml(meeting && (await ctx.deps.meetings.liveState(meeting)).running ? runningAnswer : notRunningAnswer);
}

export async function getMeetingInfo(ctx: CallContext): Promise<Answer> {
  const meeting = await ctx.deps.meetings.visible(ctx.tenant.id, meetingIdOf(ctx.params));
  if (!meeting) throw failure('notFound');
  const live = await ctx.deps.meetings.liveState(meeting);
  // Built again only when the meeting or who is in it changed since the last answer.
  return xml(
    ctx.deps.infoAnswers.answer(meeting, liveKey(live.attendees), () =>
      renderResponse({ returncode: 'SUCCESS', ...meetingElements(meeting, live) }),
    ),
  );
}

export async function getMeetings(ctx: CallContext): Promise<Answer> {
  const open = await ctx.deps.meetings.openOf(ctx.tenant.id);
  if (open.length === 0) return xml(noMeetingsAnswer);
  const meeting = [];
  for (const m of open) meeting.push(meetingElements(m, await ctx.deps.meetings.liveState(m)));
  return xml(success({ meetings: { meeting } }));
}

/** end: checks the moderator password when the meeting has one, then ends it everywhere. */
export async function end(ctx: CallContext): Promise<Answer> {
  const meeting = await ctx.deps.meetings.open(ctx.tenant.id, meetingIdOf(ctx.params));
  if (!meeting) throw failure('notFound');
  if (meeting.moderatorPw !== '' && !sameSecret(ctx.params.get('password') ?? '', meeting.moderatorPw)) {
    throw failure('invalidPassword', 'You must supply the moderator password for this call.');
  }
  await ctx.deps.meetings.end(meeting, 'end', `confapi:${ctx.tenant.id}`);
  return xml(endAnswer);
}
