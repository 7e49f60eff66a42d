// Single sign-on (issue 32 point 2) against a real OpenID provider (oidc-provider on 127.0.0.1):
// the engine in-process (inject), openid-client reaching the provider over its socket. A person
// signs in and her account appears; refusals (a domain outside the list, a forged or replayed
// state, a mismatched nonce, an unknown person when accounts are not created, a disabled account)
// land on /signin with their code; without an issuer the routes are not there.
import t from 'tap';
import { appFor, type InProcess } from '../../helpers/app.js';
import { startProvider, type TestProvider } from '../../helpers/oidc-provider.js';
import { ssoStartLimits } from '../../../src/http/auth/oidc-routes.js';

const publicUrl = 'http://meet.test';
const redirectUri = `${publicUrl}/auth/oidc/callback`;

interface Answer {
  status: number;
  location: string | null;
  cookies: Map<string, string>;
  body: string;
}

async function get(d: InProcess, url: string, cookies: Map<string, string> = new Map()): Promise<Answer> {
  const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const answer = await d.app.inject({
    method: 'GET',
    url,
    headers: { host: 'meet.test', ...(cookie ? { cookie } : {}) },
  });
  const set = new Map<string, string>();
  for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
    const match = /^([^=]+)=([^;]*)/.exec(String(line));
    if (match) set.set(match[1]!, match[2]!);
  }
  const location = answer.headers.location;
  return {
    status: answer.statusCode,
    location: typeof location === 'string' ? location : null,
    cookies: set,
    body: answer.body,
  };
}

/** The browser's part up to the provider's redirect back: the start, the provider's login; the callback not yet requested. */
async function begin(d: InProcess, provider: TestProvider, tamper?: (url: URL) => void, language?: string) {
  const start = await get(d, `/auth/oidc/start${language ? `?lang=${language}` : ''}`);
  if (start.status !== 303 || !start.location) throw new Error(`start: ${start.status} ${start.body}`);
  const authorization = new URL(start.location);
  tamper?.(authorization);
  const back = await provider.authorize(authorization.href);
  return { binding: start.cookies, back, authorization };
}

/** A whole sign-in through the provider: the callback's answer. */
async function signIn(d: InProcess, provider: TestProvider, language?: string): Promise<Answer> {
  const { binding, back } = await begin(d, provider, undefined, language);
  return get(d, back.pathname + back.search, binding);
}

const refusedWith = (answer: Answer) => {
  if (answer.status !== 303 || !answer.location?.startsWith('/signin?')) return null;
  return new URLSearchParams(answer.location.split('?')[1]).get('sso_error');
};

function env(provider: TestProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_PUBLIC_URL: publicUrl,
    SERVICE_OIDC_ISSUER: provider.issuer,
    SERVICE_OIDC_CLIENT_ID: provider.clientId,
    SERVICE_OIDC_CLIENT_SECRET: provider.clientSecret,
    ...extra,
  };
}

