// Issue 13, point 2: the generated site in a real nginx (unprivileged, its own prefix, a
// loopback port) in front of a running daemon: routing, the room limit, the live upgrade,
// who the client is (X-Forwarded-For), and the Secure cookie over TLS. nginx is the process
// under test; the daemon behind it runs in this test's process on real sockets (issue 30
// point 1: a spawned daemon cost each case a Node start and the app's modules again).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { dataDirFor, type Tap } from '../../helpers/api.js';
import { ConfapiClient, compatInProcessFor, fetchAnswer } from '../../helpers/compat.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../../helpers/in-process-daemon.js';
import { connectLive } from '../../helpers/live.js';
import { freePort, selfSigned, siteInNginx, type TestNginx } from '../../helpers/nginx.js';
import { createRoom, moderator } from '../../helpers/waiting.js';

const secret = 'compat-secret-of-the-nginx-proxy-test';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly body: any;
}

/** One request on its own connection, from `localAddress` when given (another loopback client). */
function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    json?: unknown;
    localAddress?: string;
    ca?: string;
  } = {},
): Promise<Answer> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  const make = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = make(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        agent: false,
        localAddress: options.localAddress,
        ca: options.ca,
        servername: 'meet.test',
        // Generous: 130 at once through nginx to a daemon sharing this process, on a loaded two-core machine.
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = text === '' ? null : JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Renders the site with `meetctl nginx` for this daemon and starts nginx with it; returns nginx's base URL. */
async function nginxFor(
  t: Tap,
  d: { url: string; compatUrl?: string },
  flags: (nginx: TestNginx) => string[],
): Promise<{ nginx: TestNginx; url: string; port: number }> {
  const compatPort = d.compatUrl ? portOf(d.compatUrl) : await freePort();
  return siteInNginx(t, { engine: `127.0.0.1:${portOf(d.url)}`, compat: `127.0.0.1:${compatPort}` }, flags);
}

/** `count` wrong access codes for room `roomId` at `base`, from `localAddress` with `forwardedFor`. */
async function wrongCodes(
  base: string,
  roomId: string,
  count: number,
  from: { localAddress?: string; forwardedFor?: string },
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) {
    answers.push(
      await send(`${base}/room/${roomId}/start`, {
        method: 'POST',
        json: { name: 'Guesser', access_code: `wrong-${i}` },
        localAddress: from.localAddress,
        headers: from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {},
      }),
    );
  }
  return answers;
}

function codes(answers: readonly Answer[]): string[] {
  return answers.map((a) => `${a.status} ${a.body?.error?.code ?? ''}`.trim());
}

const invalid = '403 access_code_invalid';
const blocked = '429 too_many_attempts';

// Daemons and nginx start here; on a loaded two-core machine the file needs more than the default.
t.setTimeout(300_000);

