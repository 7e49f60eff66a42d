// Issue 14 points 1, 6, 7, 10, 11: the embed gateway's conference entry against the daemon (in this process; its exit codes spawned).
// The token matrix (every rule of point 6, each on its own), tenants and their namespaces, open
// rooms, the 403 page, framing of plain and embed pages, short secrets, and no JWT in the log.
// The tests that make rooms and enter them run on both stores, SQLite and PostgreSQL (issue 34
// point 5: service-stores.ts); the refusals of secrets and token lifetimes decide before any
// store is read, so they run on SQLite only, to spare CI the time.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import type * as ConfigErrors from '../../../src/config/config-error.js';
import { claimsOf, logMatch, roomAndToken, startWithToken, type CompatServer } from '../../helpers/compat.js';
import { builtModule, compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import {
  acmeAppId,
  acmeSecret,
  betaAppId,
  betaSecret,
  claims,
  mainAppId,
  mainSecret,
  mint,
  mintRs256,
  without,
} from '../../helpers/gateway.js';

const frontend = 'http://frontend.test';
const now = () => Math.floor(Date.now() / 1000);

function tenantsFile(t: Tap, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-gw-tenants-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, text);
  return file;
}

const registry = [
  '[tenants.acme]',
  `app_id = "${acmeAppId}"`,
  `app_secret = "${acmeSecret}"`,
  'embed_origins = ["https://acme.example"]',
  '',
  '[tenants.beta]',
  `app_id = "${betaAppId}"`,
  `app_secret = "${betaSecret}"`,
  '',
].join('\n');

interface Entry {
  readonly status: number;
  readonly location: string | null;
  readonly headers: Headers;
  readonly text: string;
}

