import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie names the person's waiting request; scoped to the room's path, so room B never sees room A's. */
export const waitingCookieName = 'meet_wait';

function cookiePath(roomId: string): string {
  return `/room/${encodeURIComponent(roomId)}`;
}

export function readWaitingCookie(request: FastifyRequest): string | undefined {
  return request.cookies[waitingCookieName];
}

export function setWaitingCookie(request: FastifyRequest, reply: FastifyReply, roomId: string, secret: string): void {
  reply.setCookie(waitingCookieName, secret, {
    path: cookiePath(roomId),
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
  });
}
