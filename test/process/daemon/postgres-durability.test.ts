// Issue 34 point 3 on PostgreSQL, through the real daemon: every transition a client was told of
// survives kill -9 of the daemon; PostgreSQL stopped under a running daemon answers requests 503
// store_unavailable (the meeting API FAILED databaseUnavailable; no crash, no secret) and the daemon serves again once it is back, without a
// restart, nothing acknowledged lost; knocks arriving together share one transaction
// (synchronous_commit: test/service/daemon/postgres-store-bundle.test.ts).
import postgres from 'postgres';
import { assertError, daemonFor, dataDirFor } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import { assertFailed, assertSuccess, compatDaemonFor, ConfapiClient } from '../../helpers/compat.js';
import { freshDatabase, pgCtl, postgresTest } from '../../helpers/postgres.js';
import { asSession, Browser, claimsOf, createRoom, moderator, names, withAdminToken } from '../../helpers/waiting.js';

postgresTest('acknowledged knocks, an admission and a bar survive kill -9 of the daemon', async (t) => {
  const db = await freshDatabase(t);
  const dataDir = dataDirFor(t);
  const env = { SERVICE_DATABASE_URL: db.url };
  const first = await daemonFor(t, { dataDir, env });
  const room = 'durable-pg';
  await createRoom(t, first, { room_id: room, name: 'Durable on PostgreSQL', waiting_room: 'all' });
  const mod = await moderator(first, room, 'Mo');
  const [ann, bob, cid] = [new Browser(first, room), new Browser(first, room), new Browser(first, room)];
  for (const [name, browser] of [
    ['Ann', ann],
    ['Bob', bob],
    ['Cid', cid],
  ] as const)
    t.equal((await browser.knock({ name })).status, 202, `${name} knocks`);
  const idOf = Object.fromEntries(
    ((await asSession.list(first, room, mod.session)).body as { request_id: string; name: string }[]).map((i) => [
      i.name,
      i.request_id,
    ]),
  );
  t.same((await asSession.admit(first, room, mod.session, { request_id: idOf.Ann })).body, { admitted: 1 });
  const annSession = String((await ann.poll()).body.session);
  t.equal((await asSession.refuse(first, room, mod.session, { request_id: idOf.Bob, bar: true })).status, 200);
  t.equal(await stopDaemon(first, 'SIGKILL'), 'SIGKILL', 'the daemon was killed with SIGKILL');

  const second = withAdminToken(await daemonFor(t, { dataDir, env }), first.adminToken);
  const again = (browser: Browser) => {
    const b = new Browser(second, room);
    b.setCookie(browser.cookie);
    return b;
  };
  t.same((await again(cid).poll()).body, { status: 'waiting' }, "the waiting knocker's cookie still polls waiting");
  t.same((await again(bob).poll()).body, { status: 'barred' }, 'the barred one stays barred');
  assertError(t, await again(bob).knock({ name: 'Bob' }), 403, 'barred');
  const annAgain = await again(ann).poll();
  t.match(annAgain.body, { status: 'admitted', session: String }, 'the admitted one still polls admitted');
  t.equal(claimsOf(annAgain.body.session).participant, claimsOf(annSession).participant, 'as the same participant');
  t.same(names(await asSession.list(second, room, mod.session)), ['Cid'], "the moderator's session lists Cid");

  // The daemon that came back is a running daemon on PostgreSQL like any: the burst runs on it.
  await t.test('50 knocks arriving together share a few transactions', async (t) => {
    const burst = 'burst-pg';
    await createRoom(t, second, { room_id: burst, name: 'Burst', waiting_room: 'all' });
    const burstMod = await moderator(second, burst, 'Mo');
    const sql = postgres({ ...db.options, max: 1 });
    t.teardown(() => sql.end());
    // Every write transaction takes a transaction id; this read takes one of its own.
    const xid = async () => BigInt((await sql`SELECT pg_current_xact_id()::text AS x`)[0]!.x as string);
    const browsers = Array.from({ length: 50 }, () => new Browser(second, burst));
    const before = await xid();
    const answers = await Promise.all(browsers.map((b, i) => b.knock({ name: `Knocker ${i}` })));
    const writes = Number((await xid()) - before - 1n);
    t.same(
      answers.map((a) => a.status),
      Array.from({ length: 50 }, () => 202),
      'every knock acknowledged',
    );
    t.equal(names(await asSession.list(second, burst, burstMod.session)).length, 50, 'every knock committed');
    t.comment(`50 knocks, ${writes} write transactions`);
    t.ok(writes >= 1 && writes <= 20, `the knocks shared transactions (${writes} for 50 knocks)`);
  });
});

