// Issue 15, point 5: SIGTERM/SIGINT end the process within SERVICE_SHUTDOWN_GRACE_SECS, whatever
// the clients hold open, and lose nothing that was acknowledged.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { stopTimeoutSecs } from '../../../src/platform/stop-budget.js';
import { closeCodes } from '../../../src/protocol/live.js';
import { daemonFor, dataDirFor, logRecords } from '../../helpers/api.js';
import { meetctl, tempDataDir } from '../../helpers/daemon.js';
import { connectLive } from '../../helpers/live.js';
import { until } from '../../helpers/net.js';
import { killIfStill, partialRequest, processRuns, signalled, slowRequest } from '../../helpers/slow-client.js';
import { Browser, createRoom, moderator, waitingApi, withAdminToken } from '../../helpers/waiting.js';

const forcedMsg = 'shutdown grace over: exiting with work still open';

// Every case runs its own daemon process and waits mostly on its signals and graces: two at a time.
t.jobs = 2;

t.test(
  'a live connection is closed with 4503 (service restarting) and the daemon exits 0 without waiting for the grace',
  async (t) => {
    const grace = 30;
    const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
    await createRoom(t, daemon, { room_id: 'live-stop', name: 'Live stop', waiting_room: 'off' });
    const mod = await moderator(daemon, 'live-stop');
    const { client } = await connectLive(daemon, 'live-stop', mod.session);
    const { code, ms } = await signalled(daemon, 'SIGINT');
    t.same(
      await client.closed,
      { code: closeCodes.restarting, reason: 'service restarting' },
      'the page gets the code it reads as a restart',
    );
    t.equal(closeCodes.restarting, 4503);
    t.equal(code, 0, 'a finished stop exits 0');
    t.ok(ms < grace * 1000, `exited once the socket closed (${ms} ms), not at the ${grace} s grace`);
    t.equal(logRecords(daemon).at(-1)?.msg, 'stopped');
  },
);

t.test(
  'waiting polls: a keep-alive connection left by a poll does not hold the stop, and a poll arriving during it is answered',
  async (t) => {
    const grace = 30;
    const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
    await createRoom(t, daemon, { room_id: 'polls', name: 'Polls', waiting_room: 'all' });
    await moderator(daemon, 'polls');
    const guest = new Browser(daemon, 'polls');
    t.equal((await guest.knock({ name: 'Guest' })).status, 202);
    const url = new URL(daemon.url);
    const pollBytes = `GET /room/polls/waiting HTTP/1.1\r\nHost: ${url.host}\r\nCookie: meet_wait=${guest.cookie}\r\n\r\n`;
    // One poll answered, its connection kept alive and idle.
    const kept = await partialRequest(daemon.url, pollBytes, '');
    await until('the first poll is answered', async () => /"status":"waiting"/.test(kept.received()), 10_000, 25);
    // One poll whose headers are half sent when the signal comes.
    const late = await partialRequest(daemon.url, pollBytes.slice(0, 30), '');
    await sleep(200);
    const started = Date.now();
    daemon.child.kill('SIGTERM');
    await sleep(200);
    late.socket.write(pollBytes.slice(30));
    const code = await daemon.exited;
    const ms = Date.now() - started;
    await Promise.all([kept.closed, late.closed]);
    t.match(
      late.received(),
      /^HTTP\/1\.1 (200|503) /,
      `the poll in flight is answered: ${late.received().split('\r\n')[0]}`,
    );
    t.equal(code, 0);
    t.ok(ms < grace * 1000, `exited (${ms} ms) before the ${grace} s grace`);
  },
);

// One slow client is shutdown-grace.test.ts's first case (exit 1 at the grace, the request and its
// connection named at level 50, the connection cut); here the same for many at once.
t.test('50 slow clients mid-request: the daemon exits 1 at the grace, naming them, and cuts them', async (t) => {
  const grace = 2;
  const count = 50;
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
  const slow = [];
  for (let i = 0; i < count; i += 1) slow.push(await slowRequest(daemon.url, '/room/any/knock'));
  const { code, ms } = await signalled(daemon);
  t.equal(code, 1, 'exit code 1');
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `exited (${ms} ms) before grace + margin, where a supervisor would SIGKILL`);
  await Promise.all(slow.map((c) => c.closed));
  t.pass('every slow connection was closed by the daemon');
  t.match(
    logRecords(daemon).find((r) => r.msg === forcedMsg),
    { level: 50, graceSecs: grace, open: { engine: { requests: count, connections: count } } },
  );
});

t.test('a second signal exits at once with code 1, logging what was still open', async (t) => {
  const grace = 60;
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
  const slow = await slowRequest(daemon.url, '/room/any/knock');
  // The daemon still answers on another connection while the slow request is in flight.
  t.equal((await fetch(`${daemon.url}/healthz`)).status, 200);
  daemon.child.kill('SIGTERM');
  await until('the daemon is stopping', async () => logRecords(daemon).some((r) => r.msg === 'stopping'), 10_000, 25);
  const { code, ms } = await signalled(daemon, 'SIGTERM');
  t.equal(code, 1);
  t.ok(ms < grace * 1000, `exited (${ms} ms) long before the ${grace} s grace`);
  const line = daemon.lines.find((l) => l.includes('SIGTERM while stopping'));
  t.ok(line, 'one line says why');
  t.match(JSON.parse(line ?? '{}'), {
    level: 50,
    signal: 'SIGTERM',
    open: { engine: { requests: 1, connections: 1, liveSockets: 0 } },
    msg: 'SIGTERM while stopping: exiting now with work still open',
  });
  await slow.closed;
});

