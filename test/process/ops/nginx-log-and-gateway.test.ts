// Issue 28, points 6 and 9 (nginx part): the generated site in a real nginx in front of a real
// daemon (both listeners on real sockets, real SQLite). Point 6: what travels in query strings
// (session and join tokens, app JWTs, meeting-API passwords and checksums) never reaches the
// access log. Point 9: a flood of gateway arrivals from one client is cut by nginx with 429.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { ConfapiClient, compatInProcessFor } from '../../helpers/compat.js';
import { siteInNginx, type TestNginx } from '../../helpers/nginx.js';

const apiSecret = 'compat-secret-of-the-nginx-log-test-0123456789';

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** One GET on its own connection, from `localAddress` when given (another loopback client). */
function get(url: string, options: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: options.headers, agent: false, localAddress: options.localAddress, timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** `meetctl nginx` for this daemon (http-only, its access log in nginx's prefix), then nginx started with it. */
function nginxFor(t: Tap, engineUrl: string, compatUrl: string): Promise<{ nginx: TestNginx; url: string }> {
  return siteInNginx(t, { engine: new URL(engineUrl).host, compat: new URL(compatUrl).host }, () => ['--http-only']);
}

/** nginx's own refusal (its JSON too_many_requests, issue 29 point 15), as opposed to one the daemon answered. */
const refusedByNginx = (answer: Answer) => answer.status === 429 && answer.text.includes('"code":"too_many_requests"');

t.setTimeout(180_000);

t.test('the access log keeps the path and never the query string', async (t) => {
  const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: apiSecret, COMPAT_JITSI_ALLOW_ANONYMOUS: 'true' });
  const { nginx, url } = await nginxFor(t, d.url, d.compatUrl);
  const secrets = {
    session: 'SESSION-TOKEN-SECRET-4f1c',
    join: 'JOIN-TOKEN-SECRET-9a2b',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJyb29tIjoic2VjcmV0In0.SIGNATURE-SECRET-77aa',
    password: 'ATTENDEE-PASSWORD-SECRET-31',
    referer: 'REFERER-TOKEN-SECRET-5d',
    encoded: 'ENCODED-NAME-SECRET-c3',
  };
  const signed = new ConfapiClient(url, apiSecret).url('join', [
    ['meetingID', 'm1'],
    ['fullName', 'Ann'],
    ['password', secrets.password],
  ]);
  const checksum = new URL(signed).searchParams.get('checksum')!;
  const answers = await Promise.all([
    get(`${url}/room/lobby?t=${secrets.join}`),
    get(`${url}/room/lobby/live?token=${secrets.session}`),
    get(signed),
    get(`${url}/videoconf/Open-Room?jwt=${secrets.jwt}`),
    get(`${url}/acme/videoconf/Open-Room?jwt=${secrets.jwt}&checksum=${checksum}`),
    get(`${url}/assets/app.css`, { headers: { referer: `${url}/room/lobby?t=${secrets.referer}` } }),
    get(`${url}/room/lobby/exists?%74=${secrets.encoded}`),
  ]);
  t.ok(
    answers.every((a) => a.status > 0 && !refusedByNginx(a)),
    `every request went through nginx (${answers.map((a) => a.status).join(' ')})`,
  );

  const log = readFileSync(nginx.accessLog, 'utf8');
  const lines = log.split('\n').filter((line) => line !== '');
  t.equal(lines.length, answers.length, `one line per request in the site's own log:\n${log}`);
  for (const path of [
    '/room/lobby',
    '/room/lobby/live',
    '/confapi/api/join',
    '/videoconf/Open-Room',
    '/acme/videoconf/Open-Room',
    '/room/lobby/exists',
  ])
    t.ok(
      lines.some((line) => line.includes(`"GET ${path} HTTP/1.1"`)),
      `${path} is logged, without its query`,
    );
  for (const [name, secret] of Object.entries({ ...secrets, checksum }))
    t.notOk(log.includes(secret), `the ${name} is not in the access log`);
  t.notMatch(log, /\?/, 'no query string at all');
  t.notMatch(log, /eyJ/, 'nothing shaped like a JWT');
});

t.test('a flood of gateway arrivals from one client gets 429 from nginx; another client still enters', async (t) => {
  const d = await compatInProcessFor(t, { COMPAT_JITSI_ALLOW_ANONYMOUS: 'true' });
  const { url } = await nginxFor(t, d.url, d.compatUrl);
  const from = { localAddress: '127.0.0.9' };
  const started = performance.now();
  const flood = await Promise.all(Array.from({ length: 160 }, (_, i) => get(`${url}/videoconf/flood-${i}`, from)));
  const elapsedSecs = (performance.now() - started) / 1000;
  const refused = flood.filter(refusedByNginx);
  const passed = flood.length - refused.length;
  // A burst of 100 (plus the first) passes at once; the rate adds 5 per second of the flood's own duration.
  t.ok(passed >= 100, `a class entering together passes (${passed} in ${elapsedSecs.toFixed(2)} s)`);
  t.ok(passed <= 101 + Math.ceil(5 * elapsedSecs) + 1, `then nginx refuses (${passed} passed)`);
  t.ok(refused.length >= 160 - 103 - Math.ceil(5 * elapsedSecs), `${refused.length} refused with nginx's 429`);
  t.ok(
    flood.every((a) => refusedByNginx(a) || a.status !== 0),
    'the others were answered by the daemon',
  );

  // The tenant form of the address shares the same limit: the bucket is still full.
  const tenant = await Promise.all(
    Array.from({ length: 20 }, (_, i) => get(`${url}/acme/videoconf/flood-t${i}`, from)),
  );
  t.ok(
    tenant.filter(refusedByNginx).length >= 10,
    `/{tenant}/videoconf/ is limited alike (${tenant.filter(refusedByNginx).length} of 20 refused)`,
  );

  const other = await get(`${url}/videoconf/someone-else`, { localAddress: '127.0.0.10' });
  t.notOk(refusedByNginx(other), `another client is not limited by this one (${other.status})`);
  t.equal(other.status, 302, 'and enters its open room');
});
