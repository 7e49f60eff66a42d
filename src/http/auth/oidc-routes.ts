import { randomBytes } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '#typebox';
import type { AccountService } from '../../engine/accounts/account-service.js';
import type { Clock } from '../../engine/clock.js';
import { EngineError } from '../../engine/errors.js';
import { AttemptLimiter, type AttemptLimits } from '../../engine/waiting/attempt-limiter.js';
import { clientKey } from '../../platform/client-key.js';
import { noteEvent } from '../../platform/access-log.js';
import { ownOrigin, secure, setAccountCookie, type AccountSite } from '../api/account-cookie.js';
import { HttpError } from '../errors.js';
import { refusal } from '../validation.js';
import { OidcClient, pendingTtlMs, type OidcSettings, type Pending } from './oidc-client.js';

/** Binds a sign-in to the browser that began it: HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET). */
const bindingCookie = 'meet_oidc';
const cookiePath = '/auth/oidc';
export const callbackPath = `${cookiePath}/callback`;

const param = (name: string) =>
  Type.Optional(
    Type.String({ maxLength: 4096, ...refusal({ message: `${name} must be a string of at most 4096 characters` }) }),
  );

// The provider may add parameters of its own (session_state, scope): they are passed on to openid-client as sent.
const StartQuery = Type.Object({ lang: param('lang') });
const CallbackQuery = Type.Object({ state: param('state'), code: param('code'), error: param('error') });
type StartQuery = Static<typeof StartQuery>;

const languages = new Set(['en', 'de']);

/**
 * Sign-ins one client (an address, an IPv6 /64) may begin: generous, since a school's staff may
 * share one address, yet a flood cannot fill the pending sign-ins (and push out everyone else's).
 */
export const ssoStartLimits: AttemptLimits = { limit: 300, windowMs: 10 * 60_000 };

function bind(request: FastifyRequest, reply: FastifyReply, site: AccountSite, value: string, maxAge: number): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: bindingCookie,
      value,
      path: cookiePath,
      httpOnly: true,
      sameSite: 'lax',
      secure: secure(request, site),
      maxAge,
    }),
  );
}

/** The ID token claim openid-client found wrong (nonce, iss, aud), named somewhere down its error's causes. */
function claimOf(error: unknown): string | null {
  for (let depth = 0; depth < 4 && typeof error === 'object' && error !== null; depth++) {
    const claim = (error as { claim?: unknown }).claim;
    if (typeof claim === 'string') return claim;
    error = (error as { cause?: unknown }).cause;
  }
  return null;
}

/** Where a page goes, in the language the sign-in began in. */
function page(path: string, language: string | null, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...extra, ...(language ? { lang: language } : {}) }).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * Single sign-on (OpenID Connect), only when SERVICE_OIDC_ISSUER is set: GET /auth/oidc/start
 * sends the browser to the provider, GET /auth/oidc/callback brings it back signed in (the same
 * session cookie as a password sign-in) to /rooms. A refusal lands on /signin with its code
 * (`sso_error`) from the error table, which the page words; a provider that is down is one too.
 */
export function oidcRoutes(accounts: AccountService, clock: Clock, settings: OidcSettings, site: AccountSite) {
  return async (app: FastifyInstance): Promise<void> => {
    const client = new OidcClient(settings, clock);
    const starts = new AttemptLimiter(clock, ssoStartLimits, 'too_many_sign_ins');
    let begun = 0;
    const refused = (request: FastifyRequest, reply: FastifyReply, err: unknown, language: string | null) => {
      if (!(err instanceof EngineError || err instanceof HttpError)) throw err;
      noteEvent(request, 'sso_refused', { code: err.code });
      // What openid-client found wrong (an unexpected nonce, a refused connection) is for the operator, not the page.
      const cause = err.cause instanceof Error ? err.cause : null;
      const claim = claimOf(cause);
      request.log[err.code === 'sso_unavailable' ? 'warn' : 'info'](
        {
          code: err.code,
          reason: err.message,
          ...(cause ? { cause: cause.message, ...('code' in cause ? { causeCode: String(cause.code) } : {}) } : {}),
          ...(claim ? { claim } : {}),
        },
        'single sign-on refused',
      );
      return reply.redirect(page('/signin', language, { sso_error: err.code }), 303);
    };

    app.get<{ Querystring: StartQuery }>(
      `${cookiePath}/start`,
      { schema: { querystring: StartQuery } },
      async (request, reply) => {
        // Over the limit: 429 with Retry-After (the error table), not a page: only a flood gets there.
        const key = clientKey(request.ip);
        starts.check(key);
        starts.record(key);
        if (++begun % 256 === 0) starts.prune();
        const language = languages.has(request.query.lang ?? '') ? request.query.lang! : null;
        const binding = randomBytes(32).toString('base64url');
        let target: URL;
        try {
          // The redirect URI registered at the provider: SERVICE_PUBLIC_URL's (its path too), else the request's origin.
          target = await client.begin(
            `${site.publicUrl ?? ownOrigin(request, site)}${callbackPath}`,
            binding,
            language,
          );
        } catch (err) {
          return refused(request, reply, err, language);
        }
        bind(request, reply, site, binding, pendingTtlMs / 1000);
        return reply.header('cache-control', 'no-store').redirect(target.href, 303);
      },
    );

    app.get(callbackPath, { schema: { querystring: CallbackQuery } }, async (request, reply) => {
      const query = new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1 || request.url.length));
      const header = request.headers.cookie;
      let flow: Pending | null = null;
      // The binding serves one callback, whatever comes of it.
      bind(request, reply, site, '', 0);
      try {
        flow = client.take(query.get('state'), header ? parseCookie(header)[bindingCookie] : undefined);
        const identity = await client.finish(flow, query);
        const signedIn = await accounts.signInWithProvider(identity, settings);
        setAccountCookie(request, reply, site, signedIn.token);
        noteEvent(request, 'sign_in', { account: signedIn.account.accountId, via: 'oidc' });
        return reply
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .redirect(page('/rooms', flow.language), 303);
      } catch (err) {
        return refused(request, reply, err, flow?.language ?? null);
      }
    });
  };
}