t.test('nginx in front of a running daemon (http-only, legacy path)', async (t) => {
  const d = await compatInProcessFor(t, {
    COMPAT_API_SHARED_SECRET: secret,
    COMPAT_TENANT_HOST_SUFFIX: '.meet.test',
    SERVICE_ACCESS_LOG: 'all',
  });
  const { url } = await nginxFor(t, d, () => ['--http-only', '--legacy-api-path']);
  const viaNginx: InProcessDaemon = { ...d, url };

  await t.test('knock and waiting reach the engine exactly like start (and exists)', async (t) => {
    for (const [method, sub, json] of [
      ['POST', 'start', { name: 'Ann' }],
      ['POST', 'knock', { name: 'Ann' }],
      ['GET', 'waiting', undefined],
      ['GET', 'exists', undefined],
    ] as const) {
      const direct = await send(`${d.url}/room/nowhere/${sub}`, { method, json });
      const proxied = await send(`${url}/room/nowhere/${sub}`, { method, json });
      t.equal(proxied.status, direct.status, `${sub}: same status (${direct.status})`);
      t.same(proxied.body, direct.body, `${sub}: same body ${direct.text}`);
      t.match(proxied.headers['content-type'], /^application\/json/, `${sub}: the engine's JSON`);
    }
    await createRoom(t, d, { room_id: 'lobby', name: 'Lobby', waiting_room: 'all' });
    const direct = await send(`${d.url}/room/lobby/knock`, { method: 'POST', json: { name: 'Direct' } });
    const proxied = await send(`${url}/room/lobby/knock`, { method: 'POST', json: { name: 'Proxied' } });
    t.equal(proxied.status, 202, proxied.text);
    t.same(Object.keys(proxied.body).sort(), Object.keys(direct.body).sort(), 'same body shape as a direct knock');
    const cookie = String(proxied.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    t.match(cookie, /^meet_wait=/, 'the waiting cookie comes through');
    const poll = await send(`${url}/room/lobby/waiting`, { headers: { cookie } });
    t.equal(poll.status, 200, poll.text);
    const directPoll = await send(`${d.url}/room/lobby/waiting`, { headers: { cookie } });
    t.same(poll.body, directPoll.body, 'the poll answers the same through nginx');
  });

  await t.test('/confapi/api and (with --legacy-api-path) /bigbluebutton/api reach the compat listener', async (t) => {
    const root = await fetchAnswer(`${url}/confapi/api`);
    t.equal(root.status, 200);
    t.equal(root.xml?.returncode, 'SUCCESS', root.text);
    const client = new ConfapiClient(url, secret);
    const meetings = await client.get('getMeetings');
    t.equal(meetings.xml?.returncode, 'SUCCESS', `a signed call through nginx: ${meetings.text}`);
    const legacy = await client.with({ path: '/bigbluebutton/api' }).get('getMeetings');
    t.equal(legacy.xml?.returncode, 'SUCCESS', `the legacy path: ${legacy.text}`);
    const forged = await client.with({ secret: 'not-the-secret' }).get('getMeetings');
    t.equal(forged.xml?.messageKey, 'checksumError', 'checked by the compat listener, not answered by nginx');
  });

  await t.test(
    'a tenant in the path or the host reaches the compat listener; the host is the one nginx saw',
    async (t) => {
      const client = new ConfapiClient(url, secret);
      const byPath = await client.with({ path: '/confapi/primary/api' }).get('getMeetings');
      t.equal(byPath.xml?.returncode, 'SUCCESS', `/confapi/{tenant}/api through nginx: ${byPath.text}`);
      const legacy = await client.with({ path: '/bigbluebutton/primary/api' }).get('getMeetings');
      t.equal(
        legacy.xml?.returncode,
        'SUCCESS',
        `/bigbluebutton/{tenant}/api through nginx (--legacy-api-path): ${legacy.text}`,
      );
      const unknown = await client.with({ path: '/confapi/nobody/api' }).get('getMeetings');
      t.equal(unknown.xml?.messageKey, 'checksumError', 'an unknown tenant is refused by the compat listener');
      const path = new URL(client.url('getMeetings')).pathname + new URL(client.url('getMeetings')).search;
      const byHost = await send(`${url}${path}`, { headers: { host: 'primary.meet.test' } });
      t.match(byHost.text, /<returncode>SUCCESS<\/returncode>/, 'Host primary.meet.test names the primary tenant');
      const wrongHost = await send(`${url}${path}`, { headers: { host: 'nobody.meet.test' } });
      t.match(
        wrongHost.text,
        /<messageKey>checksumError<\/messageKey>/,
        'Host nobody.meet.test names an unknown tenant',
      );
      // The client's own X-Forwarded-Host is replaced by the host nginx saw: it cannot name another tenant.
      const forged = await send(`${url}${path}`, {
        headers: { host: 'nobody.meet.test', 'x-forwarded-host': 'primary.meet.test' },
      });
      t.match(
        forged.text,
        /<messageKey>checksumError<\/messageKey>/,
        'a forged X-Forwarded-Host is not believed through nginx',
      );
      const forgedOut = await send(`${url}${path}`, {
        headers: { host: 'primary.meet.test', 'x-forwarded-host': 'nobody.meet.test' },
      });
      t.match(
        forgedOut.text,
        /<returncode>SUCCESS<\/returncode>/,
        'nor can it take a call away from the tenant its host names',
      );
    },
  );

  await t.test('the live WebSocket upgrades through nginx', async (t) => {
    await createRoom(t, d, { room_id: 'live', name: 'Live', waiting_room: 'off' });
    const mod = await moderator(viaNginx, 'live', 'Mallory');
    const { client, welcome } = await connectLive(viaNginx, 'live', mod.session);
    t.equal(welcome.type, 'welcome', 'the welcome frame arrives over the proxied socket');
    client.socket.close();
    await client.closed;
  });

  await t.test(
    '100 immediate requests from one address pass, the next get 429, about 10 per second pass again',
    async (t) => {
      const from = { localAddress: '127.0.0.9' };
      const started = performance.now();
      const burst = await Promise.all(Array.from({ length: 130 }, () => send(`${url}/room/nowhere/exists`, from)));
      const elapsedSecs = (performance.now() - started) / 1000;
      const passed = burst.filter((a) => a.status !== 429);
      t.ok(
        passed.every((a) => a.status === 404 && a.body?.exists === false),
        'what passes is answered by the engine',
      );
      // nginx lets the first request and a burst of 100 through at once; the rate adds 10 per second of the burst's own duration.
      t.ok(passed.length >= 100, `at least 100 pass (${passed.length} in ${elapsedSecs.toFixed(2)} s)`);
      t.ok(passed.length <= 101 + Math.ceil(10 * elapsedSecs) + 1, `then the limit holds (${passed.length} passed)`);
      const refused = burst.filter((a) => a.status === 429);
      t.ok(refused.length >= 130 - 103 - Math.ceil(10 * elapsedSecs), `the following ones get 429 (${refused.length})`);
      const other = await send(`${url}/room/nowhere/exists`, { localAddress: '127.0.0.10' });
      t.equal(other.status, 404, 'another address is not limited by this one');

      // The bucket empties from its last accepted request: top it up until nginx refuses again, then wait.
      let full = false;
      for (let i = 0; i < 50 && !full; i++) full = (await send(`${url}/room/nowhere/exists`, from)).status === 429;
      t.ok(full, 'the limit is reached again');
      const refilling = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const again = await Promise.all(
        Array.from({ length: 30 }, () =>
          send(`${url}/room/nowhere/knock`, { ...from, method: 'POST', json: { name: 'Again' } }),
        ),
      );
      // The bucket refills for as long as the 30 take to arrive too (seconds on a loaded machine), so the
      // bound counts from the last refusal to the last answer.
      const refilledSecs = (performance.now() - refilling) / 1000;
      const passedAgain = again.filter((a) => a.status !== 429).length;
      t.ok(
        passedAgain >= 8 && passedAgain <= Math.ceil(10 * refilledSecs) + 2,
        `about 10 per second pass again (${passedAgain} of 30 after ${refilledSecs.toFixed(2)} s; knock shares the limit)`,
      );
    },
  );

  await t.test('the client address: the real one through nginx, a forged X-Forwarded-For ignored', async (t) => {
    await createRoom(t, d, { room_id: 'coded', name: 'Coded', waiting_room: 'off', access_code: 'correct-horse' });
    // Directly from an untrusted address: every guess counts against 127.0.0.5 whatever it claims.
    t.same(
      codes(await wrongCodes(d.url, 'coded', 10, { localAddress: '127.0.0.5', forwardedFor: '203.0.113.9' })),
      Array(10).fill(invalid),
    );
    t.same(
      codes(await wrongCodes(d.url, 'coded', 1, { localAddress: '127.0.0.5', forwardedFor: '203.0.113.10' })),
      [blocked],
      'a new forged address does not escape the limit',
    );
    t.same(
      codes(await wrongCodes(d.url, 'coded', 1, { forwardedFor: '203.0.113.9' })),
      [invalid],
      'the forged address was never counted (asked as the trusted proxy)',
    );

    // Through nginx: the client's own header is replaced by the address that connected.
    t.same(
      codes(await wrongCodes(url, 'coded', 10, { localAddress: '127.0.0.6', forwardedFor: '203.0.113.20' })),
      Array(10).fill(invalid),
    );
    t.same(
      codes(await wrongCodes(url, 'coded', 1, { localAddress: '127.0.0.6', forwardedFor: '203.0.113.21' })),
      [blocked],
      'the real client is limited, whatever it claims',
    );
    t.same(
      codes(await wrongCodes(url, 'coded', 1, { localAddress: '127.0.0.7' })),
      [invalid],
      "another real client is not: the key is not nginx's own address",
    );
    t.same(
      codes(await wrongCodes(d.url, 'coded', 1, { forwardedFor: '127.0.0.6' })),
      [blocked],
      'the key was exactly the real address 127.0.0.6',
    );
    t.same(
      codes(await wrongCodes(d.url, 'coded', 1, { forwardedFor: '203.0.113.20' })),
      [invalid],
      'and never the address the client claimed',
    );
  });

  await t.test('the compat listener trusts the same proxies (its log names the real client)', async (t) => {
    await send(`${url}/confapi/api?probe=through-nginx`, {
      localAddress: '127.0.0.8',
      headers: { 'x-forwarded-for': '203.0.113.30' },
    });
    await send(`${d.compatUrl}/confapi/api?probe=direct`, {
      localAddress: '127.0.0.8',
      headers: { 'x-forwarded-for': '203.0.113.31' },
    });
    const remoteOf = async (probe: string) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const line = d.lines.find((l) => l.includes(`probe=${probe}`) && l.includes('remoteAddress'));
        if (line) return (JSON.parse(line) as { req: { remoteAddress: string } }).req.remoteAddress;
        if (Date.now() > deadline) return null;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    t.equal(await remoteOf('through-nginx'), '127.0.0.8', 'through nginx: the address that connected to nginx');
    t.equal(await remoteOf('direct'), '127.0.0.8', 'directly: the peer, the forged header ignored');
  });
});

t.test('SERVICE_TRUSTED_PROXIES=none: nothing is trusted, not even loopback', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_TRUSTED_PROXIES: 'none' });
  await createRoom(t, d, { room_id: 'coded', name: 'Coded', waiting_room: 'off', access_code: 'correct-horse' });
  t.same(codes(await wrongCodes(d.url, 'coded', 10, { forwardedFor: '203.0.113.40' })), Array(10).fill(invalid));
  t.same(
    codes(await wrongCodes(d.url, 'coded', 1, { forwardedFor: '203.0.113.41' })),
    [blocked],
    'from 127.0.0.1 too, X-Forwarded-For names nobody',
  );
});

