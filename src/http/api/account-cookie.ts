import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountSessionTtlMs } from '../../engine/accounts/account-service.js';

/** The signed-in organiser's session: HttpOnly, SameSite=Lax, for the whole site (the pages and /api). */
export const accountCookieName = 'meet_account';

export interface AccountSite {
  /** SERVICE_PUBLIC_URL: its origin is the service's own, and https there makes the cookie Secure. Null: the request's own. */
  readonly publicUrl: string | null;
}

export function readAccountCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[accountCookieName] : undefined;
}

/** Whether a cookie of the service is Secure: https at SERVICE_PUBLIC_URL, else on the request. */
export function secure(request: FastifyRequest, site: AccountSite): boolean {
  return site.publicUrl === null ? request.protocol === 'https' : new URL(site.publicUrl).protocol === 'https:';
}

export function setAccountCookie(request: FastifyRequest, reply: FastifyReply, site: AccountSite, token: string): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: accountCookieName,
      value: token,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: secure(request, site),
      maxAge: accountSessionTtlMs / 1000,
    }),
  );
}

export function clearAccountCookie(request: FastifyRequest, reply: FastifyReply, site: AccountSite): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: accountCookieName,
      value: '',
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: secure(request, site),
      maxAge: 0,
    }),
  );
}

/** The service's own origin: SERVICE_PUBLIC_URL's, else the one the request was made to. */
export function ownOrigin(request: FastifyRequest, site: AccountSite): string {
  return site.publicUrl === null ? `${request.protocol}://${request.host}` : new URL(site.publicUrl).origin;
}
