import t from 'tap';
import { call, daemonFor, dataDirFor, logRecords, type Tap } from '../../helpers/api.js';
import { compatDaemonFor, ConfapiClient, logMatch } from '../../helpers/compat.js';
import type { Daemon } from '../../helpers/daemon.js';
import { claims, mainAppId, mainSecret, mint } from '../../helpers/gateway.js';
import { summaryOf } from '../../helpers/access-log-lines.js';
import { canMountPrivateTmpfs, inDaemonNamespace, privateTmpfsLauncher } from '../../helpers/private-tmpfs.js';
import { asSession, Browser, createRoom, moderator, withAdminToken } from '../../helpers/waiting.js';

// Issue 15, point 1, where the daemon must be `meetctl serve` in its own process: no secret in
// any line of its standard output or error whatever the policy, and a 500 from a real full disk
// (its data directory a tmpfs of its own namespace) gets its line. The rest of the access log is
// checked in-process in access-log.test.ts.

/** Everything the daemon wrote to standard error from now on. */
function stderrOf(d: Daemon): string[] {
  const chunks: string[] = [];
  d.child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return chunks;
}

// Every case runs its own daemon process and mostly waits on it: two at a time.
t.jobs = 2;
t.test('no secret in any line at SERVICE_ACCESS_LOG=all, failures included, on both listeners', async (t) => {
  const shared = 'shared-secret-of-the-access-log-test';
  const d = await compatDaemonFor(t, {
    COMPAT_API_SHARED_SECRET: shared,
    COMPAT_JITSI_APP_ID: mainAppId,
    COMPAT_JITSI_APP_SECRET: mainSecret,
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_ACCESS_LOG: 'all',
    SERVICE_REQUEST_SUMMARY_SECS: '1',
  });
  const stderr = stderrOf(d);
  await createRoom(t, d, { room_id: 'secrets', name: 'Secrets', waiting_room: 'all' });
  const mod = await moderator(d, 'secrets');
  const link = await call(d, '/api/rooms/secrets/links', { method: 'POST', json: { role: 'participant' } });
  const joinToken = new URL(link.body.url, d.url).searchParams.get('t')!;
  const guest = new Browser(d, 'secrets');
  t.equal((await guest.knock({ name: 'Gina Guest', note: 'a note nobody logs' })).status, 202);
  const cookie = guest.cookie!;

  // Engine listener: successes and failures carrying each secret.
  t.equal((await fetch(`${d.url}/room/secrets?t=${joinToken}`)).status, 200, 'the page with a join token');
  t.equal((await fetch(`${d.url}/room/other/exists?t=${joinToken}`)).status, 404, 'another room with it');
  t.equal(
    (await call(d, '/room/secrets/start', { method: 'POST', token: null, json: { name: 'X', t: `${joinToken}x` } }))
      .status,
    403,
    'a spoiled join token',
  );
  t.equal((await guest.poll()).status, 200, 'a poll with the cookie');
  t.equal((await guest.request('GET', '/waiting', { room: 'other' })).status, 404, 'the cookie sent to another room');
  t.equal(
    (await fetch(`${d.url}/room/secrets/waiting?meet_wait=${cookie}`)).status,
    404,
    'the cookie in a query string',
  );
  t.equal((await asSession.list(d, 'secrets', mod.session)).status, 200, 'the Bearer session');
  t.equal((await asSession.list(d, 'other', mod.session)).status, 401, 'the session for another room');
  t.equal(
    (await fetch(`${d.url}/room/secrets/live?session=${mod.session}`)).status,
    404,
    'the live address without an upgrade',
  );
  t.equal((await call(d, '/api/rooms/secrets')).status, 200, 'the rooms API bearer token');
  t.equal((await call(d, '/api/rooms/missing')).status, 404, 'the bearer token on a missing room');
  t.equal((await call(d, '/api/rooms', { token: `${d.adminToken}x` })).status, 401, 'a spoiled bearer token');
  t.equal(
    (await call(d, `/api/rooms?access_token=${d.adminToken}`, { token: null })).status,
    401,
    'the bearer token in a query string',
  );

  // Compat listener: the meeting API's checksum (signed with the shared secret) and the gateway's JWT.
  const confapi = new ConfapiClient(d.compatUrl, shared);
  const createUrl = confapi.url('create', [
    ['meetingID', 'm1'],
    ['name', 'Course'],
    ['moderatorPW', 'mod-pw-secret-1'],
  ]);
  const checksum = new URL(createUrl).searchParams.get('checksum')!;
  t.equal((await fetch(createUrl)).status, 200, 'create with its checksum');
  const badChecksum = confapi.with({ secret: 'wrong-secret' }).url('getMeetings');
  await fetch(badChecksum);
  const jwt = mint(claims('Math'));
  t.equal(
    (await fetch(`${d.compatUrl}/videoconf/Math?jwt=${jwt}`, { redirect: 'manual' })).status,
    302,
    'the gateway with its JWT',
  );
  const badJwt = mint(claims('Math'), { secret: 'x'.repeat(40) });
  t.equal(
    (await fetch(`${d.compatUrl}/videoconf/Math?jwt=${badJwt}`, { redirect: 'manual' })).status,
    403,
    'a forged JWT',
  );
  t.equal(
    (await fetch(`${d.compatUrl}/nowhere?jwt=${jwt}&checksum=${checksum}`)).status,
    404,
    'an unknown compat path',
  );

  await summaryOf(d, 'api.rooms', 3);
  await summaryOf(d, 'unmatched', 1);
  const out = d.lines.join('\n');
  const err = stderr.join('');
  for (const [what, value] of [
    ['the join token', joinToken],
    ['the waiting cookie', cookie],
    ['the session', mod.session],
    ['the rooms API token', d.adminToken],
    ['the shared secret', shared],
    ['the checksum', checksum],
    ['the wrong checksum', new URL(badChecksum).searchParams.get('checksum')!],
    ['the gateway JWT', jwt],
    ['the forged JWT', badJwt],
    ['the gateway secret', mainSecret],
    ['the meeting password', 'mod-pw-secret-1'],
    ["the guest's name", 'Gina Guest'],
    ["the guest's note", 'a note nobody logs'],
  ] as const) {
    t.notOk(out.includes(value), `${what} is not on standard output`);
    t.notOk(err.includes(value), `${what} is not on standard error`);
  }
  t.ok(
    logRecords(d).some((line) => line.family === 'confapi.create' && line.msg === 'create'),
    'the create was logged (as its state change)',
  );
  t.ok(
    logRecords(d).some((line) => line.family === 'videoconf' && line.status === 302),
    'the gateway request was logged',
  );
  t.ok(
    logRecords(d).some((line) => line.family === 'room.waiting' && line.status === 404),
    'the failing polls were logged',
  );
});