async function enter(daemon: CompatServer, path: string, query: Record<string, string> | string = {}): Promise<Entry> {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  const response = await injectFetch(`${daemon.compatUrl}${path}${search ? `?${search}` : ''}`, {
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    headers: response.headers,
    text: await response.text(),
  };
}

/** Enters with a token and exchanges the join token at /start: the role the engine gives. */
async function roleOf(
  t: Tap,
  daemon: CompatServer,
  path: string,
  jwt: string,
  what: string,
): Promise<{ role: string; roomId: string; join: string }> {
  const entry = await enter(daemon, path, { jwt });
  t.equal(
    entry.status,
    302,
    `${what}: 302 (${entry.text
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .slice(0, 200)})`,
  );
  const { roomId, token, url } = roomAndToken(entry.location ?? 'http://x/');
  t.equal(`${url.origin}`, frontend, `${what}: to COMPAT_FRONTEND_URL`);
  t.equal(url.searchParams.get('embed'), '1', `${what}: embed=1`);
  t.notOk(entry.location?.includes(jwt), `${what}: the application's JWT is not handed on`);
  const started = await startWithToken(daemon, roomId, token);
  t.equal(started.status, 200, `${what}: /start`);
  return { role: started.body?.role, roomId, join: token };
}

/** Asserts a refusal page with the sentence, and that the token appears nowhere in it. */
function refused(t: Tap, entry: Entry, words: RegExp, what: string, jwt = ''): void {
  t.equal(entry.status, 403, `${what}: 403`);
  t.match(entry.headers.get('content-type'), /^text\/html/, `${what}: a page`);
  t.match(entry.text, words, `${what}: says why (${entry.text.match(/<p>([^<]*)<\/p>/)?.[1]})`);
  t.equal(entry.location, null, `${what}: no redirect`);
  if (jwt !== '')
    t.notOk(entry.text.includes(jwt) || entry.text.includes(jwt.split('.')[1]!), `${what}: no token in the page`);
}

const frameAncestors = (headers: Headers) =>
  /frame-ancestors ([^;]*)/.exec(headers.get('content-security-policy') ?? '')?.[1];

onEachServiceStore('the token matrix, tenants, the 403 page and framing, against a daemon', async (t, store) => {
  const file = tenantsFile(t, registry);
  const daemon = await compatAppFor(t, {
    store,
    env: {
      COMPAT_JITSI_APP_ID: mainAppId,
      COMPAT_JITSI_APP_SECRET: mainSecret,
      COMPAT_FRONTEND_URL: frontend,
      SERVICE_TENANTS_FILE: file,
      // A line per request, so the masking of every token in a URL is seen.
      SERVICE_ACCESS_LOG: 'all',
    },
  });
  const tokens: string[] = [];
  const keep = (token: string) => (tokens.push(token), token);

  await t.test("valid tokens: the role is the engine's, the room is made on first arrival", async (t) => {
    const moderator = await roleOf(
      t,
      daemon,
      '/videoconf/Math',
      keep(
        mint(
          claims('Math', {
            context: {
              user: {
                name: 'Mia Moderator',
                moderator: true,
                avatar: 'https://img.example/m.png',
                email: 'mia@example.org',
              },
            },
          }),
        ),
      ),
      'moderator',
    );
    t.equal(moderator.role, 'moderator');
    t.match(moderator.roomId, /^vc-[0-9a-f]{32}$/, 'an engine room vc-…');
    const join = claimsOf(moderator.join);
    t.equal(join.name, 'Mia Moderator', 'the display name from context.user.name');
    t.equal(join.source, 'integration', 'a token holder is vouched for by the application');
    t.equal(join.avatar, 'https://img.example/m.png', 'avatar kept for the events');
    t.equal(join.email, 'mia@example.org', 'email kept for the events');
    t.same(join.embed, ['*'], 'the primary app: framable by any origin');
    const participant = await roleOf(t, daemon, '/videoconf/math', keep(mint(claims('math'))), 'participant');
    t.equal(participant.role, 'participant');
    t.equal(participant.roomId, moderator.roomId, 'Math and math are one room');
    for (const [value, role] of [
      ['true', 'moderator'],
      ['yes', 'participant'],
      [1, 'participant'],
      ['false', 'participant'],
      [null, 'participant'],
    ] as const) {
      const got = await roleOf(
        t,
        daemon,
        '/videoconf/roles',
        keep(mint(claims('roles', { context: { user: { name: 'Role Test', moderator: value } } }))),
        `moderator ${JSON.stringify(value)}`,
      );
      t.equal(got.role, role, `moderator ${JSON.stringify(value)} gives a ${role}`);
    }
    const star = await roleOf(t, daemon, '/videoconf/Any%20Room', keep(mint(claims('*'))), 'room *');
    t.equal(star.role, 'participant', 'room * opens any room');
    const cased = await roleOf(
      t,
      daemon,
      '/videoconf/%C3%89cole',
      keep(mint(claims('e\u0301COLE'))),
      'room in another case and another Unicode form',
    );
    t.equal(cased.role, 'participant');
    const nameless = await enter(daemon, '/videoconf/math', {
      jwt: keep(mint(claims('math', { context: {} }))),
      displayName: 'Typed By Page',
    });
    t.equal(
      claimsOf(roomAndToken(nameless.location ?? 'http://x/').token).name,
      'Typed By Page',
      "no name in the token: the page's displayName",
    );
    // The embedding API's lang reaches the page (which chooses its words from it); what is no language tag does not.
    const german = await enter(daemon, '/videoconf/math', { jwt: keep(mint(claims('math'))), lang: 'de' });
    t.equal(new URL(german.location ?? 'http://x/').searchParams.get('lang'), 'de', 'lang=de is handed to the page');
    const odd = await enter(daemon, '/videoconf/math', { jwt: keep(mint(claims('math'))), lang: 'de"><script>' });
    t.equal(odd.status, 302, 'a lang that is no language tag refuses nothing');
    t.equal(new URL(odd.location ?? 'http://x/').searchParams.get('lang'), null, 'and is not handed on');
    const inside = await enter(daemon, '/videoconf/math', { jwt: keep(mint(claims('math', { nbf: now() + 20 }))) });
    t.equal(inside.status, 302, 'nbf 20 s ahead: within the 30 s tolerance');
    const shortLife = await enter(daemon, '/videoconf/math', {
      jwt: keep(mint(without(claims('math', { exp: now() + 23 * 3600 }), 'iat'))),
    });
    t.equal(shortLife.status, 302, 'no iat and 23 h left: accepted');
    const array = await enter(daemon, '/videoconf/math', {
      jwt: keep(mint(claims('math', { aud: ['other', 'jitsi'] }))),
    });
    t.equal(array.status, 302, 'aud as a list holding jitsi');
  });

  await t.test('each rule refuses on its own, with a sentence saying why', async (t) => {
    const base = claims('math');
    const cases: [string, string, RegExp][] = [
      ...(['iss', 'aud', 'sub', 'room', 'exp'] as const).map((claim): [string, string, RegExp] => [
        `${claim} missing`,
        mint(without(base, claim)),
        // Issue 33 point 4: the sentence names the claim that is missing.
        new RegExp(`lacks its &#34;${claim}&#34; claim`),
      ]),
      ['iss of nobody', mint({ ...base, iss: 'other-app' }), /application this service does not accept/],
      ['aud wrong', mint({ ...base, aud: 'other' }), /made for another service/],
      ['aud an empty list', mint({ ...base, aud: [] }), /damaged/],
      ['sub not a string', mint({ ...base, sub: 42 }), /damaged/],
      ['sub empty', mint({ ...base, sub: '' }), /damaged/],
      ['room of another meeting', mint({ ...base, room: 'physics' }), /for another meeting room/],
      ['room not a string', mint({ ...base, room: ['math'] }), /damaged/],
      ['room a number', mint({ ...base, room: 7 }), /damaged/],
      ['exp not a number', mint({ ...base, exp: String(now() + 60) }), /damaged/],
      ['expired', mint({ ...base, iat: now() - 7200, exp: now() - 5 }), /has expired/],
      ['not yet valid', mint({ ...base, nbf: now() + 120 }), /not valid yet/],
      [
        'lifetime 25 h (iat)',
        mint({ ...base, iat: now(), exp: now() + 25 * 3600 }),
        /longer than this service accepts \(at most 24 hours\)/,
      ],
      [
        'lifetime 25 h (no iat)',
        mint(without({ ...base, exp: now() + 25 * 3600 }, 'iat')),
        /longer than this service accepts/,
      ],
      // Issue 28 point 5: a ten-year token whose iat lies ten years ahead was accepted (exp − iat was 1 h).
      [
        'iat ten years ahead',
        mint({ ...base, iat: now() + 10 * 365 * 86_400, exp: now() + 10 * 365 * 86_400 + 3600 }),
        /issued in the future/,
      ],
      [
        'iat 2 min ahead, 24 h from it',
        mint({ ...base, iat: now() + 120, exp: now() + 120 + 24 * 3600 }),
        /issued in the future/,
      ],
      ['wrong secret', mint(base, { secret: 'not-the-secret-0123456789abcdefghijkl' }), /not signed for this service/],
      ['alg none', mint(base, { header: '{"alg":"none","typ":"JWT"}' }).replace(/[^.]+$/, ''), /only HS256/],
      ['alg none with a signature', mint(base, { header: '{"alg":"none","typ":"JWT"}' }), /only HS256/],
      ['alg RS256', mintRs256(base), /only HS256/],
      ['alg HS384', mint(base, { header: '{"alg":"HS384","typ":"JWT"}', hash: 'sha384' }), /only HS256/],
      ['alg HS512', mint(base, { header: '{"alg":"HS512","typ":"JWT"}', hash: 'sha512' }), /only HS256/],
      ['alg hs256 (case)', mint(base, { header: '{"alg":"hs256","typ":"JWT"}' }), /only HS256/],
      ['crit', mint(base, { header: '{"alg":"HS256","typ":"JWT","crit":["exp"]}' }), /only HS256/],
      ['b64:false', mint(base, { header: '{"alg":"HS256","b64":false,"crit":["b64"]}' }), /only HS256/],
      ['b64:false without crit', mint(base, { header: '{"alg":"HS256","b64":false}' }), /only HS256/],
      ['typ of another kind', mint(base, { header: '{"alg":"HS256","typ":"meet-join+jwt"}' }), /damaged/],
      ['duplicate claim', mint(JSON.stringify(base).replace('{', '{"room":"*",')), /same detail twice/],
      ['duplicate claim, escaped', mint(JSON.stringify(base).replace('{', '{"\\u0072oom":"*",')), /same detail twice/],
      [
        'duplicate nested claim',
        mint(
          JSON.stringify({ ...base, context: { user: { moderator: false } } }).replace(
            '"moderator":false',
            '"moderator":false,"moderator":true',
          ),
        ),
        /same detail twice/,
      ],
      ['duplicate header name', mint(base, { header: '{"alg":"none","alg":"HS256"}' }), /same detail twice/],
      ['9 KiB token', mint({ ...base, pad: 'x'.repeat(9 * 1024) }), /too long to be a valid one/],
      ['not three parts', 'abc.def', /damaged/],
      ['not base64url', 'a*b.c*d.e', /damaged/],
      [
        'payload not JSON',
        `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('nope').toString('base64url')}.sig`,
        /damaged/,
      ],
      ['payload an array', mint('[1,2]'), /damaged/],
      [
        'a name that passes for the service',
        mint({ ...base, context: { user: { name: 'System' } } }),
        /cannot be used here/,
      ],
      [
        "another tenant's iss with this tenant's secret",
        mint({ ...base, iss: acmeAppId }, { secret: betaSecret }),
        /not signed for this service/,
      ],
      ["a tenant's iss with the primary secret", mint({ ...base, iss: acmeAppId }), /not signed for this service/],
      ['the primary iss with a tenant secret', mint(base, { secret: acmeSecret }), /not signed for this service/],
    ];
    for (const [what, jwt, words] of cases)
      refused(t, await enter(daemon, '/videoconf/math', { jwt: keep(jwt) }), words, what, jwt);
    refused(t, await enter(daemon, '/videoconf/math'), /needs a sign-in link/, 'no token (open rooms off)');
    refused(t, await enter(daemon, '/videoconf/math', { jwt: '' }), /needs a sign-in link/, 'an empty token');
    const twice = keep(mint(base));
    refused(
      t,
      await enter(daemon, '/videoconf/math', `jwt=${twice}&jwt=${twice}`),
      /damaged/,
      'jwt twice in the query',
      twice,
    );
    const missing = await enter(daemon, `/videoconf/${'x'.repeat(201)}`, { jwt: keep(mint(claims('*'))) });
    t.equal(missing.status, 404, 'a room name over 200 characters: 404 page');
  });

  await t.test('tenants: the iss selects the secret, and rooms are namespaced per tenant', async (t) => {
    const acme = (room: string, extra: Record<string, unknown> = {}) =>
      keep(mint(claims(room, { iss: acmeAppId, ...extra }), { secret: acmeSecret }));
    const beta = (room: string) => keep(mint(claims(room, { iss: betaAppId }), { secret: betaSecret }));
    const primary = await roleOf(t, daemon, '/videoconf/math', keep(mint(claims('math'))), 'primary math');
    const acmeMath = await roleOf(t, daemon, '/videoconf/math', acme('math'), 'acme math');
    const betaMath = await roleOf(t, daemon, '/videoconf/math', beta('math'), 'beta math');
    t.not(acmeMath.roomId, primary.roomId, "acme's math is not the primary app's");
    t.not(acmeMath.roomId, betaMath.roomId, "acme's math is not beta's");
    t.same(claimsOf(acmeMath.join).embed, ['https://acme.example'], "acme's pages: its embed_origins");
    t.equal(
      (await roleOf(t, daemon, `/${acmeAppId}/videoconf/math`, acme('math'), 'under the app id')).roomId,
      acmeMath.roomId,
      '/{app id}/videoconf/math is the same room',
    );
    t.equal(
      (await roleOf(t, daemon, '/acme/videoconf/MATH', acme('math'), 'under the tenant id')).roomId,
      acmeMath.roomId,
      '/{tenant id}/videoconf/MATH too',
    );
    t.equal(
      (await roleOf(t, daemon, `/${mainAppId}/videoconf/math`, keep(mint(claims('math'))), 'primary under its app id'))
        .roomId,
      primary.roomId,
      'the primary app id as prefix',
    );
    const namespaced = await roleOf(
      t,
      daemon,
      '/team-7/videoconf/math',
      keep(mint(claims('math'))),
      'a prefix that names no tenant',
    );
    t.not(namespaced.roomId, primary.roomId, 'a prefix that names no tenant is a namespace of its own');
    const wrong = acme('math');
    refused(
      t,
      await enter(daemon, `/${betaAppId}/videoconf/math`, { jwt: wrong }),
      /belongs to another application/,
      "acme's token under beta's path",
      wrong,
    );
    const primaryUnderAcme = keep(mint(claims('math')));
    refused(
      t,
      await enter(daemon, '/acme/videoconf/math', { jwt: primaryUnderAcme }),
      /belongs to another application/,
      "the primary app's token under acme's path",
      primaryUnderAcme,
    );
    const issOnly = keep(mint(claims('math', { iss: acmeAppId, aud: 'elsewhere' }), { secret: acmeSecret }));
    refused(
      t,
      await enter(daemon, '/videoconf/math', { jwt: issOnly }),
      /made for another service/,
      "a tenant's token keeps the audience rule",
      issOnly,
    );
    const page = await enter(daemon, '/acme/videoconf/math');
    t.equal(
      frameAncestors(page.headers),
      'https://acme.example',
      "a refusal under acme's path: framable by acme's origins",
    );
  });

  await t.test('the 403 page: text only, strict CSP, errorOccurred to the parent, no token', async (t) => {
    const jwt = keep(mint(claims('math', { exp: now() - 1, iat: now() - 60 })));
    const page = await enter(daemon, '/videoconf/math', { jwt });
    refused(
      t,
      page,
      /The sign-in link has expired\. Open the meeting again from the application to get a new one\./,
      'expired',
      jwt,
    );
    const csp = page.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/, 'nothing loads by default');
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    t.ok(nonce, 'one script, allowed by a nonce');
    t.match(page.text, new RegExp(`<script nonce="${nonce!.replace(/[+/]/g, '\\$&')}">`), 'the script carries it');
    t.equal(frameAncestors(page.headers), '*', 'framable, so the embedding page hears why');
    t.match(
      page.text,
      /window\.parent\.postMessage\(\{ type: 'errorOccurred', error: \{ name: d\.errorName, message: d\.errorMessage, isFatal: true \} \}, '\*'\)/,
      'posts errorOccurred, isFatal true',
    );
    t.match(page.text, /data-error-name="conference\.tokenExpired"/, 'the error name');
    t.equal((page.text.match(/<script/g) ?? []).length, 1, 'one script');
    t.notMatch(page.text, /\son[a-z]+=|<style|<img|<link|<iframe/i, 'no handlers, styles or other resources');
    const other = await enter(daemon, '/videoconf/math');
    t.not(
      /nonce-([^']+)/.exec(other.headers.get('content-security-policy') ?? '')?.[1],
      nonce,
      'a fresh nonce per page',
    );
    t.equal(page.headers.get('cache-control'), 'no-store');
    t.equal(page.headers.get('referrer-policy'), 'no-referrer');
  });

  await t.test('framing: a plain room page only by itself, an embed page by what its signed token names', async (t) => {
    const page = async (path: string) =>
      (await injectFetch(`${daemon.url}${path}`, { signal: AbortSignal.timeout(10_000) })).headers;
    const primaryEntry = await enter(daemon, '/videoconf/framing', { jwt: keep(mint(claims('framing'))) });
    const { roomId, token } = roomAndToken(primaryEntry.location!);
    const acmeEntry = await enter(daemon, '/videoconf/framing', {
      jwt: keep(mint(claims('framing', { iss: acmeAppId }), { secret: acmeSecret })),
    });
    const acme = roomAndToken(acmeEntry.location!);
    t.equal(frameAncestors(await page(`/room/${roomId}`)), "'self'", 'plain page: itself only');
    t.equal(frameAncestors(await page(`/room/${roomId}?embed=1`)), "'self'", 'embed=1 alone decides nothing');
    t.equal(
      frameAncestors(await page(`/room/${roomId}?t=${token}&embed=1`)),
      '*',
      "primary app's embed page: any origin",
    );
    t.equal(
      frameAncestors(await page(`/room/${acme.roomId}?t=${acme.token}&embed=1`)),
      "'self' https://acme.example",
      "acme's embed page: its embed_origins",
    );
    t.equal(
      frameAncestors(await page(`/room/${acme.roomId}?t=${token}&embed=1`)),
      "'self'",
      "another room's join token: plain",
    );
    t.equal(
      frameAncestors(await page(`/room/${roomId}?t=${token.slice(0, -4)}AAAA&embed=1`)),
      "'self'",
      'a forged join token: plain',
    );
    const bare = await injectFetch(`${daemon.url}/room/${roomId}/exists`, { signal: AbortSignal.timeout(10_000) });
    t.equal(bare.status, 404, 'the derived room id shows nothing without a join token');
    const start = await injectFetch(`${daemon.url}/room/${roomId}/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Sneaky' }),
      signal: AbortSignal.timeout(10_000),
    });
    t.equal(start.status, 403, 'and admits nobody without one');
  });

  await t.test('no JWT, join token or secret in any log line', async (t) => {
    await logMatch(daemon, /videoconf arrival refused/);
    t.ok(tokens.length > 50, `${tokens.length} tokens sent`);
    // Whole tokens, their signatures (long enough to mean something), the secrets, anything shaped like a JWT.
    const signatures = tokens.map((jwt) => jwt.split('.')[2] ?? '').filter((signature) => signature.length >= 16);
    const leaks = daemon.lines.filter(
      (line) =>
        tokens.some((jwt) => line.includes(jwt)) ||
        signatures.some((s) => line.includes(s)) ||
        line.includes(mainSecret) ||
        line.includes(acmeSecret) ||
        /eyJ[\w-]+\.[\w-]+/.test(line),
    );
    t.same(leaks, [], 'nothing leaked');
    t.ok(
      daemon.lines.some((line) => /"url":"\/videoconf\/math\?jwt=\*\*\*/.test(line)),
      'the request log shows the URL with the token masked',
    );
  });
});

onEachServiceStore('open rooms: COMPAT_JITSI_ALLOW_ANONYMOUS alone runs the gateway', async (t, store) => {
  const daemon = await compatAppFor(t, {
    store,
    env: { COMPAT_JITSI_ALLOW_ANONYMOUS: 'true', COMPAT_FRONTEND_URL: frontend },
  });
  const entry = await enter(daemon, '/videoconf/Open%20Room', { displayName: 'Walk In' });
  t.equal(entry.status, 302, 'no token: admitted');
  const { roomId, token } = roomAndToken(entry.location!);
  const join = claimsOf(token);
  t.equal(join.role, 'participant', 'as a participant');
  t.equal(join.source, 'link', 'a bare-link guest of the room');
  t.equal(join.name, 'Walk In', 'named as the page asked');
  t.equal(
    (await startWithToken(daemon, roomId, token)).body?.role,
    'moderator',
    'the first arrival of an open room becomes its moderator (gateway-succession.test.ts)',
  );
  const impostor = await enter(daemon, '/videoconf/Open%20Room', { displayName: 'System' });
  t.equal(
    claimsOf(roomAndToken(impostor.location!).token).name,
    undefined,
    'an impersonating typed name is dropped (the page asks for one)',
  );
  const jwt = mint(claims('open room'));
  refused(
    t,
    await enter(daemon, '/videoconf/Open%20Room', { jwt }),
    /application this service does not accept/,
    'a token without any pair configured',
    jwt,
  );
  const api = await injectFetch(`${daemon.compatUrl}/confapi/api/getMeetings?checksum=x`, {
    signal: AbortSignal.timeout(10_000),
  });
  t.equal(api.status, 404, 'the meeting API is not served without its secret');
});

t.test('short secrets are refused at start and at reload', async (t) => {
  const shortFile = tenantsFile(t, `[tenants.shorty]\napp_id = "s"\napp_secret = "too-short"\n`);
  // A ConfigError at start is what `meetctl serve` exits 2 with, naming it (cli/main.ts; test/process/compat/start-refused.test.ts covers the exit).
  const { ConfigError } = await builtModule<typeof ConfigErrors>('config/config-error.js');
  const refusedAtStart = async (env: Record<string, string>, words: RegExp, what: string) => {
    const err: unknown = await compatAppFor(t, { env }).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err instanceof ConfigError, `${what}: a ConfigError (exit 2)`);
    t.match(err instanceof Error ? err.message : String(err), words, `${what}: naming it`);
  };
  await refusedAtStart(
    { COMPAT_JITSI_APP_ID: mainAppId, COMPAT_JITSI_APP_SECRET: 'only-31-bytes-long-xxxxxxxxxxxx' },
    /COMPAT_JITSI_APP_SECRET must hold at least 32 bytes/,
    'COMPAT_JITSI_APP_SECRET of 31 bytes',
  );
  await refusedAtStart(
    { COMPAT_JITSI_APP_SECRET: mainSecret },
    /COMPAT_JITSI_APP_ID must be set with COMPAT_JITSI_APP_SECRET/,
    'a secret with no issuer to accept',
  );
  await refusedAtStart(
    { COMPAT_JITSI_APP_ID: mainAppId, COMPAT_JITSI_APP_SECRET: mainSecret, SERVICE_TENANTS_FILE: shortFile },
    /tenants\.shorty\.app_secret must hold at least 32 bytes/,
    "a tenant's short app_secret",
  );

  const file = tenantsFile(t, registry);
  const daemon = await compatAppFor(t, {
    env: {
      COMPAT_JITSI_APP_ID: mainAppId,
      COMPAT_JITSI_APP_SECRET: mainSecret,
      COMPAT_FRONTEND_URL: frontend,
      SERVICE_TENANTS_FILE: file,
    },
  });
  const temp = `${file}.tmp`;
  writeFileSync(temp, registry.replace(acmeSecret, 'short-acme-secret'));
  renameSync(temp, file);
  await logMatch(
    daemon,
    /tenant registry not reloaded, the last good one stays: tenants\.acme\.app_secret must hold at least 32 bytes/,
  );
  t.pass('the reload is refused, naming the tenant');
  const entry = await enter(daemon, '/videoconf/math', {
    jwt: mint(claims('math', { iss: acmeAppId }), { secret: acmeSecret }),
  });
  t.equal(entry.status, 302, 'the last good registry stays: acme still enters with its secret');
  t.notOk(
    daemon.lines.some((line) => line.includes('short-acme-secret')),
    'the refused secret is not logged',
  );
});

// Issue 33 point 4: deployments issue week-long tokens (kiosks, rooms); the cap is COMPAT_JITSI_MAX_TOKEN_LIFETIME.
t.test('COMPAT_JITSI_MAX_TOKEN_LIFETIME: a 48 h token accepted when the cap allows it, none with 0', async (t) => {
  const entryWith = async (cap: string) =>
    compatAppFor(t, {
      env: {
        COMPAT_JITSI_APP_ID: mainAppId,
        COMPAT_JITSI_APP_SECRET: mainSecret,
        COMPAT_FRONTEND_URL: frontend,
        COMPAT_JITSI_MAX_TOKEN_LIFETIME: cap,
      },
    });
  const twoDays = mint(claims('math', { iat: now(), exp: now() + 48 * 3600 }));
  const twoDaysNoIat = mint(without(claims('math', { exp: now() + 48 * 3600 }), 'iat'));
  const week = mint(claims('math', { iat: now(), exp: now() + 7 * 86_400 }));

  const allows = await entryWith('172800');
  t.equal((await enter(allows, '/videoconf/math', { jwt: twoDays })).status, 302, 'cap 48 h: a 48 h token enters');
  t.equal((await enter(allows, '/videoconf/math', { jwt: twoDaysNoIat })).status, 302, 'cap 48 h: without iat too');
  const weekLong = await enter(allows, '/videoconf/math', { jwt: week });
  t.equal(weekLong.status, 403, 'cap 48 h: a week-long token is still refused');
  t.match(weekLong.text, /longer than this service accepts \(at most 48 hours\)/, 'the sentence says the cap');

  const none = await entryWith('0');
  t.equal((await enter(none, '/videoconf/math', { jwt: week })).status, 302, 'cap 0: a week-long token enters');
  t.equal((await enter(none, '/videoconf/math', { jwt: twoDays })).status, 302, 'cap 0: a 48 h token enters');
  const noSub = await enter(none, '/videoconf/math', { jwt: mint(without(claims('math'), 'sub')) });
  t.equal(noSub.status, 403, 'cap 0: sub is still required');
  t.match(noSub.text, /lacks its &#34;sub&#34; claim/, 'the refusal names sub');
  const noExp = await enter(none, '/videoconf/math', { jwt: mint(without(claims('math'), 'exp')) });
  t.match(noExp.text, /lacks its &#34;exp&#34; claim/, 'cap 0: exp is still required, and named');
});
