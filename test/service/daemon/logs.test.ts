import { createHash } from 'node:crypto';
import t from 'tap';
import { call, rooms } from '../../helpers/api.js';
import { compatInProcessFor } from '../../helpers/compat.js';

// Tokens travel in query strings (join links, the live socket) and headers; the JSON log
// on standard output must carry none of them, nor a configured secret.
t.test('the log holds no token, cookie or secret', async (t) => {
  const secret = 'compat-secret-that-must-not-be-logged';
  const d = await compatInProcessFor(t, {
    COMPAT_API_SHARED_SECRET: secret,
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_ACCESS_LOG: 'all',
  });
  await rooms.create(d, { room_id: 'logged', name: 'Logged room', waiting_room: 'all' });
  const link = await call(d, '/api/rooms/logged/links', { method: 'POST', json: { role: 'moderator' } });
  const joinToken = new URL(link.body.url, d.url).searchParams.get('t')!;
  t.equal((await fetch(`${d.url}/room/logged?t=${joinToken}`)).status, 200);
  const started = await call(d, '/room/logged/start', {
    method: 'POST',
    json: { name: 'Mod', t: joinToken },
    token: null,
  });
  const session: string = started.body.session;
  t.ok(session, 'a session was issued');
  // A plain GET of the live address: only so that a URL carrying the session gets logged.
  await fetch(`${d.url}/room/logged/live?session=${session}`);
  const knock = await fetch(`${d.url}/room/logged/knock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Guest' }),
  });
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

// Audit issue 11, point 8: masking compared parameter names literally, so `?%74=<token>`
// (which any query parser reads as `t`) logged the token. Names are decoded before they are
// compared, and values shaped like tokens are masked whatever their name; the compat
// listener logs through the same function.
t.test('odd spellings of secret parameters and token-shaped values are masked on both listeners', async (t) => {
  const secret = 'compat-secret-for-the-odd-names-test';
  const d = await compatInProcessFor(t, {
    COMPAT_API_SHARED_SECRET: secret,
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_ACCESS_LOG: 'all',
  });
  const compatUrl = d.compatUrl;
  await rooms.create(d, { room_id: 'rc', name: 'Logged room', waiting_room: 'off' });
  const link = await call(d, '/api/rooms/rc/links', { method: 'POST', json: { role: 'moderator' } });
  const joinToken = new URL(link.body.url, d.url).searchParams.get('t')!;
  const started = await call(d, '/room/rc/start', { method: 'POST', json: { name: 'Mod', t: joinToken }, token: null });
  const session: string = started.body.session;
  t.ok(session, 'a session was issued');
  const checksum = createHash('sha1').update(`getMeetings${secret}`).digest('hex');
  const password = 'moderator-password-7Qx';

  const cases: [string, string, string][] = [
    ['t percent-encoded', `/room/rc?case=1&%74=${joinToken}`, joinToken],
    ['T upper case', `/room/rc?case=2&T=${joinToken}`, joinToken],
    ['t with a NUL', `/room/rc?case=3&t%00=${joinToken}`, joinToken],
    ['t double-encoded', `/room/rc?case=4&%2574=${joinToken}`, joinToken],
    ['t with a plus', `/room/rc?case=5&t+=${joinToken}`, joinToken],
    ['session percent-encoded', `/room/rc/live?case=6&%73ession=${session}`, session],
    ['a JWT under an unknown name', `/room/rc?case=7&q=${session}`, session],
    ['a JWT with no name', `/room/rc?case=8&${joinToken}`, joinToken],
    ['an access token under an unknown name', `/api/rooms?case=9&k=${d.adminToken}`, d.adminToken],
  ];
  const compatCases: [string, string, string][] = [
    ['checksum percent-encoded', `/confapi/api/getMeetings?case=10&%63hecksum=${checksum}`, checksum],
    ['a checksum under an unknown name', `/confapi/api/getMeetings?case=11&x=${checksum}`, checksum],
    ['password percent-encoded', `/confapi/api/join?case=12&meetingID=m&fullName=A&pass%77ord=${password}`, password],
    ['moderatorPW double-encoded', `/confapi/api/create?case=13&meetingID=m&moderator%2550W=${password}`, password],
    ['attendeePW upper case', `/confapi/api/create?case=14&meetingID=m&ATTENDEEPW=${password}`, password],
  ];
  for (const [, path] of cases) await fetch(`${d.url}${path}`);
  for (const [, path] of compatCases) await fetch(`${compatUrl}${path}`);
  await new Promise((resolve) => setTimeout(resolve, 300));

  for (const [what, path, value] of [...cases, ...compatCases]) {
    const marker = /case=\d+/.exec(path)![0];
    const logged = d.lines.filter((line) => line.includes(`${marker}&`));
    t.ok(logged.length > 0, `${what}: the request was logged`);
    t.notOk(
      logged.some((line) => line.includes(value)),
      `${what}: the secret is masked (${logged.map((line) => /"url":"([^"]*)"/.exec(line)?.[1]).join(' ')})`,
    );
  }
  const log = d.lines.join('\n');
  for (const [what, value] of [
    ['the join token', joinToken],
    ['the session token', session],
    ['the admin access token', d.adminToken],
    ['the checksum', checksum],
    ['the password', password],
    ['the compat secret', secret],
  ] as const) {
    t.notOk(log.includes(value), `${what} is nowhere in the log`);
  }
});
