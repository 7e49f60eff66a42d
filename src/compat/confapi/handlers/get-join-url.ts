import type { JoinClaims } from '../../../engine/tokens/token-service.js';
import type { Answer, CallContext } from '../context.js';
import { failure } from '../errors.js';
import { endedVisibleMs } from '../meetings.js';
import type { CompatMeeting } from '../model.js';
import { verifyJoinSession, type JoinSession } from '../session-tokens.js';

/**
 * The session a call's `sessionToken` stands for and its meeting (the tenant's, open or ended
 * within `endedVisibleMs`). Refusals as upstream's UserSessionConstraint: missingToken when
 * absent, sessionMissing ("Invalid session token") when forged, altered, another tenant's, or
 * of a meeting long gone.
 */
export async function sessionOfCall(ctx: CallContext): Promise<{ session: JoinSession; meeting: CompatMeeting }> {
  const token = ctx.params.get('sessionToken');
  if (token === undefined || token === '') throw failure('missingToken');
  const session = await verifyJoinSession(ctx.tenant, token, ctx.deps.clock.now().getTime());
  const stored = session === null ? null : await ctx.deps.store.meeting(session.meeting);
  if (session === null || stored === null || stored.tenantId !== ctx.tenant.id) throw failure('sessionMissing');
  const meeting = stored.endTime === null ? await ctx.deps.meetings.refresh(stored) : stored;
  if (meeting.endTime !== null && ctx.deps.clock.now().getTime() - meeting.endTime > endedVisibleMs)
    throw failure('sessionMissing');
  return { session, meeting };
}

/**
 * getJoinUrl (upstream 2.7+): a new link into the meeting for the person a join's
 * session_token stands for, with the role and guest standing that join gave her (a guest
 * meets the waiting room again). JSON, as upstream answers it (returncode, message, url, in
 * that order); the meeting must still be running ("Meeting not found", as upstream).
 */
export async function getJoinUrl(ctx: CallContext): Promise<Answer> {
  const { session, meeting } = await sessionOfCall(ctx);
  if (meeting.endTime !== null) throw failure('sessionMeetingNotFound');
  const { deps } = ctx;
  const claims: JoinClaims & { uid?: string; avatar?: string } = {
    room: meeting.roomId,
    role: session.role,
    source: session.guest ? 'link' : 'lms',
    name: session.name,
    ...(session.uid !== undefined ? { uid: session.uid } : {}),
    ...(session.avatar !== undefined ? { avatar: session.avatar } : {}),
  };
  const token = await deps.tokens.signJoin(claims, deps.joinTokenTtlSecs);
  const query = new URLSearchParams([['t', token]]);
  if (meeting.settings.logoutURL !== '') query.append('logoutURL', meeting.settings.logoutURL);
  query.append('sessionToken', ctx.params.get('sessionToken')!);
  ctx.note?.('join', { room: meeting.roomId, role: session.role, guest: session.guest, rejoin: true });
  return {
    kind: 'json',
    body: {
      response: {
        returncode: 'SUCCESS',
        message: 'Join URL provided successfully.',
        url: `${deps.frontendUrl}/room/${encodeURIComponent(meeting.roomId)}?${query.toString()}`,
      },
    },
  };
}
