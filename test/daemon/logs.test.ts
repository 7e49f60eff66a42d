import t from 'tap';
import { call, daemonFor, rooms } from '../helpers/api.js';

// Tokens travel in query strings (join links, the live socket) and headers; the JSON log
// on standard output must carry none of them, nor a configured secret.
t.test('the log holds no token, cookie or secret', async (t) => {
  const secret = 'compat-secret-that-must-not-be-logged';
  const d = await daemonFor(t, { env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_HTTP_ADDR: '127.0.0.1:0', SERVICE_LOG_LEVEL: 'info' } });
  await rooms.create(d, { room_id: 'logged', name: 'Logged room', waiting_room: 'all' });
  const link = await call(d, '/api/rooms/logged/links', { method: 'POST', json: { role: 'moderator' } });
  const joinToken = new URL(link.body.url, d.url).searchParams.get('t')!;
  t.equal((await fetch(`${d.url}/room/logged?t=${joinToken}`)).status, 200);
  const started = await call(d, '/room/logged/start', { method: 'POST', json: { name: 'Mod', t: joinToken }, token: null });
  const session: string = started.body.session;
  t.ok(session, 'a session was issued');
  // A plain GET of the live address: only so that a URL carrying the session gets logged.
  await fetch(`${d.url}/room/logged/live?session=${session}`);
  const knock = await fetch(`${d.url}/room/logged/knock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Guest' }) });
  const cookie = knock.headers.get('set-cookie')!.split(';')[0]!;
  await fetch(`${d.url}/room/logged/waiting`, { headers: { cookie } });
  await call(d, '/room/logged/waiting-list', { token: session });
  await new Promise((resolve) => setTimeout(resolve, 300));

  const log = d.lines.join('\n');
  t.match(log, /"url":"\/room\/logged\?t=\*\*\*"/, 'the request with a join token was logged, masked');
  t.match(log, /"url":"\/room\/logged\/live\?session=\*\*\*"/, 'so was the live address with its session');
  for (const [what, value] of [
    ['the join token', joinToken],
    ['the session token', session],
    ['the admin access token', d.adminToken],
    ['the waiting cookie', cookie.split('=')[1]!],
    ['the compat secret', secret],
  ] as const) {
    t.notOk(log.includes(value), `${what} is not in the log`);
  }
});
