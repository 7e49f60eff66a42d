import t from 'tap';
import { call } from '../../helpers/api.js';
import { compatInProcessFor } from '../../helpers/compat.js';

/** The sources of one directive of a Content-Security-Policy header. */
function sources(policy: string, directive: string): string[] {
  const found = policy
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([name]) => name?.toLowerCase() === directive);
  return found ? found.slice(1) : [];
}

// Audit issue 11, point 10: the page let scripts open sockets to any host (`connect-src ws:
// wss:`), and JSON answers had no `X-Content-Type-Options: nosniff`.
t.test('the page connects only to its own origin; every answer of both listeners says nosniff', async (t) => {
  // Both listeners on real sockets, the daemon in the test's process: headers are what it answers.
  const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: 'compat-secret-of-the-headers-test' });
  t.equal(
    (await call(d, '/api/rooms', { method: 'POST', json: { room_id: 'x', name: 'X', waiting_room: 'off' } })).status,
    201,
  );

  const page = await fetch(`${d.url}/room/x`);
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  const connect = sources(csp, 'connect-src');
  t.same(connect, ["'self'"], `connect-src is the page's own origin only: ${connect.join(' ')}`);
  for (const bare of ['ws:', 'wss:', 'http:', 'https:', '*'])
    t.notOk(connect.includes(bare), `no bare ${bare} in connect-src`);
  // People's pictures (issue 33 point 8): https images on the room page only, never http or the home page's.
  t.same(sources(csp, 'img-src'), ["'self'", 'data:', 'blob:', 'https:'], 'img-src of the room page');
  const home = (await fetch(`${d.url}/`)).headers.get('content-security-policy') ?? '';
  t.same(sources(home, 'img-src'), ["'self'", 'data:', 'blob:'], 'img-src of the home page');

  const engine: [string, string, RequestInit & { token?: string | null }][] = [
    ['the page', '/room/x', { token: null }],
    ['a 404 JSON error', '/no/such/address', { token: null }],
    ['the rooms API', '/api/rooms', {}],
    ['a 401 of the rooms API', '/api/rooms', { token: null }],
    [
      'a 400 invalid_json',
      '/api/rooms',
      { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } },
    ],
    ['/room/x/exists', '/room/x/exists', { token: null }],
    ['/room/y/exists (404)', '/room/y/exists', { token: null }],
    ['a static asset', '/assets/web/main.js', { token: null }],
    ['a URL that cannot be decoded', '/room/%zz', { token: null }],
  ];
  for (const [what, path, init] of engine) {
    const answer = await d.api(path, init);
    await answer.arrayBuffer();
    t.equal(answer.headers.get('x-content-type-options'), 'nosniff', `${what} (${answer.status}): nosniff`);
  }
  for (const [what, path] of [
    ['a meeting-API answer', '/confapi/api/getMeetings?checksum=0000000000000000000000000000000000000000'],
    ['the meeting API version', '/confapi/api'],
    ['a 404 of the compat listener', '/no/such/address'],
    ['a URL that cannot be decoded', '/confapi/api/%zz'],
  ] as const) {
    const answer = await fetch(`${d.compatUrl}${path}`);
    await answer.arrayBuffer();
    t.equal(answer.headers.get('x-content-type-options'), 'nosniff', `compat: ${what} (${answer.status}): nosniff`);
  }
});
