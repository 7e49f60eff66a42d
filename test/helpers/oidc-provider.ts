// A real OpenID Connect provider (oidc-provider) on 127.0.0.1, for the single sign-on tests: one
// confidential client registered for the service's redirect URI, and a login step driven over HTTP
// (the test says who signs in next; no form, no consent screen).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { Tap } from './api.js';

export interface ProviderUser {
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly name?: string;
}

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** How often the service fetched the discovery document so far. */
  readonly discoveries: number;
  /** While true the provider answers every request with 503, as one that is down for maintenance. */
  down: boolean;
  /** Who signs in at the provider from now on: subject and claims (changed by the test at will). */
  signInAs(subject: string, user: ProviderUser): void;
  /**
   * A browser at the provider: follows its redirects from `authorizationUrl` (login done as
   * `signInAs` says) to the service's redirect URI, which it returns without requesting it.
   */
  authorize(authorizationUrl: string): Promise<URL>;
}

/**
 * `redirectUri` is read when the first request reaches the provider, so a test can start the
 * provider, then the service configured with its issuer, and only then say where the service listens.
 */
export async function startProvider(t: Tap, redirectUri: string | (() => string)): Promise<TestProvider> {
  const users = new Map<string, ProviderUser>();
  let next = '';
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'meet-service';
  const clientSecret = 'a-client-secret-of-the-test-provider-0123456789';

  const makeProvider = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [typeof redirectUri === 'string' ? redirectUri : redirectUri()],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['test-provider-cookie-key-0123456789'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx: KoaContextWithOIDC, sub: string) => ({
        accountId: sub,
        claims: () => ({ sub, ...users.get(sub) }),
      }),
      // No consent screen: the service is the school's own client.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
  let made: { provider: Provider; callback: (req: IncomingMessage, res: ServerResponse) => void } | null = null;
  const state = { discoveries: 0, down: false };
  handle = (req, res) => {
    if (state.down) {
      res.statusCode = 503;
      res.end('down for maintenance');
      return;
    }
    if (req.url === '/.well-known/openid-configuration') state.discoveries++;
    if (!made) {
      const provider = makeProvider();
      made = { provider, callback: provider.callback() };
    }
    const { provider, callback } = made;
    if (req.url?.startsWith('/interaction/')) {
      void provider
        .interactionFinished(req, res, { login: { accountId: next } }, { mergeWithLastSubmission: false })
        .catch((err: unknown) => {
          res.statusCode = 500;
          res.end(String(err));
        });
      return;
    }
    callback(req, res);
  };

  return {
    issuer,
    clientId,
    clientSecret,
    get discoveries() {
      return state.discoveries;
    },
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    signInAs(subject, user) {
      users.set(subject, user);
      next = subject;
    },
    async authorize(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop++) {
        if (!url.href.startsWith(issuer)) return url;
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const answer = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        for (const set of answer.headers.getSetCookie()) {
          const [pair = ''] = set.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = answer.headers.get('location');
        if (!location) throw new Error(`provider: ${answer.status} at ${url.pathname}: ${await answer.text()}`);
        url = new URL(location, url);
      }
      throw new Error('provider: too many redirects');
    },
  };
}