t.test('a person signs in through the provider, her account appears, and a second sign-in reuses it', async (t) => {
  const provider = await startProvider(t, redirectUri);
  const d = await appFor(t, { env: env(provider, { SERVICE_OIDC_ALLOWED_DOMAINS: 'school.example' }) });

  const methods = await d.app.inject({ url: '/api/sign-in-methods' });
  t.same(methods.json(), { password: true, single_sign_on: true }, 'the sign-in page is told to offer it');

  const start = await get(d, '/auth/oidc/start');
  t.equal(start.status, 303);
  const authorization = new URL(start.location!);
  t.equal(authorization.origin, provider.issuer, 'the browser goes to the provider');
  t.equal(
    authorization.searchParams.get('redirect_uri'),
    redirectUri,
    'the redirect URI comes from SERVICE_PUBLIC_URL',
  );
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256', 'PKCE');
  t.ok(authorization.searchParams.get('state') && authorization.searchParams.get('nonce'), 'state and nonce');
  t.match([start.cookies.get('meet_oidc')], [/^[\w-]{43}$/], 'the sign-in is bound to this browser by a cookie');

  t.equal((await d.services.accounts.list()).length, 0, 'no account before');
  provider.signInAs('sub-ana', { email: 'Ana@School.example', email_verified: true, name: 'Ana Lehrerin' });
  const done = await signIn(d, provider, 'de');
  t.equal(done.status, 303);
  t.equal(done.location, '/rooms?lang=de', 'she lands on her rooms, in the language she began in');
  const cookie = done.cookies.get('meet_account');
  t.ok(cookie, 'the same session cookie as a password sign-in');
  const accounts = await d.services.accounts.list();
  t.match(accounts, [{ email: 'ana@school.example', name: 'Ana Lehrerin', source: 'oidc', admin: false }]);

  const me = await d.app.inject({ url: '/api/me', headers: { cookie: `meet_account=${cookie}` } });
  t.equal(me.statusCode, 200);
  t.match(me.json(), { account: { email: 'ana@school.example', source: 'oidc' }, csrf_token: String });

  const again = await signIn(d, provider);
  t.equal(again.location, '/rooms');
  t.equal((await d.services.accounts.list()).length, 1, 'the second sign-in reuses her account');
  t.not(again.cookies.get('meet_account'), cookie, 'with a session of its own');

  t.equal(provider.discoveries, 1, 'discovery was fetched once for all these sign-ins');

  provider.signInAs('sub-eve', { email: 'eve@elsewhere.example', email_verified: true });
  t.equal(refusedWith(await signIn(d, provider)), 'sso_domain_not_allowed', 'a domain outside the list is refused');
  provider.signInAs('sub-udo', { email: 'udo@school.example', email_verified: false });
  t.equal(refusedWith(await signIn(d, provider)), 'sso_email_unverified', 'an unverified email is refused');
  t.equal((await d.services.accounts.list()).length, 1, 'no account made for either');

  await d.services.accounts.disable('ana@school.example');
  provider.signInAs('sub-ana', { email: 'ana@school.example', email_verified: true });
  t.equal(refusedWith(await signIn(d, provider)), 'account_disabled', 'a disabled account is refused');
});

t.test('a forged, replayed or foreign state and a mismatched nonce are refused', async (t) => {
  const provider = await startProvider(t, redirectUri);
  const d = await appFor(t, { env: env(provider) });
  provider.signInAs('sub-bo', { email: 'bo@school.example', email_verified: true });

  const { binding, back } = await begin(d, provider);
  const forged = new URLSearchParams(back.search);
  forged.set('state', 'made-up-state-of-an-attacker');
  const forgedAnswer = await get(d, `/auth/oidc/callback?${forged}`, binding);
  t.equal(refusedWith(forgedAnswer), 'sso_state_invalid', 'a state never issued');
  t.equal(forgedAnswer.cookies.get('meet_oidc'), '', 'the binding cookie is cleared');
  t.notOk(forgedAnswer.cookies.has('meet_account'), 'nobody is signed in');

  const other = await begin(d, provider);
  const foreign = await get(d, other.back.pathname + other.back.search, new Map([['meet_oidc', 'x'.repeat(43)]]));
  t.equal(refusedWith(foreign), 'sso_state_invalid', "another browser's sign-in (login CSRF)");
  const noCookie = await get(d, other.back.pathname + other.back.search);
  t.equal(refusedWith(noCookie), 'sso_state_invalid', 'and it is spent by that attempt');

  const good = await get(d, back.pathname + back.search, binding);
  t.equal(good.location, '/rooms', 'the real answer still signs in');
  const replay = await get(d, back.pathname + back.search, binding);
  t.equal(refusedWith(replay), 'sso_state_invalid', 'a replayed answer is refused');

  // The nonce changed on its way to the provider: the ID token carries one this sign-in never made.
  const tampered = await begin(d, provider, (url) => url.searchParams.set('nonce', 'nonce-of-an-attacker'));
  const mismatch = await get(d, tampered.back.pathname + tampered.back.search, tampered.binding);
  t.equal(refusedWith(mismatch), 'sso_response_invalid', 'a mismatched nonce is refused');
  t.notOk(mismatch.cookies.has('meet_account'));
  t.notOk(mismatch.body.includes('at '), 'no stack trace');
  t.ok(
    d.lines.some((line) => line.includes('single sign-on refused') && line.includes('"claim":"nonce"')),
    'the log tells the operator what was wrong',
  );
  t.equal((await d.services.accounts.list()).length, 1, 'only the good sign-in made an account');
});

