import t from 'tap';
import { call, daemonFor, dataDirFor, logRecords, rooms, type Tap } from '../helpers/api.js';
import { compatDaemonFor, ConfapiClient, logMatch } from '../helpers/compat.js';
import type { Daemon } from '../helpers/daemon.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { claims, mainAppId, mainSecret, mint } from '../helpers/gateway.js';
import { until } from '../helpers/net.js';
import { canMountPrivateTmpfs, inDaemonNamespace, privateTmpfsLauncher } from '../helpers/private-tmpfs.js';
import { asSession, Browser, createRoom, moderator, waitingApi, withAdminToken } from '../helpers/waiting.js';

// Issue 15, point 1: a line per request only where an operator needs one, a summary a minute
// for the rest, and no secret in any line whatever the policy. The daemon runs in the test's
// process (the same start, listeners and logger as `meetctl serve`) except where its standard
// output and error are read, or its data directory must fill up in a namespace of its own.

type Line = Record<string, unknown>;
const accessLines = (d: Logged, family: string): Line[] => logRecords(d).filter((line) => line.family === family);
const summaries = (d: Logged): Line[] => logRecords(d).filter((line) => line.msg === 'requests');

/** What the log checks read of a daemon, spawned or in this process. */
type Logged = Pick<Daemon, 'lines'>;

/** Everything the daemon wrote to standard error from now on. */
function stderrOf(d: Daemon): string[] {
  const chunks: string[] = [];
  d.child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return chunks;
}

/** Waits for a summary line whose family `family` counts at least `n` requests; returns that family's figures. */
async function summaryOf(d: Logged, family: string, n: number): Promise<Record<string, number>> {
  let found: Record<string, number> | undefined;
  await until(
    `a summary counting ${n} ${family}`,
    async () => {
      const total = summaries(d)
        .map((line) => (line.families as Record<string, Record<string, number>>)[family])
        .filter((figures) => figures !== undefined);
      const n4xx = total.reduce((sum, figures) => sum + figures['4xx']!, 0);
      const count = total.reduce((sum, figures) => sum + figures.n!, 0);
      found = { count, '4xx': n4xx };
      return count >= n;
    },
    10_000,
    100,
  );
  return found!;
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
  t.equal((await call(d, '/room/secrets/start', { method: 'POST', token: null, json: { name: 'X', t: `${joinToken}x` } })).status, 403, 'a spoiled join token');
  t.equal((await guest.poll()).status, 200, 'a poll with the cookie');
  t.equal((await guest.request('GET', '/waiting', { room: 'other' })).status, 404, 'the cookie sent to another room');
  t.equal((await fetch(`${d.url}/room/secrets/waiting?meet_wait=${cookie}`)).status, 404, 'the cookie in a query string');
  t.equal((await asSession.list(d, 'secrets', mod.session)).status, 200, 'the Bearer session');
  t.equal((await asSession.list(d, 'other', mod.session)).status, 401, 'the session for another room');
  t.equal((await fetch(`${d.url}/room/secrets/live?session=${mod.session}`)).status, 404, 'the live address without an upgrade');
  t.equal((await call(d, '/api/rooms/secrets')).status, 200, 'the rooms API bearer token');
  t.equal((await call(d, '/api/rooms/missing')).status, 404, 'the bearer token on a missing room');
  t.equal((await call(d, '/api/rooms', { token: `${d.adminToken}x` })).status, 401, 'a spoiled bearer token');
  t.equal((await call(d, `/api/rooms?access_token=${d.adminToken}`, { token: null })).status, 401, 'the bearer token in a query string');

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
  t.equal((await fetch(`${d.compatUrl}/videoconf/Math?jwt=${jwt}`, { redirect: 'manual' })).status, 302, 'the gateway with its JWT');
  const badJwt = mint(claims('Math'), { secret: 'x'.repeat(40) });
  t.equal((await fetch(`${d.compatUrl}/videoconf/Math?jwt=${badJwt}`, { redirect: 'manual' })).status, 403, 'a forged JWT');
  t.equal((await fetch(`${d.compatUrl}/nowhere?jwt=${jwt}&checksum=${checksum}`)).status, 404, 'an unknown compat path');

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

t.test('the default policy: polls are counted, not logged; refusals, state changes and the summary are', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_LOG_LEVEL: 'info', SERVICE_REQUEST_SUMMARY_SECS: '1', SERVICE_MEETING_EMPTY_GRACE_SECS: '0' });
  await createRoom(t, d, { room_id: 'busy', name: 'Busy', waiting_room: 'all' });
  const mod = await moderator(d, 'busy');
  const guests = [new Browser(d, 'busy'), new Browser(d, 'busy'), new Browser(d, 'busy')];
  for (const [i, guest] of guests.entries()) t.equal((await guest.knock({ name: `Guest Person ${i}` })).status, 202);
  const polls = 30;
  for (let i = 0; i < polls; i++) t.equal((await guests[i % 3]!.poll()).status, 200);
  const lost = new Browser(d, 'busy');
  for (let i = 0; i < 4; i++) t.equal((await lost.poll()).status, 404, 'a poll that lost its cookie');
  t.equal((await call(d, '/api/rooms/missing')).status, 404, 'an unexpected refusal');

  const list = (await waitingApi.list(d, 'busy')).body as { request_id: string; name: string }[];
  const ids = list.map((item) => item.request_id);
  t.equal((await asSession.admit(d, 'busy', mod.session, { request_id: ids[0] })).status, 200);
  t.equal((await waitingApi.refuse(d, 'busy', ids[1]!, false)).status, 200);
  t.equal((await asSession.refuse(d, 'busy', mod.session, { request_id: ids[2], bar: true })).status, 200);

  const figures = await summaryOf(d, 'room.waiting', polls + 4);
  t.equal(figures.count, polls + 4, 'the summary counts every poll');
  t.equal(figures['4xx'], 4, 'the lost-cookie polls among them');
  t.same(accessLines(d, 'room.waiting'), [], 'and not one poll has a line of its own');
  const summary = summaries(d).find((line) => (line.families as Record<string, unknown>)['room.waiting'] !== undefined)!;
  t.match(summary, { level: 30, windowSecs: Number, requests: Number }, 'the summary line at info');
  t.match((summary.families as Record<string, unknown>)['room.waiting'], { n: Number, p50: Number, p95: Number, p99: Number, max: Number });

  const refused = accessLines(d, 'api.rooms').filter((line) => line.status === 404);
  t.equal(refused.length, 1, 'the unexpected 404 has one line');
  t.match(refused[0], { msg: 'request refused', level: 30, route: '/api/rooms/:id', req: { method: 'GET', url: '/api/rooms/missing' } });
  // A line is written once its answer went out: the client may read the answer first.
  await logMatch(d, /"event":"bar"/);
  const events = logRecords(d).filter((line) => typeof line.event === 'string');
  t.same(
    events.filter((e) => e.event === 'knock').map((e) => [e.room, e.status]),
    [
      ['busy', 202],
      ['busy', 202],
      ['busy', 202],
    ],
    'one line per knock',
  );
  t.ok(
    events.every((e) => e.event !== 'knock' || typeof e.request === 'string'),
    'each knock names its request id',
  );
  t.match(
    events.find((e) => e.event === 'admit'),
    { room: 'busy', request: ids[0], admitted: 1, by: mod.participantId, level: 30 },
  );
  t.match(
    events.find((e) => e.event === 'refuse'),
    { room: 'busy', request: ids[1] },
  );
  t.match(
    events.find((e) => e.event === 'bar'),
    { room: 'busy', request: ids[2] },
  );
  t.ok(
    events.some((e) => e.event === 'create' && e.room === 'busy'),
    'the room creation',
  );
  t.notOk(
    d.lines.some((line) => line.includes('Guest Person')),
    'no name in any line',
  );

  // The meeting ends once everyone left (grace 0, the sweep ends it): one line, ids only.
  await asSession.leave(d, 'busy', mod.session);
  await asSession.leave(d, 'busy', (await guests[0]!.poll()).body.session);
  await logMatch(d, /"event":"end"/, 10_000);
  t.match(
    logRecords(d).filter((line) => line.event === 'end'),
    [{ level: 30, msg: 'end', room: 'busy', meeting: String }],
    'one line for the end',
  );
  t.notOk(
    d.lines.some((line) => /incoming request|request completed/.test(line)),
    "none of Fastify's own request lines",
  );
});

