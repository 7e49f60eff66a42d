import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../engine/accounts/account.js';
import type { AccessTokenService } from '../../engine/access/access-token-service.js';
import type { AccountService, CurrentSession } from '../../engine/accounts/account-service.js';
import { EngineError } from '../../engine/errors.js';
import { bearerToken } from '../bearer.js';
import { HttpError, sendError } from '../errors.js';
import { ownOrigin, readAccountCookie, type AccountSite } from './account-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Name of the access token, or the email of the account, that authenticated the request; the actor in records. */
    actor: string | null;
    /** The signed-in organiser when the request came with her session cookie (not a bearer token). */
    account: Account | null;
  }
}

const readOnly = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A state-changing request made with the session cookie: its Origin must be the service's own
 * (a page of another site cannot send it) and it carries the session's CSRF token, which only a
 * page of this origin can have read from GET /api/me. Throws `csrf_refused` (403).
 */
export function checkCsrf(request: FastifyRequest, current: CurrentSession, site: AccountSite): void {
  if (readOnly.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin === undefined || origin !== ownOrigin(request, site))
    throw new HttpError(
      'csrf_refused',
      "a request signed in with the cookie must come from the service's own pages (Origin)",
    );
  const sent = request.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !sameText(sent, current.csrfToken))
    throw new HttpError('csrf_refused', 'send the csrf_token of GET /api/me as X-CSRF-Token', 'X-CSRF-Token');
}

/**
 * onRequest hook of the rooms API: an access token (`Authorization: Bearer`, integrations: every
 * room) or an organiser's session cookie (her rooms; an admin's: every room). Runs before the body
 * is read, so an unauthenticated caller learns nothing else.
 */
export function apiAuth(tokens: AccessTokenService, accounts: AccountService, site: AccountSite) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      const cookie = readAccountCookie(request);
      const current = cookie ? await accounts.session(cookie) : null;
      if (current) {
        checkCsrf(request, current, site);
        request.actor = current.account.email;
        request.account = current.account;
        return;
      }
    }
    const presented = bearerToken(header);
    const token = presented ? await tokens.verify(presented) : null;
    if (!token) {
      reply.header('www-authenticate', header ? 'Bearer realm="meet", error="invalid_token"' : 'Bearer realm="meet"');
      await sendError(
        reply,
        'unauthorized',
        header ? 'the access token is not valid' : 'send Authorization: Bearer <access token>, or sign in',
      );
      return reply;
    }
    request.actor = token.name;
  };
}

/**
 * preHandler of the rooms API: an organiser (not an admin) reaches only the rooms she owns. Another's
 * room answers as a missing one, so ids cannot be probed; a sub-group may be made only under her own.
 */
export function ownerScope(find: (roomId: string) => Promise<{ readonly ownerAccountId: string | null } | null>) {
  const mine = async (account: Account, roomId: string) => (await find(roomId))?.ownerAccountId === account.accountId;
  return async (request: FastifyRequest): Promise<void> => {
    const account = request.account;
    if (!account || account.admin) return;
    const id = (request.params as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string' && !(await mine(account, id)))
      throw new EngineError('room_not_found', `no room has room_id ${id}`);
    const parent = (request.body as { parent_room_id?: unknown } | undefined | null)?.parent_room_id;
    if (typeof parent === 'string' && !(await mine(account, parent)))
      throw new EngineError('invalid_field', `no room has room_id ${parent}`, 'parent_room_id');
  };
}