// One daemon with both listeners goes through one outage: each listener's answers are checked on
// their own requests.
postgresTest(
  'PostgreSQL stopped under a running daemon: 503 store_unavailable (the meeting API FAILED databaseUnavailable), then served again',
  async (t) => {
    const db = await freshDatabase(t);
    const secret = 'outage-api-secret-7a1c';
    const daemon = await compatDaemonFor(t, { SERVICE_DATABASE_URL: db.url, COMPAT_API_SHARED_SECRET: secret });
    const api = new ConfapiClient(daemon.compatUrl, secret);
    const createMeeting = (id: string) =>
      api.get('create', [
        ['meetingID', id],
        ['name', id],
      ]);
    assertSuccess(t, await createMeeting('before'), 'the meeting API: create before the outage');
    const room = 'outage';
    await createRoom(t, daemon, { room_id: room, name: 'Outage', waiting_room: 'all' });
    const mod = await moderator(daemon, room, 'Mo');
    const ann = new Browser(daemon, room);
    t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks before the outage');

    await pgCtl(['stop', '-m', 'fast']);
    let restarted = false;
    // Whatever happens below, later tests of this process need their cluster.
    t.teardown(async () => {
      if (!restarted) await pgCtl(['start']);
    });
    const bea = new Browser(daemon, room);
    const refused = await bea.knock({ name: 'Bea' });
    assertError(t, refused, 503, 'store_unavailable');
    const created = await daemon.api('/api/rooms', {
      method: 'POST',
      body: JSON.stringify({ room_id: 'during', name: 'During' }),
    });
    t.equal(created.status, 503, 'a room made during the outage: 503');
    t.equal(created.headers.get('retry-after'), '2', 'with a time to retry');
    const body = await created.text();
    t.match(JSON.parse(body), { error: { code: 'store_unavailable', message: /database cannot be reached/ } });
    const ready = await fetch(`${daemon.url}/readyz`);
    t.equal(ready.status, 503, 'not ready while the store is down');
    const readyBody = await ready.text();
    t.match(JSON.parse(readyBody), { status: 'not_ready', checks: { database: 'failing' } }, 'naming the store');
    for (const [what, text] of [
      ['the 503', body],
      ['/readyz', readyBody],
    ] as const)
      t.notMatch(
        text,
        new RegExp(`${db.name}|127\\.0\\.0\\.1|${db.cluster.port}|postgres`, 'i'),
        `${what} tells no detail`,
      );
    t.same((await ann.poll()).body, { status: 'waiting' }, 'a poll needs no store: Ann still waits');
    const during = await createMeeting('during');
    assertFailed(t, during, 'databaseUnavailable', 'the meeting API: create during the outage');
    t.notMatch(during.text, new RegExp(`${db.name}|127\\.0\\.0\\.1|${db.cluster.port}`), 'no detail of the database');

    await pgCtl(['start']);
    restarted = true;
    // The pool reconnects by itself: the same daemon serves again, with no restart.
    t.equal((await bea.knock({ name: 'Bea' })).status, 202, 'Bea knocks once PostgreSQL is back');
    t.same(names(await asSession.list(daemon, room, mod.session)), ['Ann', 'Bea'], 'nothing acknowledged was lost');
    assertSuccess(t, await createMeeting('after'), 'the meeting API: create once PostgreSQL is back');
    assertSuccess(t, await api.get('getMeetingInfo', [['meetingID', 'before']]), 'the meeting made before is there');
    // Readiness keeps its last answer a second (a flood cannot become a write flood): asked again after it.
    let readyAgain = 0;
    for (let i = 0; i < 20 && readyAgain !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      readyAgain = (await fetch(`${daemon.url}/readyz`)).status;
    }
    t.equal(readyAgain, 200, 'ready again');

    // A plain restart (the operator's pg_ctl restart -m fast) under the running daemon: served after it.
    await pgCtl(['restart', '-m', 'fast']);
    const cid = new Browser(daemon, room);
    t.equal((await cid.knock({ name: 'Cid' })).status, 202, 'Cid knocks after a restart of PostgreSQL');
    t.same(names(await asSession.list(daemon, room, mod.session)), ['Ann', 'Bea', 'Cid']);
    t.equal(daemon.child.exitCode, null, 'the daemon never exited');
  },
);