t.test('SERVICE_ACCESS_LOG=all: exactly one line per request; SERVICE_SLOW_REQUEST_MS=0: every request is slow', async (t) => {
  for (const [env, msg, level] of [
    [{ SERVICE_ACCESS_LOG: 'all' }, 'request', 30],
    [{ SERVICE_SLOW_REQUEST_MS: '0' }, 'slow request', 40],
  ] as const) {
    await t.test(`${JSON.stringify(env)}`, async (t) => {
      const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_LOG_LEVEL: 'info', ...env });
      await rooms.create(d, { room_id: 'each', name: 'Each', waiting_room: 'all' });
      const guest = new Browser(d, 'each');
      await guest.knock({ name: 'Polly' });
      for (let i = 0; i < 12; i++) await guest.request('GET', `/waiting?poll=${i}`);
      await until('a line for each poll', async () => accessLines(d, 'room.waiting').length >= 12, 10_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = accessLines(d, 'room.waiting');
      t.equal(lines.length, 12, 'twelve polls, twelve lines');
      t.same(
        lines.map((line) => (line.req as { url: string }).url),
        Array.from({ length: 12 }, (_, i) => `/room/each/waiting?poll=${i}`),
        'one each, in order',
      );
      t.ok(
        lines.every((line) => line.msg === msg && line.level === level && line.status === 200 && typeof line.ms === 'number'),
        `each: ${msg}, status and ms`,
      );
      // The request's logger is made lazily (platform/request-logger.ts): its lines still name their request.
      const ids = lines.map((line) => line.reqId);
      t.ok(
        ids.every((id) => typeof id === 'string' && id !== ''),
        'each line carries its request id',
      );
      t.equal(new Set(ids).size, 12, 'a different id for each request');
    });
  }
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
    t.match(line, { level: 50, msg: 'server error', route: '/room/:id/knock', req: { method: 'POST', url: '/room/full/knock' } });
    t.notOk(
      d.lines.some((l) => l.includes('Nobody')),
      'the name is not logged',
    );
  },
);
