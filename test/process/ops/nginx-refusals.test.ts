// Issue 29, point 15: nginx's refusals. A limit's 429 was nginx's HTML page without Retry-After
// (the page's JSON.parse threw on it) and its log line was at error; `--listen PORT` listened on
// IPv4 only. Against the operator's path: install, a daemon from the env file it wrote, `meetctl
// nginx` from the same file, real nginx.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { installedSite } from '../../helpers/installed-site.js';
import { freePort, selfSigned } from '../../helpers/nginx.js';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** One GET on its own connection, from `localAddress` when given (another loopback client). */
function get(url: string, options: { localAddress?: string; ca?: string } = {}): Promise<Answer> {
  const make = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = make(
      url,
      { agent: false, localAddress: options.localAddress, ca: options.ca, servername: 'meet.test', timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

function jsonOf(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

t.setTimeout(240_000);

t.test(
  "a limit's refusal is JSON in the service's error shape with Retry-After, for both zones, logged at warn",
  async (t) => {
    const site = await installedSite(t);
    for (const [zone, path, from] of [
      ['room addresses', (i: number) => `/room/lobby-${i}/exists`, '127.0.0.9'],
      ['gateway arrivals', (i: number) => `/videoconf/flood-${i}`, '127.0.0.10'],
    ] as const) {
      const flood = await Promise.all(
        Array.from({ length: 160 }, (_, i) => get(`${site.url}${path(i)}`, { localAddress: from })),
      );
      const refused = flood.filter((a) => a.status === 429);
      t.ok(refused.length >= 30, `${zone}: the flood is cut (${refused.length} of 160 refused)`);
      const shapes = new Set(
        refused.map((a) =>
          [a.headers['content-type'], a.headers['retry-after'], a.headers['x-content-type-options']].join(' | '),
        ),
      );
      t.same([...shapes], ['application/json | 1 | nosniff'], `${zone}: every refusal is JSON with Retry-After: 1`);
      const bodies = new Set(refused.map((a) => JSON.stringify(Object.keys(jsonOf(a.text)?.error ?? {}))));
      t.same([...bodies], ['["code","message"]'], `${zone}: { "error": { "code", "message" } }`);
      t.equal(jsonOf(refused[0]?.text ?? '')?.error?.code, 'too_many_requests', `${zone}: a stable code`);
      t.notOk(
        refused.some((a) => /<html|nginx/i.test(a.text)),
        `${zone}: not nginx's page`,
      );
    }
    const log = site.nginx.errorLog();
    const limited = log.split('\n').filter((line) => line.includes('limiting requests'));
    t.ok(limited.length > 0, "nginx's error log names the refusals");
    t.same([...new Set(limited.map((line) => /\[(\w+)\]/.exec(line)?.[1]))], ['warn'], 'at warn, never error');
  },
);

t.test('--listen PORT and --redirect-listen PORT listen on IPv4 and IPv6', async (t) => {
  const redirectPort = await freePort();
  let ca = '';
  const site = await installedSite(t, {
    flags: (port, nginx) => {
      const { cert, key } = selfSigned(nginx.prefix, 'meet.test');
      ca = readFileSync(cert, 'utf8');
      return [
        '--tls-cert',
        cert,
        '--tls-key',
        key,
        '--listen',
        String(port),
        '--redirect-listen',
        String(redirectPort),
      ];
    },
  });
  for (const host of ['127.0.0.1', '[::1]']) {
    const page = await get(`https://${host}:${site.port}/healthz`, { ca });
    t.equal(page.status, 200, `https://${host}:${site.port}: the daemon answers through nginx`);
    const redirect = await get(`http://${host}:${redirectPort}/room/lobby`);
    t.equal(redirect.status, 301, `http://${host}:${redirectPort}: the redirect listener`);
    t.equal(redirect.headers.location, `https://meet.test:${site.port}/room/lobby`);
  }
  const http = await installedSite(t, { flags: (port) => ['--http-only', '--listen', String(port)] });
  for (const host of ['127.0.0.1', '[::1]'])
    t.equal((await get(`http://${host}:${http.port}/healthz`)).status, 200, `http-only on ${host}`);
});
