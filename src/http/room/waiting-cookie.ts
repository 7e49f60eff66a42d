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

/**
 * Over HTTPS (TLS, or X-Forwarded-Proto from a trusted proxy: Fastify's request.protocol) the
 * cookie is `SameSite=None; Secure; Partitioned`: a person waiting inside an embedding page
 * of another site polls from a cross-site frame, where a Lax cookie is neither stored nor
 * sent, so she could never be admitted. Partitioned (CHIPS) keys it to the embedding site,
 * which keeps it working where third-party cookies are blocked and keeps one site's frame
 * from reading another's. Plain http cannot carry None (browsers drop None without Secure),
 * so it stays Lax: same-site embeds and the plain room page still work there.
 */
export function setWaitingCookie(request: FastifyRequest, reply: FastifyReply, roomId: string, secret: string): void {
  const https = request.protocol === 'https';
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: waitingCookieName,
      value: secret,
      path: cookiePath(roomId),
      httpOnly: true,
      ...(https
        ? { sameSite: 'none' as const, secure: true, partitioned: true }
        : { sameSite: 'lax' as const, secure: false }),
    }),
  );
}
