import type { FastifyRequest } from 'fastify';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import { presentIn, type Participant } from '../../engine/meetings/meeting.js';
import type { SessionClaims } from '../../engine/tokens/token-service.js';
import type { EngineServices } from '../../engine/services.js';
import { bearerToken } from '../bearer.js';
import { HttpError } from '../errors.js';

/** A session outlives a working day's meeting; it dies sooner with its meeting anyway. */
export const sessionTtlSecs = 12 * 60 * 60;

export function signSession(services: Pick<EngineServices, 'tokens'>, participant: Participant): Promise<string> {
  return services.tokens.signSession(
    {
      room: participant.roomId,
      meeting: participant.meetingId,
      participant: participant.participantId,
      role: participant.role,
      name: participant.name,
    },
    sessionTtlSecs,
  );
}

/** A valid session token sent as `Authorization: Bearer`, whichever room it is of; null otherwise. */
export async function presentedSession(
  services: Pick<EngineServices, 'tokens'>,
  request: FastifyRequest,
): Promise<SessionClaims | null> {
  const presented = bearerToken(request.headers.authorization);
  return presented ? services.tokens.verifySession(presented) : null;
}

/**
 * The participant a session stands for, when it still holds one: the token names this room,
 * and its participant is present in the room's open meeting. Leaving ends a session: who left
 * (POST /leave, or a closed socket not reopened within the live grace period) is no longer a
 * holder, so a copied or kept token cannot read the waiting list, admit or reopen the socket.
 * A reload within the grace period, or a move into a sub-group, keeps `leftAt` null.
 */
export function sessionHolder(
  meetings: Pick<MeetingService, 'participant'>,
  claims: SessionClaims | null,
  roomId: string,
): Participant | null {
  if (!claims || claims.room !== roomId) return null;
  const participant = meetings.participant(claims.participant);
  return presentIn(participant, { meetingId: claims.meeting, roomId }) ? participant : null;
}

/**
 * The session presented as `Authorization: Bearer`, checked with `sessionHolder`. The role
 * comes from the token, never the URL.
 */
export async function requireSession(
  services: Pick<EngineServices, 'tokens' | 'meetings'>,
  request: FastifyRequest,
  roomId: string,
): Promise<SessionClaims> {
  const claims = await presentedSession(services, request);
  if (!claims || !sessionHolder(services.meetings, claims, roomId)) {
    throw new HttpError('unauthorized', 'an admitted session of this room is required');
  }
  return claims;
}
