// Issue 28 point 1 against a real spawned daemon: 20 members of one open room each send 1,000
// media toggles as fast as a socket takes them. /healthz, probed from a worker thread (its own
// event loop, so the flood clients of this process do not delay its clock), keeps answering
// throughout, and a knock in another room is accepted meanwhile. Nothing here asserts a time: a
// probe that gets no answer within 15 s, or a knock none within 10 s, fails as a missing answer,
// which only a stalled event loop causes. The times measured are printed as a comment; on 2 cores
// beside CI's other leg a p95 bound failed at 485 ms, 872 ms and 1.2 s while the flood was cut as
// it should be, so a bound on them measured the machine, not the daemon.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import type { ServerMessage } from '../../../src/protocol/live.js';
import { call, daemonFor, type Tap } from '../../helpers/api.js';
import { liveUrl, pause, textOf } from '../../helpers/live.js';
import { walCommits } from '../../helpers/wal.js';
import { admittedSession, Browser, createRoom } from '../../helpers/waiting.js';

// protocol/live.ts's floodCloseCode, the WebSocket's "policy violation"; written out so this
// file also runs against a build from before the limit (to see it fail there).
const floodCloseCode = 1008;
const members = 20;
const toggles = 1_000;

/** GET /healthz one after another, every 20 ms, until told to stop; each answer's time and status. */
const probeSource = `
const { parentPort, workerData } = require('node:worker_threads');
let stop = false;
parentPort.on('message', () => (stop = true));
(async () => {
  const samples = [];
  while (!stop) {
    const started = performance.now();
    let status = -1;
    try {
      const response = await fetch(workerData.url, { signal: AbortSignal.timeout(15000) });
      status = response.status;
      await response.arrayBuffer();
    } catch {}
    samples.push({ ms: performance.now() - started, status });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage(samples);
})();
`;

interface Sample {
  readonly ms: number;
  readonly status: number;
}

function startProbe(t: Tap, url: string): { stop(): Promise<Sample[]> } {
  const worker = new Worker(probeSource, { eval: true, workerData: { url } });
  t.teardown(() => worker.terminate());
  const done = new Promise<Sample[]>((resolve, reject) => {
    worker.once('message', (samples: Sample[]) => resolve(samples));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

interface Member {
  readonly socket: WebSocket;
  readonly errors: string[];
  readonly closed: Promise<number>;
}

async function joinLive(url: string): Promise<Member> {
  const socket = new WebSocket(url);
  const errors: string[] = [];
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data) => {
      const message = JSON.parse(textOf(data)) as ServerMessage;
      if (message.type === 'welcome') resolve();
      if (message.type === 'error') errors.push(message.code);
    });
  });
  return { socket, errors, closed };
}

/** CPU time the process has used (user + system), in ms: what the flood cost the daemon, for the comment. */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Infinity;

t.test(`${members} members x ${toggles} toggles: /healthz answers and another room takes a knock`, async (t) => {
  const d = await daemonFor(t);
  await createRoom(t, d, { room_id: 'flood', name: 'Flood', waiting_room: 'off' });
  await createRoom(t, d, { room_id: 'quiet', name: 'Quiet', waiting_room: 'all' });
  const joined: Member[] = [];
  for (let i = 0; i < members; i++) {
    const name = `Member ${i + 1}`;
    const started = await call(d, '/room/flood/start', { method: 'POST', token: null, json: { name } });
    joined.push(await joinLive(liveUrl(d, 'flood', admittedSession(started, name).session)));
  }
  t.teardown(() => joined.forEach((m) => m.socket.terminate()));

  const probe = startProbe(t, `${d.url}/healthz`);
  await pause(300);
  const cpuBefore = cpuMs(d.child.pid);
  const walBefore = walCommits(join(d.dataDir, 'meet.sqlite'));
  const floodStarted = Date.now();
  const frames = [true, false].map((on) => JSON.stringify({ type: 'state', audio: false, video: on, screen: false }));
  for (const { socket } of joined) {
    for (let i = 0; i < toggles; i++) socket.send(frames[i % 2]!);
  }
  const knockStarted = Date.now();
  // A knock that times out (10 s) is a failure to assert, not an error that ends the test early.
  const knock = await new Browser(d, 'quiet')
    .knock({ name: 'Next door' })
    .catch((err: unknown) => ({ status: String(err) }));
  const knockMs = Date.now() - knockStarted;
  // The flood is over when every socket is closed; today's code closes none, so 10 s at most.
  await Promise.race([Promise.all(joined.map((m) => m.closed)), pause(10_000)]);
  // At least 3 s of probes: on a machine CI loads beside this file (the other leg, the failover
  // lane) a probe can take a few hundred ms, and 1 s left room for fewer than the 10 asked.
  await pause(Math.max(0, 3_000 - (Date.now() - floodStarted)));
  const samples = await probe.stop();
  const cpu = cpuMs(d.child.pid) - cpuBefore;
  const walAfter = walCommits(join(d.dataDir, 'meet.sqlite'));

  const times = samples.map((s) => s.ms).sort((a, b) => a - b);
  const p95 = percentile(times, 0.95);
  const max = times.at(-1) ?? Infinity;
  t.comment(
    `${samples.length} probes: p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms; knock ${knockMs} ms; daemon CPU ${cpu} ms`,
  );
  t.ok(
    samples.every((s) => s.status === 200),
    'every probe answered 200',
  );
  t.ok(samples.length >= 10, `${samples.length} probes were answered while the flood lasted`);
  t.equal(knock.status, 202, 'a knock in another room is accepted during the flood');

  // Media intervals are written with the room's flushes, in groups: a few commits, not one per
  // toggle (20,000 here). The log must not have been restarted meanwhile for the count to hold.
  t.equal(walAfter.generation, walBefore.generation, 'the write-ahead log was not restarted during the flood');
  t.ok(
    walAfter.commits - walBefore.commits <= 50,
    `${walAfter.commits - walBefore.commits} durable commits for ${members * toggles} toggles`,
  );

  // What cut the flood: each socket was told once, then closed as no page would behave.
  const codes = await Promise.race([Promise.all(joined.map((m) => m.closed)), pause(2_000).then(() => [])]);
  t.same([...new Set(codes)], [floodCloseCode], `every flooding socket is closed with ${floodCloseCode}`);
  t.ok(
    joined.every((m) => m.errors.filter((code) => code === 'rate_limited').length === 1),
    'each was told rate_limited once before',
  );
});

t.test('binary frames count against the allowance as well: told once, then closed', async (t) => {
  const d = await daemonFor(t);
  await createRoom(t, d, { room_id: 'flood', name: 'Flood', waiting_room: 'off' });
  const started = await call(d, '/room/flood/start', { method: 'POST', token: null, json: { name: 'Binary' } });
  const member = await joinLive(liveUrl(d, 'flood', admittedSession(started, 'Binary').session));
  t.teardown(() => member.socket.terminate());
  // The message window is 1,000 per 10 s: at 2,001 the socket is closed.
  for (let i = 0; i < 2_500; i++) member.socket.send(Buffer.from([1, 2, 3]));
  const code = await Promise.race([member.closed, pause(10_000).then(() => 'still open')]);
  t.equal(code, floodCloseCode, `closed with ${floodCloseCode}`);
  t.equal(
    member.errors.filter((c) => c === 'invalid_message').length,
    1_000,
    'each binary frame within the window is refused in words',
  );
  t.same(
    member.errors.filter((c) => c !== 'invalid_message'),
    ['rate_limited'],
    'then rate_limited once, and silence until the close',
  );
});
