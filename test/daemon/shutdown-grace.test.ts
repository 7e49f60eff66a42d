import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { shutdownBackstopSecs, stopTimeoutSecs } from '../../src/daemon/shutdown.js';
import { daemonFor, logRecords } from '../helpers/api.js';
import { compatDaemonFor } from '../helpers/compat.js';
import type { Daemon } from '../helpers/daemon.js';
import { connectLive } from '../helpers/live.js';
import { createRoom, moderator } from '../helpers/waiting.js';

/**
 * A request that never ends by itself: its headers promise a body of 1000 bytes and only a
 * few arrive. Resolves once the server has the headers (the request is in flight).
 */
async function hangingRequest(base: string, path: string, contentType = 'application/json'): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${contentType}\r\nContent-Length: 1000\r\n\r\n{"name":`);
  await sleep(300);
  return { socket, received: () => received, closed };
}

/** SIGTERM, then the exit code and how long the process took to go. */
async function terminate(daemon: Daemon): Promise<{ code: number | string; ms: number }> {
  const started = Date.now();
  daemon.child.kill('SIGTERM');
  const code = await daemon.exited;
  return { code, ms: Date.now() - started };
}

t.test('a request that never finishes is cut after the grace; the daemon exits 0 well within the stop timeout', async (t) => {
  const grace = 1;
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
  const hanging = await hangingRequest(daemon.url, '/room/any/knock');
  const { code, ms } = await terminate(daemon);
  t.equal(code, 0, 'exit code 0');
  t.ok(ms >= grace * 1000 - 100, `the request had its grace (${ms} ms)`);
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `before a supervisor would SIGKILL (${ms} ms)`);
  await hanging.closed;
  t.pass('the hanging connection was closed by the daemon');
  const records = logRecords(daemon);
  t.ok(records.some((r) => r.msg === 'shutdown grace over: closing the connections still open' && r.graceSecs === grace), 'the cut is logged');
  t.ok(records.some((r) => r.msg === 'stopped'), 'and the stop finished (database closed), not the backstop');
  t.notOk(records.some((r) => /backstop/.test(String(r.msg))), 'the backstop did not fire');
});

t.test('a request in flight that completes within the grace is answered, and the stop does not wait for the rest of it', async (t) => {
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
});

t.test('a live socket whose peer never answers the close is cut after the grace', async (t) => {
  const grace = 1;
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: String(grace) } });
  await createRoom(t, daemon, { room_id: 'stuck', name: 'Stuck', waiting_room: 'off' });
  const mod = await moderator(daemon, 'stuck');
  const { client } = await connectLive(daemon, 'stuck', mod.session);
  // The client stops reading: the server's close frame is never answered (ws would wait 30 s).
  (client.socket as unknown as { _socket: Socket })._socket.pause();
  const { code, ms } = await terminate(daemon);
  t.equal(code, 0);
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `cut at the grace (${ms} ms), not after ws's 30 s close timeout`);
  t.ok(logRecords(daemon).some((r) => r.msg === 'stopped'), 'the stop finished, not the backstop');
});

t.test('the compat listener: a hanging meeting-API request is cut after the grace too', async (t) => {
  const grace = 1;
  const daemon = await compatDaemonFor(t, { SERVICE_SHUTDOWN_GRACE_SECS: String(grace), COMPAT_API_SHARED_SECRET: 'compat-secret-of-the-grace-test' });
  const hanging = await hangingRequest(daemon.compatUrl, '/confapi/api/create', 'application/x-www-form-urlencoded');
  const { code, ms } = await terminate(daemon);
  t.equal(code, 0);
  t.ok(ms >= grace * 1000 - 100, `the request had its grace (${ms} ms)`);
  t.ok(ms < stopTimeoutSecs(grace) * 1000, `cut at the grace (${ms} ms)`);
  t.ok(logRecords(daemon).some((r) => r.msg === 'stopped'), 'the stop finished, not the backstop');
  await hanging.closed;
});

t.test('without anything in flight the stop is immediate', async (t) => {
  const daemon = await daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: '30' } });
  t.equal((await fetch(`${daemon.url}/healthz`)).status, 200);
  const { code, ms } = await terminate(daemon);
  t.equal(code, 0);
  t.ok(ms < 10_000, `${ms} ms, the grace (30 s) is an upper bound, not a wait`);
});

t.test('a bad grace is refused at start, naming the variable', async (t) => {
  for (const value of ['-1', '1.5', 'ten', '3601']) {
    await t.rejects(daemonFor(t, { env: { SERVICE_SHUTDOWN_GRACE_SECS: value } }), /SERVICE_SHUTDOWN_GRACE_SECS/, `SERVICE_SHUTDOWN_GRACE_SECS=${value}`);
  }
});

t.test('a stop that hangs even after the cut: the backstop exits 0 before the supervisor would kill', async (t) => {
  // A real process running stopOnSignals around a daemon whose stop never ends.
  const run = new URL('../../dist/daemon/run.js', import.meta.url).href;
  const script = `
    import { pino } from 'pino';
    import { stopOnSignals } from ${JSON.stringify(run)};
    stopOnSignals({ url: '', log: pino(), shutdownGraceSecs: 0, stop: () => new Promise(() => {}) });
    setInterval(() => {}, 1000);
    console.log('armed');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../../', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  while (!out.includes('armed')) await sleep(25);
  const started = Date.now();
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const ms = Date.now() - started;
  t.equal(code, 0, 'exit 0 anyway');
  t.ok(ms >= shutdownBackstopSecs * 1000 - 100 && ms < stopTimeoutSecs(0) * 1000, `after the backstop, before the stop timeout (${ms} ms)`);
  t.match(out, /stop still unfinished after the grace and the backstop/);
});

t.test('SIGHUP (the unit\'s ExecReload) does not stop a daemon without a tenants file', async (t) => {
  const daemon = await daemonFor(t);
  daemon.child.kill('SIGHUP');
  await sleep(500);
  t.equal(daemon.child.exitCode, null, 'still running');
  t.equal((await fetch(`${daemon.url}/readyz`)).status, 200);
  t.ok(logRecords(daemon).some((r) => /^SIGHUP/.test(String(r.msg))), 'the signal is logged');
});