t.test(
  'a 500 from a real failure (a full disk) gets its line at the default policy',
  { skip: !canMountPrivateTmpfs() && 'needs root and unshare to give the daemon a small tmpfs of its own' },
  async (t: Tap) => {
    const dataDir = dataDirFor(t);
    const started = await daemonFor(t, {
      dataDir,
      env: { SERVICE_LOG_LEVEL: 'info' },
      launcher: privateTmpfsLauncher(dataDir, '4m'),
    });
    const d = withAdminToken(started, inDaemonNamespace(started, `cat "${dataDir}/initial-admin-token"`).trim());
    await createRoom(t, d, { room_id: 'full', name: 'Full', waiting_room: 'all' });
    await moderator(d, 'full');
    inDaemonNamespace(d, `cat /dev/zero > "${dataDir}/filler" 2>/dev/null; true`);
    const knock = await new Browser(d, 'full').knock({ name: 'Nobody', note: 'n'.repeat(280) });
    t.equal(knock.status, 500, 'the knock fails for real');
    const failed = await logMatch(d, /"family":"room\.knock"[^\n]*"status":500/);
    t.ok(failed, 'its access line');
    const line = logRecords(d).find((record) => record.family === 'room.knock' && record.status === 500)!;
    t.match(line, {
      level: 50,
      msg: 'server error',
      route: '/room/:id/knock',
      req: { method: 'POST', url: '/room/full/knock' },
    });
    t.notOk(
      d.lines.some((l) => l.includes('Nobody')),
      'the name is not logged',
    );
  },
);
