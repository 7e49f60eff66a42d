import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { stopTimeoutSecs } from '../../../src/platform/stop-budget.js';
import { daemonFor, logRecords } from '../../helpers/api.js';
import { compatDaemonFor } from '../../helpers/compat.js';
import { connectLive } from '../../helpers/live.js';
import { slowRequest as hangingRequest, signalled } from '../../helpers/slow-client.js';
import { createRoom, moderator } from '../../helpers/waiting.js';

// Every case runs its own daemon process and mostly waits on it: two at a time.
t.jobs = 2;
t.test('a request that never finishes: at the grace the daemon logs what was open, cuts it and exits 1', async (t) => {
  const grace = 1;
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
  const hanging = await hangingRequest(daemon.url, '/room/any/knock');
  const { code, ms } = await signalled(daemon);
  t.equal(code, 1, 'exit code 1: the stop did not finish');
  t.ok(ms >= grace * 1000 - 100, `the request had its grace (${ms} ms)`);
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `before a supervisor would SIGKILL (${ms} ms)`);
  await hanging.closed;
  t.pass('the hanging connection was closed by the daemon');
  const records = logRecords(daemon);
  const over = records.find((r) => r.msg === 'shutdown grace over: exiting with work still open');
  t.match(
    over,
    { level: 50, graceSecs: grace, open: { engine: { requests: 1, connections: 1, liveSockets: 0 } } },
    'the forced exit names what was open, as counts, as an error',
  );
  t.notOk(
    records.some((r) => r.msg === 'stopped'),
    'no "stopped": the stop was cut, not finished',
  );
});

t.test(
  'a request in flight that completes within the grace is answered, and the stop does not wait for the rest of it',
  async (t) => {
    const grace = 20;
    const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
    const inFlight = await hangingRequest(daemon.url, '/room/any/knock');
    const started = Date.now();
    daemon.child.kill('SIGTERM');
    await sleep(300);
    // New connections are refused at once...
    const refused = await fetch(`${daemon.url}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    t.ok(refused === 'refused' || refused === 503, `no new work once stopping (${refused})`);
    // ...while the request already in flight gets its body and its answer.
    inFlight.socket.write(`"Pupil"}${' '.repeat(1000 - '{"name":"Pupil"}'.length)}`);
    const code = await daemon.exited;
    const ms = Date.now() - started;
    await inFlight.closed;
    t.match(inFlight.received(), /^HTTP\/1\.1 \d{3} /, `answered: ${inFlight.received().split('\r\n')[0]}`);
    t.equal(code, 0);
    t.ok(ms < grace * 1000, `exited once nothing was in flight (${ms} ms), not after the ${grace} s grace`);
  },
);

t.test(
  "a live socket whose peer never answers the close is cut at the grace (exit 1), not after ws's 30 s close timeout",
  async (t) => {
    const grace = 1;
    const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
    await createRoom(t, daemon, { room_id: 'stuck', name: 'Stuck', waiting_room: 'off' });
    const mod = await moderator(daemon, 'stuck');
    const { client } = await connectLive(daemon, 'stuck', mod.session);
    // The client stops reading: the server's close frame is never answered (ws would wait 30 s).
    (client.socket as unknown as { _socket: Socket })._socket.pause();
    const { code, ms } = await signalled(daemon);
    t.equal(code, 1);
    t.ok(ms < stopTimeoutSecs(grace) * 1000, `cut at the grace (${ms} ms), not after ws's 30 s close timeout`);
    t.match(
      logRecords(daemon).find((r) => r.msg === 'shutdown grace over: exiting with work still open'),
      { open: { engine: { liveSockets: 1 } } },
      'the socket is named as open',
    );
  },
);