t.test('with account creation off only accounts made beforehand sign in', async (t) => {
  const provider = await startProvider(t, redirectUri);
  const d = await appFor(t, { env: env(provider, { SERVICE_OIDC_CREATE_ACCOUNTS: 'false' }) });
  provider.signInAs('sub-new', { email: 'new@school.example', email_verified: true });
  t.equal(refusedWith(await signIn(d, provider)), 'sso_account_unknown', 'an unknown person is refused');
  t.equal((await d.services.accounts.list()).length, 0);

  // Made as `meetctl user add` makes it (a local account with a one-time link): single sign-on takes it by email.
  await d.services.accounts.add({ email: 'kim@school.example', name: 'Kim' });
  provider.signInAs('sub-kim', { email: 'KIM@school.example', name: 'Someone Else' });
  const done = await signIn(d, provider);
  t.equal(done.location, '/rooms', 'a pre-created account signs in (no email_verified claim sent)');
  t.match(
    await d.services.accounts.list(),
    [{ email: 'kim@school.example', name: 'Kim' }],
    'the same account, as made',
  );

  provider.signInAs('sub-impostor', { email: 'kim@school.example', email_verified: true });
  t.equal(
    refusedWith(await signIn(d, provider)),
    'sso_account_unknown',
    'another identity with her email does not take over her account',
  );
});

t.test('a flood of sign-ins begun from one client is limited (429 with Retry-After)', async (t) => {
  const provider = await startProvider(t, redirectUri);
  const d = await appFor(t, { env: env(provider) });
  for (let i = 0; i < ssoStartLimits.limit; i++) {
    const start = await d.app.inject({ url: '/auth/oidc/start', remoteAddress: '203.0.113.7' });
    if (start.statusCode !== 303) t.fail(`start ${i}: ${start.statusCode}`);
  }
  const over = await d.app.inject({ url: '/auth/oidc/start', remoteAddress: '203.0.113.7' });
  t.equal(over.statusCode, 429);
  t.equal(over.json().error.code, 'too_many_sign_ins');
  t.ok(Number(over.headers['retry-after']) > 0, 'Retry-After');
  const other = await d.app.inject({ url: '/auth/oidc/start', remoteAddress: '203.0.113.8' });
  t.equal(other.statusCode, 303, 'another client still begins');
});

t.test('a provider that is down, and no issuer at all', async (t) => {
  const provider = await startProvider(t, redirectUri);
  provider.down = true;
  const d = await appFor(t, { env: env(provider) });
  t.equal(refusedWith(await get(d, '/auth/oidc/start')), 'sso_unavailable', 'down for maintenance: said on /signin');
  provider.down = false;
  t.equal((await get(d, '/auth/oidc/start')).status, 303, 'back up: discovery is tried again, the sign-in begins');

  const down = await appFor(t, {
    env: {
      SERVICE_PUBLIC_URL: publicUrl,
      SERVICE_OIDC_ISSUER: 'http://127.0.0.1:9',
      SERVICE_OIDC_CLIENT_ID: 'meet',
      SERVICE_OIDC_CLIENT_SECRET: 'secret',
    },
  });
  const start = await get(down, '/auth/oidc/start');
  t.equal(refusedWith(start), 'sso_unavailable', 'a clear refusal on /signin, not a crash');
  t.ok(
    down.lines.some((line) => line.includes('sso_unavailable')),
    'logged with its code',
  );

  const off = await appFor(t);
  t.equal((await get(off, '/auth/oidc/start')).status, 404, 'without an issuer the routes answer 404');
  t.equal((await get(off, '/auth/oidc/callback?state=x&code=y')).status, 404);
  t.same((await off.app.inject({ url: '/api/sign-in-methods' })).json(), { password: true, single_sign_on: false });
});
