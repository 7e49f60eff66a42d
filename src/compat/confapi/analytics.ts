import { SignJWT } from 'jose';
import { attendeeRecords, type AttendanceSource, type AttendeeRecord } from './attendees.js';
import type { CompatMeeting } from './model.js';

/** The metadata name (lowercased, without `meta_`) of the learning-analytics callback URL. */
export const analyticsCallbackKey = 'analytics-callback-url';

/** Upstream's User-Agent for this callback; receivers may log or filter on it. */
export const analyticsUserAgent = 'BigBlueButton Analytics Callback';

/** The Bearer token lives this long, as upstream's (exp = now + 24 h). */
export const analyticsTokenTtlSecs = 24 * 60 * 60;

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));

/**
 * One attendee as bbbevents' Attendee#to_h, minus `id` (upstream's callback drops it).
 * ext_user_id is the join's `userID` (kept with the participant when her join link named
 * one; platforms match their users by it), else empty: an id we made up would match nobody.
 * talks/raisehand/emojis/poll_votes are not measured here: 0.
 */
function attendee({ participant: p, activity }: AttendeeRecord, finish: number) {
  const joined = Date.parse(p.joinedAt);
  const left = p.leftAt === null ? finish : Date.parse(p.leftAt);
  return {
    ext_user_id: p.externalId ?? '',
    name: p.name,
    moderator: p.role === 'moderator',
    joins: [iso(joined)],
    leaves: [iso(left)],
    duration: seconds(left - joined),
    recent_talking_time: 0,
    engagement: {
      chats: activity.messages,
      talks: 0,
      raisehand: 0,
      emojis: 0,
      poll_votes: 0,
      talk_time: seconds(activity.talkTimeMs),
    },
    sessions: [
      {
        joins: [{ timestamp: iso(joined), userid: p.participantId, ext_userid: p.externalId ?? '', event: 'join' }],
        lefts: [{ timestamp: iso(left), userid: p.participantId, ext_userid: p.externalId ?? '', event: 'left' }],
      },
    ],
  };
}

/**
 * The analytics callback's JSON body (bbb-api.md 6.3), built when the meeting ends so that
 * it is stored with the queued job and survives a restart. Null for a meeting nobody
 * entered: upstream posts analytics only for meetings that ran (it parses their events).
 */
export async function analyticsBody(source: AttendanceSource, meeting: CompatMeeting): Promise<string | null> {
  if (meeting.engineMeetingId === null) return null;
  const finish = meeting.endTime ?? Date.now();
  const start = meeting.startTime ?? meeting.createTime;
  return JSON.stringify({
    version: '1.0',
    meeting_id: meeting.meetingId,
    internal_meeting_id: meeting.internalId,
    data: {
      metadata: { ...Object.fromEntries(meeting.metadata), meeting_name: meeting.name },
      duration: seconds(finish - start),
      start: iso(start),
      finish: iso(finish),
      attendees: (await attendeeRecords(source, meeting)).map((r) => attendee(r, finish)),
      files: meeting.presentations.map((p) => p.filename ?? p.url ?? '').filter((name) => name !== ''),
      polls: [],
    },
  });
}

/**
 * The `Authorization` value: Bearer JWT HS512 {exp: now + 24 h} with the tenant's secret.
 * Signed at send time, not stored: the queue's table then holds no usable credential, and
 * the receiver checks it against the secret the tenant has when it arrives.
 */
export async function analyticsAuthorization(secret: string, nowMs: number): Promise<string> {
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
    .setExpirationTime(Math.floor(nowMs / 1000) + analyticsTokenTtlSecs)
    .sign(new TextEncoder().encode(secret));
  return `Bearer ${jwt}`;
}
