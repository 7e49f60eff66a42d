import type { FastifyRequest } from 'fastify';
import type { Participant } from '../../engine/meetings/meeting.js';
import type { SessionClaims } from '../../engine/tokens/token-service.js';
import type { Services } from '../../daemon/services.js';
import { HttpError } from '../errors.js';

/** A session outlives a working day's meeting; it dies sooner with its meeting anyway. */
export const sessionTtlSecs = 12 * 60 * 60;

const bearer = /^Bearer\s+(\S+)\s*$/i;

export function signSession(services: Pick<Services, 'tokens'>, participant: Participant): Promise<string> {
  return services.tokens.signSession(
    { room: participant.roomId, meeting: participant.meetingId, participant: participant.participantId, role: participant.role, name: participant.name },
    sessionTtlSecs,
  );
}

/** A valid session token sent as `Authorization: Bearer`, whichever room it is of; null otherwise. */
export async function presentedSession(services: Pick<Services, 'tokens'>, request: FastifyRequest): Promise<SessionClaims | null> {
  const presented = bearer.exec(request.headers.authorization ?? '')?.[1];
  return presented ? services.tokens.verifySession(presented) : null;
}

/**
 * The session presented as `Authorization: Bearer`, checked for this room and for a
 * participant of the room's open meeting. The role comes from the token, never the URL.
 */
export async function requireSession(services: Pick<Services, 'tokens' | 'meetings'>, request: FastifyRequest, roomId: string): Promise<SessionClaims> {
  const claims = await presentedSession(services, request);
  const participant = claims ? services.meetings.participant(claims.participant) : null;
  if (!claims || claims.room !== roomId || !participant || participant.meetingId !== claims.meeting) {
    throw new HttpError('unauthorized', 'an admitted session of this room is required');
  }
  return claims;
}
