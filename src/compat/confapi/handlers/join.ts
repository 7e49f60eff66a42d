import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { cleanName, describeNameProblem, nameProblem } from '../../../engine/display-name.js';
import type { JoinClaims } from '../../../engine/tokens/token-service.js';
import { xml, type Answer, type CallContext } from '../context.js';
import { ConfapiError, failure } from '../errors.js';
import { endedVisibleMs } from '../meetings.js';
import type { CompatMeeting } from '../model.js';
import { meetingIdOf, strictBoolean, type Params } from '../params.js';
import { signJoinSession } from '../session-tokens.js';
import { success } from '../xml.js';

/** Equal in constant time (over digests, so lengths do not show either). */
export function sameSecret(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/**
 * The role: a valid `role` wins; otherwise the password decides (moderator password first);
 * an empty password of the meeting never matches. Without a role a password is required, as
 * upstream: create generates both passwords when the platform sends none, so every meeting it
 * makes has them (a record from before that has none admits by `role` only).
 */
function roleOf(params: Params, meeting: CompatMeeting): 'moderator' | 'participant' {
  const role = params.get('role')?.toUpperCase();
  if (role === 'MODERATOR') return 'moderator';
  if (role === 'VIEWER') return 'participant';
  if (role !== undefined && role !== '') throw failure('validationError', 'role must be MODERATOR or VIEWER');
  const given = params.get('password') ?? '';
  if (given === '') throw failure('invalidPassword', 'You must send the role, or the password of the meeting.');
  if (meeting.moderatorPw !== '' && sameSecret(given, meeting.moderatorPw)) return 'moderator';
  if (meeting.attendeePw !== '' && sameSecret(given, meeting.attendeePw)) return 'participant';
  throw failure('invalidPassword');
}

/**
 * An opaque per-join value for the `redirect=false` answer (`auth_token`, `session_token`):
 * 128 bits from node:crypto. Clients only read them back; what admits is the signed `t`.
 */
function joinToken(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * fullName obeys the engine's display-name rule (engine/display-name.ts), but the platform,
 * not the person, sent it: invisible and text-direction characters are removed (cleanName)
 * and a long name is cut, rather than refused. A cleaned name that still passes for the
 * service or a role ("System", "Bob (moderator)") is refused with validationError: renaming
 * it silently would hide the platform's mistake, and the room would refuse it on arrival.
 */
function refuseImpersonation(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw failure('validationError', `fullName ${describeNameProblem(problem)}`);
}

function optionalUrl(name: string, value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value.slice(0, 2048);
  } catch {
    // refused below
  }
  throw failure('validationError', `${name} must be an http or https URL`);
}

/** An http(s) URL, or null for anything else (absent, empty, another scheme, not a URL, too long). */
function httpUrl(value: string | undefined): string | null {
  if (value === undefined || value === '' || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

const redirects = (params: Params): boolean => {
  const redirect = params.get('redirect');
  return redirect === undefined || redirect === '' || redirect.toLowerCase() === 'true';
};

/** A `userdata-<name>` parameter's name: one that can be an XML element of `<customdata>`. */
const userdataName = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const maxUserdata = 32;
const maxUserdataValue = 1024;

/**
 * The join's `userdata-*` pairs (upstream: custom data, shown as the attendee's `<customdata>`),
 * in the order sent. Refused with validationError naming the parameter: a name that cannot be
 * an element, a value over 1024 characters, more than 32 of them.
 */
function userdataOf(params: Params): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of params.entries()) {
    if (!name.startsWith('userdata-')) continue;
    const key = name.slice('userdata-'.length);
    if (!userdataName.test(key))
      throw failure(
        'validationError',
        `${name.slice(0, 80)}: the name after userdata- must be 1-64 letters, digits, _ . - (starting with a letter or _)`,
      );
    if (value.length > maxUserdataValue)
      throw failure('validationError', `${name} must be at most ${maxUserdataValue} characters`);
    pairs.push([key, value]);
  }
  if (pairs.length > maxUserdata) throw failure('validationError', `at most ${maxUserdata} userdata- parameters`);
  return pairs;
}

/**
 * join, as upstream with `errorRedirectUrl` (issue 33 point 6): a browser join (redirect) that the
 * meeting refuses goes to that http(s) URL with `errors=[{"key","message"}]`, instead of showing
 * XML to a person. Only a call whose checksum held gets here (routes.ts checks it first), so an
 * unsigned link cannot use the service to bounce anyone elsewhere; a URL of another scheme is
 * ignored and the refusal stays XML.
 */
export async function join(ctx: CallContext): Promise<Answer> {
  try {
    return await admitOrRefuse(ctx);
  } catch (err) {
    const target = redirects(ctx.params) ? httpUrl(ctx.params.get('errorRedirectUrl')) : null;
    if (!(err instanceof ConfapiError) || target === null) throw err;
    const url = new URL(target);
    url.searchParams.set('errors', JSON.stringify([{ key: err.messageKey, message: err.message }]));
    return { kind: 'redirect', location: url.toString() };
  }
}

/**
 * A join token for the meeting's room, handed over as a redirect to
 * COMPAT_FRONTEND_URL/room/<room>?t=<token> (or, with redirect=false, as XML). The media
 * server is not contacted. A platform user's token (source `lms`) enters directly (the room's
 * scope is never `all`); a `guest=true` join is a bare-link guest, so the guest policy decides
 * (source `link` waits where guests wait; DENY gets no token). Every failure is XML, never a
 * redirect (but see errorRedirectUrl above), so a join with a bad checksum cannot bounce anyone to a logoutURL.
 */
async function admitOrRefuse(ctx: CallContext): Promise<Answer> {
  const { params, tenant, deps } = ctx;
  const meetingId = meetingIdOf(params);
  const fullName = cleanName(params.get('fullName') ?? '', 64);
  const meeting = await deps.meetings.open(tenant.id, meetingId);
  if (!meeting) {
    const latest = await deps.meetings.latest(tenant.id, meetingId);
    const now = deps.clock.now().getTime();
    if (latest?.forciblyEnded && latest.endTime !== null && now - latest.endTime <= endedVisibleMs)
      throw failure('meetingForciblyEnded');
    throw failure('invalidMeetingIdentifier');
  }
  if (fullName === '') throw failure('missingParamFullName');
  refuseImpersonation(fullName);
  const createTime = params.get('createTime');
  if (createTime !== undefined && createTime !== '' && createTime.trim() !== String(meeting.createTime))
    throw failure('mismatchCreateTimeParam');
  const asGuest = strictBoolean('guest', params.get('guest'), false);
  const role = roleOf(params, meeting);
  // A guest is someone the platform did not authenticate: the meeting's guest policy decides
  // for her as for a bare-link arrival. Moderators are never guests (upstream: always ALLOW).
  // With authenticatedGuest (upstream's setting; Greenlight and Canvas rely on it), a viewer of
  // an ASK_MODERATOR meeting asks too, guest=true or not; ALWAYS_ACCEPT_AUTH still asks guests only.
  const authenticatedGuest = tenant.authenticatedGuest ?? deps.authenticatedGuest;
  const guest = role !== 'moderator' && (asGuest || (authenticatedGuest && meeting.guestPolicy === 'ASK_MODERATOR'));
  const guestStatus = guest ? deps.meetings.guestStatus(meeting) : 'ALLOW';
  const redirecting = redirects(params);
  // Where she goes when she leaves: the join's own logoutURL (Moodle's guest links set it per join), else the create's.
  const logoutURL = httpUrl(params.get('logoutURL')) ?? meeting.settings.logoutURL;
  const userId = params.get('userID') ?? '';
  // Who joined which room, as ids and choices: meetingID, fullName and userID are the platform's words, not ours to log.
  const noteJoin = () => ctx.note?.('join', { room: meeting.roomId, role, guest, guestStatus });
  if (guestStatus === 'DENY') {
    noteJoin();
    // A person sent by a browser: to errorRedirectUrl with upstream's (3.0) refusal if the platform gave one, else our page.
    if (redirecting && httpUrl(params.get('errorRedirectUrl')) !== null) throw failure('guestDeniedAccess');
    if (redirecting)
      return {
        kind: 'page',
        status: 403,
        title: 'You cannot join this meeting',
        text: 'This meeting does not admit guests. Ask whoever invited you for a link through the platform.',
      };
    // Upstream's element order, with tokens that open nothing and the logout URL as `url`: no join link.
    return xml(
      success({
        messageKey: 'guestDeny',
        message: 'Guest denied to join meeting.',
        meeting_id: meeting.internalId,
        user_id: userId || internalUserId(),
        auth_token: joinToken(),
        session_token: joinToken(),
        guestStatus,
        url: logoutURL,
      }),
    );
  }
  if (meeting.maxParticipants > 0 && deps.meetings.presentCount(meeting) >= meeting.maxParticipants)
    throw failure('maxParticipantsReached');

  const avatarUrl = optionalUrl('avatarURL', params.get('avatarURL'));
  const userdata = userdataOf(params);
  // Custom data belongs to a person: without a userID, to the internal user id the answer names (as upstream).
  const uid = userId !== '' ? userId.slice(0, 256) : userdata.length > 0 ? internalUserId() : null;
  const claims: JoinClaims & { uid?: string; avatar?: string } = {
    room: meeting.roomId,
    role,
    // A guest's link is a bare-link guest's: the room's waiting room applies to it.
    source: guest ? 'link' : 'lms',
    name: fullName,
    ...(uid !== null ? { uid } : {}),
    ...(avatarUrl !== null ? { avatar: avatarUrl } : {}),
  };
  if (uid !== null && userdata.length > 0) await deps.store.setCustomData(meeting.internalId, uid, userdata);
  const token = await deps.tokens.signJoin(claims, deps.joinTokenTtlSecs);
  noteJoin();
  const query = new URLSearchParams([['t', token]]);
  if (logoutURL !== '') query.append('logoutURL', logoutURL);
  const url = `${deps.frontendUrl}/room/${encodeURIComponent(meeting.roomId)}?${query.toString()}`;

  if (redirecting) return { kind: 'redirect', location: url };
  const waits = guestStatus === 'WAIT';
  // Upstream's answer carries both tokens and repeats session_token in the client URL as
  // sessionToken=; here too, so the answer and its URL belong together. The page ignores
  // sessionToken and enters with `t`; getJoinUrl and learningDashboard take it back (session-tokens.ts).
  const sessionToken = await signJoinSession(tenant.apiSecret ?? '', {
    meeting: meeting.internalId,
    role,
    guest,
    name: fullName,
    ...(claims.uid !== undefined ? { uid: claims.uid } : {}),
    ...(claims.avatar !== undefined ? { avatar: claims.avatar } : {}),
  });
  return xml(
    success({
      messageKey: waits ? 'guestWait' : 'successfullyJoined',
      message: waits ? 'Guest waiting for approval to join meeting.' : 'You have joined successfully.',
      meeting_id: meeting.internalId,
      user_id: userId !== '' ? userId : (uid ?? internalUserId()),
      auth_token: joinToken(),
      session_token: sessionToken,
      guestStatus,
      url: `${url}&${new URLSearchParams([['sessionToken', sessionToken]]).toString()}`,
    }),
  );
}

/** Upstream's internal user id: `w_` and 12 lowercase letters or digits. */
function internalUserId(): string {
  return `w_${randomBytes(9)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
    .slice(0, 12)}`;
}