t.test('the compat listener: a hanging meeting-API request is cut at the grace too', async (t) => {
  const grace = 1;
  const daemon = await compatDaemonFor(t, {
    SERVICE_SHUTDOWN_GRACE_SECS: String(grace),
    COMPAT_API_SHARED_SECRET: 'compat-secret-of-the-grace-test',
  });
  const hanging = await hangingRequest(daemon.compatUrl, '/confapi/api/create', 'application/x-www-form-urlencoded');
  const { code, ms } = await signalled(daemon);
  t.equal(code, 1);
  t.ok(ms >= grace * 1000 - 100, `the request had its grace (${ms} ms)`);
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `cut at the grace (${ms} ms)`);
  t.match(
    logRecords(daemon).find((r) => r.msg === 'shutdown grace over: exiting with work still open'),
    { open: { engine: { requests: 0 }, compat: { requests: 1 } } },
    'the compat request is named as open',
  );
  await hanging.closed;
});

// One daemon for both: SIGHUP must leave it running (the default action would end it), and the
// SIGTERM that follows finds nothing in flight.
t.test(
  "SIGHUP (the unit's ExecReload) does not stop a daemon without a tenants file; then, with nothing in flight, SIGTERM's stop is immediate",
  async (t) => {
    const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: '30' } });
    daemon.child.kill('SIGHUP');
    await sleep(500);
    t.equal(daemon.child.exitCode, null, 'still running after SIGHUP');
    t.equal((await fetch(`${daemon.url}/readyz`)).status, 200);
    t.ok(
      logRecords(daemon).some((r) => /^SIGHUP/.test(String(r.msg))),
      'the signal is logged',
    );
    t.equal((await fetch(`${daemon.url}/healthz`)).status, 200);
    const { code, ms } = await signalled(daemon);
    t.equal(code, 0);
    t.ok(ms < 10_000, `${ms} ms, the grace (30 s) is an upper bound, not a wait`);
  },
);

t.test('a bad grace is refused at start, naming the variable', async (t) => {
  // One real start proves the refusal reaches the process (it never listens); the settings
  // loader, which that start runs, proves the other values without a process each.
  await t.rejects(
    daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: 'ten' } }),
    /SERVICE_SHUTDOWN_GRACE_SECS/,
    'SERVICE_SHUTDOWN_GRACE_SECS=ten',
  );
  for (const value of ['-1', '1.5', '3601']) {
    t.throws(
      () => loadConfig({ env: { SERVICE_SHUTDOWN_GRACE_SECS: value } }),
      { name: 'ConfigError', message: /SERVICE_SHUTDOWN_GRACE_SECS/ },
      `SERVICE_SHUTDOWN_GRACE_SECS=${value}`,
    );
  }
});

t.test(
  'a stop that never finishes, with a handle that keeps the process alive: the deadline still exits 1',
  async (t) => {
    // A real process running stopOnSignals around a daemon whose stop never ends.
    const run = new URL('../../../dist/daemon/run.js', import.meta.url).href;
    const script = `
    import { pino } from 'pino';
    import { stopOnSignals } from ${JSON.stringify(run)};
    let aborted = false;
    stopOnSignals({
      url: '', log: pino(), shutdownGraceSecs: 1, stop: () => new Promise(() => {}),
      openWork: () => ({ engine: { connections: 3, requests: 2, liveSockets: 1 } }),
      abort: () => { aborted = true; },
    });
    process.on('exit', () => console.log(aborted ? 'aborted' : 'not aborted'));
    setInterval(() => {}, 1000);
    console.log('armed');
  `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => void child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    while (!out.includes('armed')) await sleep(25);
    const started = Date.now();
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const ms = Date.now() - started;
    t.equal(code, 1, 'exit 1');
    t.ok(ms >= 900 && ms < stopTimeoutSecs(1) * 1000, `at the grace, before the stop timeout (${ms} ms)`);
    t.match(
      out,
      /"open":\{"engine":\{"connections":3,"requests":2,"liveSockets":1\}\},"msg":"shutdown grace over: exiting with work still open"/,
    );
    t.match(out, /aborted\n/, 'the connections were cut and the database closed before the exit');
  },
);