t.test(
  'knocks acknowledged right before SIGTERM, and knocks in flight during it, are in the database after the restart',
  async (t) => {
    const dataDir = dataDirFor(t);
    const first = await daemonFor(t, { dataDir, env: { SERVICE_SHUTDOWN_GRACE_SECS: '20' } });
    await createRoom(t, first, { room_id: 'durable-stop', name: 'Durable stop', waiting_room: 'all' });
    await moderator(first, 'durable-stop');
    const acknowledged = new Map<string, Browser>();
    // Acknowledged before the signal.
    for (let i = 0; i < 5; i += 1) {
      const browser = new Browser(first, 'durable-stop', { forwardedFor: `198.51.100.${i + 1}` });
      t.equal((await browser.knock({ name: `Before ${i}` })).status, 202);
      acknowledged.set(`Before ${i}`, browser);
    }
    // In flight when the signal comes: the whole request but the body's last byte is sent; that byte follows the signal.
    const url = new URL(first.url);
    const inFlight = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const name = `In flight ${i}`;
        const body = JSON.stringify({ name });
        const head =
          `POST /room/durable-stop/knock HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
          `X-Forwarded-For: 203.0.113.${i + 1}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
        return { name, body, ...(await partialRequest(first.url, head, body.slice(0, -1))) };
      }),
    );
    await sleep(1000);
    first.child.kill('SIGTERM');
    await sleep(200);
    for (const knock of inFlight) knock.socket.write(knock.body.slice(-1));
    t.equal(await first.exited, 0, 'the stop finished: exit 0');
    t.ok(logRecords(first).some((r) => r.msg === 'stopped'));
    await Promise.all(inFlight.map((k) => k.closed));
    for (const knock of inFlight) {
      t.match(knock.received(), /^HTTP\/1\.1 202 /, `${knock.name}: the knock in flight was answered 202`);
      const cookie = /set-cookie: meet_wait=([^;]+)/i.exec(knock.received())?.[1] ?? null;
      const browser = new Browser(first, 'durable-stop');
      browser.setCookie(cookie);
      acknowledged.set(knock.name, browser);
    }

    const second = withAdminToken(await daemonFor(t, { dataDir }), first.adminToken);
    const listed = await waitingApi.list(second, 'durable-stop');
    t.equal(listed.status, 200);
    const names = new Set((listed.body as { name: string }[]).map((r: { name: string }) => r.name));
    for (const name of acknowledged.keys())
      t.ok(names.has(name), `${name}, acknowledged, is waiting after the restart`);
    for (const [name, browser] of acknowledged) {
      const again = new Browser(second, 'durable-stop');
      again.setCookie(browser.cookie);
      t.same((await again.poll()).body, { status: 'waiting' }, `${name}'s cookie still polls waiting`);
    }
  },
);

t.test('a daemon whose parent died exits after one SIGTERM', async (t) => {
  const dataDir = tempDataDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // The parent: starts the daemon with its standard output and error as pipes it reads, says the pid, then waits to be killed.
  const parentScript = `
    const { spawn } = require('node:child_process');
    const daemon = spawn(process.execPath, [${JSON.stringify(meetctl)}, 'serve'], {
      env: { PATH: process.env.PATH, SERVICE_DATA_DIR: ${JSON.stringify(dataDir)}, SERVICE_HTTP_ADDR: '127.0.0.1:0', SERVICE_SHUTDOWN_GRACE_SECS: '5', SERVICE_MEDIA: 'mesh' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    daemon.stdout.on('data', (chunk) => {
      out += chunk;
      if (/engine listening/.test(out)) { console.log('daemon ' + daemon.pid); out = ''; }
    });
    daemon.stderr.resume();
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['-e', parentScript], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '' },
  });
  let said = '';
  parent.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
  let pid = 0;
  await until(
    'the daemon listens',
    async () => ((pid = Number(/daemon (\d+)/.exec(said)?.[1] ?? 0)), pid > 0),
    120_000,
    50,
  );
  t.teardown(() => {
    if (processRuns(pid)) killIfStill(pid, 'node');
  });
  parent.kill('SIGKILL');
  await new Promise((resolve) => parent.once('exit', resolve));
  const started = Date.now();
  process.kill(pid, 'SIGTERM');
  // One signal only: the daemon must go by itself, before the stop timeout a supervisor would give it.
  while (processRuns(pid) && Date.now() - started < stopTimeoutSecs(5) * 1000 + 5000) await sleep(50);
  t.notOk(processRuns(pid), `gone after one SIGTERM (${Date.now() - started} ms)`);
});