t.test(
  'TLS through nginx: the waiting cookie is Secure over HTTPS and not over HTTP; HSTS; the redirect',
  async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await createRoom(t, d, { room_id: 'lobby', name: 'Lobby', waiting_room: 'all' });
    const redirectPort = await freePort();
    let ca = '';
    const { port, nginx } = await nginxFor(t, d, (n) => {
      const { cert, key } = selfSigned(n.prefix, 'meet.test');
      ca = readFileSync(cert, 'utf8');
      return ['--tls-cert', cert, '--tls-key', key, '--redirect-listen', `127.0.0.1:${redirectPort}`];
    });
    t.match(readFileSync(nginx.site, 'utf8'), /ssl_protocols TLSv1\.2 TLSv1\.3;/);

    const secure = await send(`https://127.0.0.1:${port}/room/lobby/knock`, {
      method: 'POST',
      json: { name: 'Over TLS' },
      ca,
    });
    t.equal(secure.status, 202, secure.text);
    const setCookie = String(secure.headers['set-cookie']?.[0] ?? '');
    t.match(setCookie, /^meet_wait=/);
    t.match(setCookie, /;\s*Secure/i, `Secure over HTTPS: ${setCookie}`);
    t.match(secure.headers['strict-transport-security'], /^max-age=63072000$/, 'HSTS');

    const plain = await send(`${d.url}/room/lobby/knock`, { method: 'POST', json: { name: 'Plain' } });
    t.equal(plain.status, 202);
    t.notMatch(String(plain.headers['set-cookie']?.[0] ?? ''), /Secure/i, 'no Secure over plain HTTP');
    const spoofed = await send(`${d.url}/room/lobby/knock`, {
      method: 'POST',
      json: { name: 'Spoofed' },
      localAddress: '127.0.0.5',
      headers: { 'x-forwarded-proto': 'https' },
    });
    t.notMatch(
      String(spoofed.headers['set-cookie']?.[0] ?? ''),
      /Secure/i,
      'X-Forwarded-Proto from an untrusted peer is ignored too',
    );

    const redirect = await send(`http://127.0.0.1:${redirectPort}/room/lobby?x=1`, { headers: { host: 'meet.test' } });
    t.equal(redirect.status, 301);
    t.equal(
      redirect.headers.location,
      `https://meet.test:${port}/room/lobby?x=1`,
      'plain HTTP is sent to HTTPS, path and query kept',
    );
  },
);
