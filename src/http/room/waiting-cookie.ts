import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie names the person's waiting request; scoped to the room's path, so room B never sees room A's. */
export const waitingCookieName = 'meet_wait';

function cookiePath(roomId: string): string {
  return `/room/${encodeURIComponent(roomId)}`;
}

// Read and written here alone, rather than by a plugin whose hooks would run on every request
// of the listener: the poll is the hottest path of the service.
export function readWaitingCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[waitingCookieName] : undefined;
}

export function setWaitingCookie(request: FastifyRequest, reply: FastifyReply, roomId: string, secret: string): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: waitingCookieName,
      value: secret,
      path: cookiePath(roomId),
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
    }),
  );
}
