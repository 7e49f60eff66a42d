import type { FastifyInstance } from 'fastify';
import type { Account } from '../../engine/accounts/account.js';
import type { AccountService } from '../../engine/accounts/account-service.js';
import { clientKey } from '../../platform/client-key.js';
import { noteEvent } from '../../platform/access-log.js';
import { sendError } from '../errors.js';
import { answers, bodyCodes } from './answers.js';
import { clearAccountCookie, readAccountCookie, setAccountCookie, type AccountSite } from './account-cookie.js';
import { MeAnswer, PasswordAnswer, PasswordBody, SignInBody, SignInMethodsAnswer } from './account-schemas.js';
import { checkCsrf } from './bearer-auth.js';

function accountView(account: Account) {
  return {
    account_id: account.accountId,
    email: account.email,
    name: account.name,
    admin: account.admin,
    source: account.source,
  };
}

/**
 * The organiser's own routes (no access token): how she may sign in, sign in and out, who is
 * signed in, and a password set through a one-time link.
 */
export function accountRoutes(accounts: AccountService, site: AccountSite, singleSignOn: boolean) {
  return async (app: FastifyInstance): Promise<void> => {
    // What /signin offers: a password always; single sign-on (GET /auth/oidc/start) when it is configured.
    app.get('/sign-in-methods', { schema: { response: answers({ 200: SignInMethodsAnswer }, []) } }, async () => ({
      password: true,
      single_sign_on: singleSignOn,
    }));

    app.post<{ Body: SignInBody }>(
      '/session',
      {
        schema: {
          body: SignInBody,
          response: answers({ 200: MeAnswer }, [...bodyCodes, 'sign_in_failed', 'too_many_sign_ins']),
        },
      },
      async (request, reply) => {
        const signedIn = await accounts.signIn(request.body.email, request.body.password, clientKey(request.ip));
        setAccountCookie(request, reply, site, signedIn.token);
        noteEvent(request, 'sign_in', { account: signedIn.account.accountId });
        const current = (await accounts.session(signedIn.token))!;
        return { account: accountView(signedIn.account), csrf_token: current.csrfToken };
      },
    );

    // Signing out needs the CSRF token as any change does; without a live session there is nothing to end.
    app.delete(
      '/session',
      { schema: { response: answers({ 204: null }, ['csrf_refused']) } },
      async (request, reply) => {
        const cookie = readAccountCookie(request);
        const current = cookie ? await accounts.session(cookie) : null;
        if (cookie && current) {
          checkCsrf(request, current, site);
          await accounts.signOut(cookie);
          noteEvent(request, 'sign_out', { account: current.account.accountId });
        }
        clearAccountCookie(request, reply, site);
        return reply.code(204).send();
      },
    );

    app.get('/me', { schema: { response: answers({ 200: MeAnswer }, []) } }, async (request, reply) => {
      const cookie = readAccountCookie(request);
      const current = cookie ? await accounts.session(cookie) : null;
      if (!current) return sendError(reply, 'unauthorized', 'nobody is signed in');
      return { account: accountView(current.account), csrf_token: current.csrfToken };
    });

    app.post<{ Body: PasswordBody }>(
      '/password',
      {
        schema: {
          body: PasswordBody,
          response: answers({ 200: PasswordAnswer }, [...bodyCodes, 'link_invalid']),
        },
      },
      async (request) => {
        const account = await accounts.usePasswordLink(request.body.token, request.body.password);
        noteEvent(request, 'password_set', { account: account.accountId });
        return { account: accountView(account) };
      },
    );
  };
}
