/**
 * `npm run bench`: the issue-6 benchmark. Starts the bare-Fastify baseline (no logger) and
 * `meetctl serve` daemons at their default configuration on loopback with temporary data
 * directories, runs every scenario for a fixed short time after a warm-up (autocannon, in this
 * process), prints one table and writes bench/results.json. No scenario is a test; nothing here
 * asserts a timing. --log-level sets the daemons' SERVICE_LOG_LEVEL (default: not set, so info).
 *
 *   npm run bench -- [--duration 8] [--warmup 2] [--connections 10] [--log-level warn]
 *                    [--open 1000,10000,50000] [--only list,poll,knock,api,moderators] [--wait-quiet 60]
 *                    [--cpu-prof] [--daemon-env NAME=VALUE ...] [--meetctl path/to/bin/meetctl.js] [--keep]
 *                    [--sfu-steps 5,10,20,30,40,60,80,100] [--sfu-window 10]
 *
 * The baseline always runs (first and last). --cpu-prof writes bench/profiles/<server>.cpuprofile; `node bench/dist/profile.js` then shows
 * where each scenario's server time went. --meetctl serves another build (an A/B comparison).
 * `--only sfu` (not in the default list: it needs Janus and takes a few minutes) is the class-size
 * load test of bench/lib/sfu.ts: one publisher, N subscribers per --sfu-steps, --sfu-window s each.
 * `--only cluster` (not in the default list: it needs nats-server and PostgreSQL) starts three nodes
 * and measures the CPU per poll with the polls sent to the room's owner and spread over the three,
 * then a live message relayed from a non-owner node to its room's owner (bench/lib/live-relay.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpus, freemem, totalmem, tmpdir } from 'node:os';
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Client, cookieFrom, inParallel } from './lib/http.js';
import { Keeper, sleep, type Waiter } from './lib/keeper.js';
import { measureKnockFloor, type KnockFloor } from './lib/knock-floor.js';
import { moderatorScenario, type ModeratorFigures } from './lib/moderators.js';
import { liveRelayScenario, roomOwner, startNatsServer, type LiveRelayFigures } from './lib/live-relay.js';
import {
  measure,
  measureAtEqualRate,
  measurePaired,
  measureRounds,
  warmOnly,
  type ScenarioSpec,
  type Timing,
} from './lib/load.js';
import { memoryOf, othersCpuPct, RssSampler } from './lib/proc.js';
import { startBenchPostgres, type BenchPostgres } from './lib/postgres-rows.js';
import { defaultSfuSteps, sfuDaemonEnv, sfuScenario, sfuSummary, sfuTable, type SfuFigures } from './lib/sfu.js';
import {
  checkTargets,
  clusterPollFigures,
  clusterPollLine,
  clusterPollRows,
  cpuPerRequestUs,
  cpuRatioOf,
  mean,
  overall,
  percent,
  ratio,
  referenceOf,
  resultTable,
  type EqualRateFigures,
  type Measurement,
  type TargetFacts,
} from './lib/report.js';
import {
  freePort,
  repoRoot,
  startBaseline,
  startDaemon,
  type Daemon,
  type ProcessSettings,
  type Server,
} from './lib/servers.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'log-level': { type: 'string' },
    open: { type: 'string', default: '1000,10000,50000' },
    only: { type: 'string', default: 'list,poll,knock,api,moderators' },
    'cpu-prof': { type: 'boolean', default: false },
    'daemon-env': { type: 'string', multiple: true, default: [] },
    keep: { type: 'boolean', default: false },
    meetctl: { type: 'string', default: join(repoRoot, 'bin', 'meetctl.js') },
    'wait-quiet': { type: 'string', default: '60' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results.json') },
    'sfu-steps': { type: 'string', default: defaultSfuSteps.join(',') },
    'sfu-window': { type: 'string', default: '10' },
  },
});

const timing: Timing = {
  durationSec: Number(args.duration),
  warmupSec: Number(args.warmup),
  connections: Number(args.connections),
};
const openCounts = args.open
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const only = new Set(args.only.split(','));
const daemonEnv = Object.fromEntries(
  args['daemon-env'].map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const rooms = 100;
const listSize = 1000;
const tenantCount = 1000;
const existingMeetings = 1000;
const setupConcurrency = 32;

const startedAt = Date.now();
const log = (message: string) =>
  console.log(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${message}`);

const workDir = mkdtempSync(join(tmpdir(), 'meet-bench-'));
/** Polls never touch the disk; tmpfs only makes the 50,000 setup knocks fast. Knocks and the meeting API run on disk. */
const fastDir = (() => {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return mkdtempSync('/dev/shm/meet-bench-');
  } catch {
    return null;
  }
})();
const cpuProfDir = args['cpu-prof'] ? join(repoRoot, 'bench', 'profiles') : null;
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
const settings: ProcessSettings = { logLevel: args['log-level'] ?? null, cpuProfDir, meetctl: args.meetctl };
/**
 * The poll daemon's SERVICE_WAITING_CLOSED_WINDOW_SECS, and how often the keeper polls each
 * request (a quarter under it). At the default 6 s, 50,000 open requests need 11,000 keep-alive
 * polls a second during the setup knocks, more than a loaded 2-core machine answers beside them.
 */
const pollClosedWindowSecs = 30;
const pollKeeperPeriodMs = pollClosedWindowSecs * 750;

const measurements: Measurement[] = [];
const notes: string[] = [];
const facts: { -readonly [K in keyof TargetFacts]: TargetFacts[K] } = {
  rssAddedBy10kMb: null,
  rssAddedBy50kMb: null,
  knocksAcknowledged: null,
  knocksOnDisk: null,
};
const memory: Record<string, number | null> = {};
const servers: Server[] = [];

function record(m: Measurement): void {
  measurements.push(m);
  const clientBound = m.clientCpuPct > 90 ? ', load generator CPU-bound' : '';
  const contended = (m.otherCpuPct ?? 0) > 25;
  if (contended)
    notes.push(
      `${m.label}: other programs took ${m.otherCpuPct!.toFixed(0)}% of a core during the window; its figure is low by about that much.`,
    );
  log(
    `${m.label}: ${m.requestsPerSec.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms, ${m.errors} errors, ` +
      `CPU: server ${m.serverCpuPct?.toFixed(0) ?? '?'}% (main thread ${m.serverMainPct?.toFixed(0) ?? '?'}%, kernel ${m.serverSysPct?.toFixed(0) ?? '?'}%), client ${m.clientCpuPct.toFixed(0)}%${clientBound}, others ${m.otherCpuPct?.toFixed(0) ?? '?'}%`,
  );
}

let quietBudgetMs = Number(args['wait-quiet']) * 1000;

/**
 * Before each scenario: wait while other programs take more than a quarter of a core (this
 * machine may be shared), for at most --wait-quiet seconds over the whole run.
 */
async function quietMoment(label: string): Promise<void> {
  const pids = servers.filter((s) => s.life.exitedAtMs === null).map((s) => s.pid);
  let logged = false;
  for (;;) {
    const t0 = Date.now();
    const others = await othersCpuPct(pids, 500);
    if (others === null || others < 25 || quietBudgetMs <= 0) return;
    quietBudgetMs -= Date.now() - t0;
    if (!logged)
      log(`waiting for a quieter moment before "${label}": other programs take ${others.toFixed(0)}% of a core`);
    logged = true;
  }
}

/** The baseline server, once started: every scenario is measured in alternation with it. */
let baselineServer: Server | null = null;

async function measured(spec: ScenarioSpec, sampler: RssSampler | null, paired = true): Promise<Measurement> {
  await quietMoment(spec.label);
  if (!paired || !baselineServer || spec.server === 'baseline') return measure(spec, timing, sampler);
  return measurePaired(spec, baselineSpec(baselineServer, 'reference', 'baseline beside a scenario'), timing, sampler);
}

/** A short baseline window on its own, for a scenario that cannot be cut into slices (the knock's). */
async function referenceWindow(): Promise<Measurement | null> {
  if (!baselineServer) return null;
  return measure(
    baselineSpec(baselineServer, 'reference', 'baseline beside a scenario'),
    { ...timing, warmupSec: 0, durationSec: 2 },
    null,
  );
}

const rssMb = (pid: number) => {
  const m = memoryOf(pid);
  return m ? m.rssKb / 1024 : null;
};

// ---------------------------------------------------------------- baseline

function baselineSpec(server: Server, id: string, label: string): ScenarioSpec {
  let i = 0;
  return {
    id,
    label,
    server: 'baseline',
    pid: server.pid,
    url: server.url,
    // Same request shape as a poll (a rotating cookie), so the load generator does the same work.
    next: (request) => ({
      ...request,
      path: '/baseline',
      headers: { cookie: `meet_wait=${(i++ % 50_000).toString().padStart(43, 'x')}` },
    }),
  };
}

async function baselineRun(server: Server, sampler: RssSampler, label: string, id: string): Promise<void> {
  record(await measured(baselineSpec(server, id, label), sampler));
}

// ---------------------------------------------------------------- engine setup helpers

async function createRooms(client: Client, daemon: Daemon, ids: readonly string[]): Promise<void> {
  await inParallel(ids.length, 8, async (i) => {
    const answer = await client.request('POST', '/api/rooms', {
      json: {
        room_id: ids[i],
        name: `Class ${ids[i]}`,
        waiting_room: 'all',
        waiting_room_mode: 'approval',
        waiting_room_timeout_secs: 3600,
      },
      headers: { authorization: `Bearer ${daemon.adminToken}` },
    });
    if (answer.status !== 201) throw new Error(`creating room ${ids[i]}: ${answer.status} ${answer.text}`);
  });
}

/**
 * The address knock `n` comes from, told to the daemon as its trusted proxy (nginx) would: each
 * pupil is a client of her own, as in a class, so the per-client limits (100 waiting, 120 a
 * minute per address and room) are counted but never reached.
 */
const pupilAddress = (n: number) => `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** `count` knocks as fast as the daemon takes them, spread over `roomIds`; each new request goes to the keeper. */
async function knockMany(
  client: Client,
  keeper: Keeper,
  roomIds: readonly string[],
  count: number,
  offset: number,
): Promise<void> {
  await inParallel(count, setupConcurrency, async (k) => {
    await keeper.whileBehind();
    const i = offset + k;
    const room = roomIds[i % roomIds.length]!;
    const answer = await client.request('POST', `/room/${room}/knock`, {
      json: { name: `Pupil ${i}`, note: '' },
      headers: { 'x-forwarded-for': pupilAddress(i) },
    });
    const secret = cookieFrom(answer.headers['set-cookie'], 'meet_wait');
    if (answer.status !== 202 || !secret) throw new Error(`knock ${i} in ${room}: ${answer.status} ${answer.text}`);
    keeper.add(`/room/${room}/waiting`, `meet_wait=${secret}`);
  });
}

// ---------------------------------------------------------------- waiting room: moderator list, then polls (tmpfs daemon)

async function waitingScenarios(): Promise<void> {
  const dataDir = join(fastDir ?? workDir, 'waiting');
  if (!fastDir)
    notes.push('/dev/shm is not writable: the poll daemon ran on disk, so its 50,000 setup knocks were slow.');
  // The only setting beyond the required ones: a longer closed window, so that the keeper needs fewer polls.
  const daemon = await startDaemon('daemon-waiting', settings, {
    dataDir,
    workDir,
    env: { SERVICE_WAITING_CLOSED_WINDOW_SECS: String(pollClosedWindowSecs), ...daemonEnv },
  });
  servers.push(daemon);
  const sampler = new RssSampler(daemon.pid).start();
  const client = new Client(daemon.url, 64);
  const pollRooms = Array.from({ length: rooms }, (_, i) => `poll-${String(i).padStart(3, '0')}`);
  await createRooms(client, daemon, [...pollRooms, 'list-room']);
  log(`daemon-waiting (data on ${fastDir ? 'tmpfs' : 'disk'}) ready, ${rooms + 1} rooms`);

  if (only.has('list')) {
    // The moderator enters with a moderator link; 1,000 people knock and keep polling every 3 s as their pages do.
    const link = await client.request('POST', '/api/rooms/list-room/links', {
      json: { role: 'moderator' },
      headers: { authorization: `Bearer ${daemon.adminToken}` },
    });
    const t = new URL((JSON.parse(link.text) as { url: string }).url, daemon.url).searchParams.get('t');
    const started = await client.request('POST', '/room/list-room/start', { json: { name: 'Teacher', t } });
    const session = (JSON.parse(started.text) as { session?: string }).session;
    if (!session) throw new Error(`moderator did not enter: ${started.status} ${started.text}`);
    const keeper = new Keeper(daemon.url).start();
    await knockMany(client, keeper, ['list-room'], listSize, 0);
    const listed = await client.request('GET', '/room/list-room/waiting-list', {
      headers: { authorization: `Bearer ${session}` },
    });
    const size = (JSON.parse(listed.text) as unknown[]).length;
    if (size !== listSize)
      notes.push(`moderator list: the list held ${size} requests instead of ${listSize} before the scenario.`);
    const header = { authorization: `Bearer ${session}` };
    record(
      await measured(
        {
          id: 'list-1k',
          label: `moderator list, ${listSize.toLocaleString('en')} waiting`,
          server: daemon.name,
          pid: daemon.pid,
          url: daemon.url,
          next: (request) => ({ ...request, path: '/room/list-room/waiting-list', headers: header }),
          notes: [
            'the 1,000 waiting people keep polling (each every 3 s, ~330 req/s) during the scenario, as their pages would',
          ],
        },
        sampler,
      ),
    );
    await keeper.stop();
    if (keeper.lost > 0)
      notes.push(
        `moderator list: ${keeper.lost} of the ${listSize} waiting requests were lost (swept) during the scenario.`,
      );
    // They leave (Leave button), so the poll scenarios start from nobody waiting.
    await inParallel(keeper.waiters.length, setupConcurrency, async (i) => {
      const w = keeper.waiters[i]!;
      await client.request('DELETE', w.path, { headers: { cookie: w.cookieHeader } });
    });
  }

  if (only.has('poll')) {
    // The reference is read warm: under load a daemon's young heap grows whatever it holds, and
    // that growth is not what open requests cost. So polls with a cookie naming nothing (404) first.
    await warmOnly(
      {
        id: 'warm',
        label: 'warm-up',
        server: daemon.name,
        pid: daemon.pid,
        url: daemon.url,
        next: (request) => ({
          ...request,
          path: `/room/${pollRooms[0]}/waiting`,
          headers: { cookie: `meet_wait=${'x'.repeat(43)}` },
        }),
      },
      timing.connections,
      timing.warmupSec + timing.durationSec / 2,
    );
    await sleep(1500);
    memory.waitingDaemonRssAt0OpenMb = rssMb(daemon.pid);
    // Each request kept alive by a poll every 22.5 s, under the daemon's 30 s closed window: 50,000
    // every 2 s (as pages poll) would be 25,000 polls/s, more than one core answers, and every 4.5 s
    // under the default 6 s still 11,000 a second beside the setup knocks.
    const keeper = new Keeper(daemon.url, pollKeeperPeriodMs).start();
    let open = 0;

    for (const target of openCounts) {
      const t0 = Date.now();
      try {
        await knockMany(client, keeper, pollRooms, target - open, open);
      } catch (err) {
        notes.push(`poll, ${target.toLocaleString('en')} open: not measured: ${(err as Error).message}`);
        log(`poll, ${target.toLocaleString('en')} open: setup failed: ${(err as Error).message}`);
        break;
      }
      open = target;
      log(
        `${open.toLocaleString('en')} open waiting requests (${((Date.now() - t0) / 1000).toFixed(1)} s of knocks), ${keeper.lost} lost so far`,
      );
      await sleep(1000);
      memory[`waitingDaemonRssAt${target}OpenMb`] = rssMb(daemon.pid);
      if (target === 10_000) {
        const before = memory.waitingDaemonRssAt0OpenMb ?? null;
        const after = memory.waitingDaemonRssAt10000OpenMb ?? null;
        facts.rssAddedBy10kMb = before !== null && after !== null ? after - before : null;
      }
      if (target === 50_000) {
        const before = memory.waitingDaemonRssAt0OpenMb ?? null;
        const after = memory.waitingDaemonRssAt50000OpenMb ?? null;
        facts.rssAddedBy50kMb = before !== null && after !== null ? after - before : null;
      }
      // The keeper keeps running: while the scenario's own rotation polls everyone often enough it has
      // nothing to do; when it does not, the keeper's polls keep the population alive and are reported.
      const lostBefore = keeper.lost;
      const keeperPollsBefore = keeper.polls;
      const keeperT0 = Date.now();
      const id = `poll-${target >= 1000 ? `${target / 1000}k` : target}`;
      const scenarioNotes = [`${rooms} rooms, each request polled with its own cookie in round robin`];
      const spec: ScenarioSpec = {
        id,
        label: `poll, ${target.toLocaleString('en')} open`,
        server: daemon.name,
        pid: daemon.pid,
        url: daemon.url,
        next: (request, context) => {
          const w = keeper.next();
          context.waiter = w;
          return { ...request, path: w.path, headers: { cookie: w.cookieHeader } };
        },
        check: (status, body, _headers, context) => {
          if (status === 404) keeper.markLost(context.waiter as Waiter);
          return status === 200 && body.includes('"waiting"');
        },
        notes: scenarioNotes,
      };
      const full = await measured(spec, sampler);
      // The CPU comparison at one offered load for both, a little over half of what the slower side answered.
      const rate = Math.floor(0.6 * Math.min(full.requestsPerSec, full.referenceRps ?? full.requestsPerSec));
      const equalRate = baselineServer
        ? await measureAtEqualRate(
            spec,
            baselineSpec(baselineServer, 'reference', 'baseline beside a scenario'),
            timing,
            rate,
          )
        : undefined;
      if (equalRate)
        scenarioNotes.push(
          `CPU per request compared at an equal offered load of ${rate} req/s in ${equalRate.rounds} alternating rounds: median ${equalRate.cpuUs.toFixed(1)} µs vs the baseline's ${equalRate.referenceCpuUs.toFixed(1)} µs; ` +
            `median of the rounds' ratios ${equalRate.ratio?.toFixed(2)}× (rounds from ${equalRate.spread?.[0].toFixed(2)}× to ${equalRate.spread?.[1].toFixed(2)}×)`,
        );
      const m = equalRate ? { ...full, equalRate } : full;
      const keeperRate = ((keeper.polls - keeperPollsBefore) / (Date.now() - keeperT0)) * 1000;
      if (keeperRate >= 1)
        scenarioNotes.push(
          `the keeper added ${keeperRate.toFixed(0)} polls/s (not counted in req/s) to keep every request alive`,
        );
      // A request swept during the scenario answers 404 from then on: it shows in the errors.
      await sleep(200);
      if (keeper.lost > lostBefore)
        scenarioNotes.push(`${keeper.lost - lostBefore} requests lost (closed by the sweep)`);
      record({ ...m, notes: scenarioNotes });
      if (target === 10_000) {
        // Issue 36 point 4: the same polls through 50 connections (what a school's proxy opens),
        // the baseline windows beside it under 50 connections too.
        const wide = await measured(
          {
            ...spec,
            id: 'poll-10k-50c',
            label: 'poll, 10,000 open, 50 connections',
            notes: [...scenarioNotes.slice(0, 1), '50 connections for the poll and for the baseline beside it'],
            timing: { connections: 50 },
          },
          sampler,
        );
        record(wide);
      }
    }
    await keeper.stop();
    if (keeper.lost > 0) {
      notes.push(
        `poll: ${keeper.lost} waiting requests were closed by the engine's ${pollClosedWindowSecs} s closed-window sweep because the bench could not poll them in time ` +
          `(N open requests need N/${pollKeeperPeriodMs / 1000} keeper polls per second just to stay alive).`,
      );
    }
  }
  client.close();
  sampler.stop();
  await daemon.stop();
}

// ---------------------------------------------------------------- knock bursts (disk daemon, then SIGKILL and count)

/** The run's PostgreSQL, started when a PostgreSQL row is asked for; null: not (yet), or not installed. */
let benchPostgres: BenchPostgres | null = null;

async function knockScenario(store: 'sqlite' | 'postgres' = 'sqlite'): Promise<void> {
  const pg = store === 'postgres' ? benchPostgres : null;
  if (store === 'postgres' && !pg) return;
  const suffix = pg ? '-pg' : '';
  const dataDir = join(workDir, `knock${suffix}`);
  const env = pg ? { ...daemonEnv, SERVICE_DATABASE_URL: await pg.database('bench_knock') } : daemonEnv;
  const daemon = await startDaemon(`daemon-knock${suffix}`, settings, { dataDir, workDir, env });
  servers.push(daemon);
  const sampler = new RssSampler(daemon.pid).start();
  const client = new Client(daemon.url, 8);
  const knockRooms = Array.from({ length: rooms }, (_, i) => `knock-${String(i).padStart(3, '0')}`);
  await createRooms(client, daemon, knockRooms);
  client.close();
  log(`daemon-knock${suffix} (data on ${pg ? 'PostgreSQL, fsync on' : 'disk'}) ready`);
  let i = 0;
  let acknowledged = 0;
  // Warm-up and window together stay under the 6 s after which an unpolled request is swept
  // (a sweep write per knock would be counted against the knocks).
  const knockTiming = { warmupSec: Math.min(timing.warmupSec, 1), durationSec: Math.min(timing.durationSec, 4) };
  // Slices would stretch the knocks past the 6 s sweep, so the baseline is measured just before and just after.
  const referenceBefore = await referenceWindow();
  const knock = await measured(
    {
      id: `knock${suffix}`,
      label: pg ? 'knock (durable write), PostgreSQL' : 'knock (durable write)',
      server: daemon.name,
      pid: daemon.pid,
      url: daemon.url,
      method: 'POST',
      next: (request) => {
        const n = i++;
        return {
          ...request,
          path: `/room/${knockRooms[n % rooms]}/knock`,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': pupilAddress(n) },
          body: `{"name":"Pupil ${n}","note":""}`,
        };
      },
      check: (status, _body, headers) => {
        const ok = status === 202 && cookieFrom(headers['set-cookie'], 'meet_wait') !== null;
        if (ok) acknowledged += 1;
        return ok;
      },
      timing: knockTiming,
      notes: [
        `${rooms} rooms, ${knockTiming.warmupSec} s warm-up + ${knockTiming.durationSec} s, nobody polls (all within the 6 s window)`,
      ],
    },
    sampler,
    false,
  );
  // Power-cut stand-in: SIGKILL at once, then count what the database holds. (A profiled run
  // stops gracefully instead: a killed process writes no CPU profile.)
  sampler.stop();
  const signal = settings.cpuProfDir ? 'SIGTERM' : 'SIGKILL';
  if (signal === 'SIGTERM')
    notes.push(
      'knock: --cpu-prof stops the knock daemon with SIGTERM, so the on-disk count was taken after a graceful stop, not after SIGKILL.',
    );
  await daemon.stop(signal);
  const onDisk = pg ? await pg.count('bench_knock', 'meet_engine.waiting_requests') : knocksInFile(dataDir);
  if (pg) {
    facts.pgKnocksAcknowledged = acknowledged;
    facts.pgKnocksOnDisk = onDisk;
  } else {
    facts.knocksAcknowledged = acknowledged;
    facts.knocksOnDisk = onDisk;
  }
  log(
    `knock: ${acknowledged} knocks acknowledged (warm-up included), ${onDisk} requests in the database after ${signal}`,
  );
  const referenceAfter = await referenceWindow();
  const beside = [referenceBefore, referenceAfter].filter((r): r is Measurement => r !== null);
  record({
    ...knock,
    referenceRps: mean(beside.map((r) => r.requestsPerSec)),
    referenceCpuUs: mean(beside.map(cpuPerRequestUs)),
  });
  if (pg) return;
  knockFloor = await measureKnockFloor(dataDir, knockTiming.durationSec, timing.connections);
  log(
    `knock's durable write alone (no HTTP, ${knockFloor.batch} knocks per synced commit): ${knockFloor.knocksPerSec.toFixed(0)} knocks/s, ${knockFloor.usPerKnock.toFixed(0)} µs each`,
  );
}

/** The waiting requests in a data directory's SQLite file. */
function knocksInFile(dataDir: string): number {
  const db = new Database(join(dataDir, 'meet.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM waiting_requests').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------- moderators' live waiting list (bench/lib/moderators.ts)

let moderatorFigures: ModeratorFigures | null = null;

async function moderatorsScenario(): Promise<void> {
  const dataDir = join(fastDir ?? workDir, 'moderators');
  const daemon = await startDaemon('daemon-moderators', settings, { dataDir, workDir, env: daemonEnv });
  servers.push(daemon);
  await quietMoment('moderators');
  const f = await moderatorScenario(daemon, { windowSec: 2 * timing.durationSec, log });
  moderatorFigures = f;
  log(
    `moderators: ${f.changes} changes in ${f.windowSec.toFixed(1)} s; daemon CPU ${f.restCpuPct.toFixed(1)}% at rest, ${f.busyCpuPct.toFixed(1)}% busy ` +
      `= ${f.cpuMsPerChange.toFixed(2)} ms per change; per moderator ${(f.bytesPerModerator / 1024).toFixed(1)} KiB in ${f.messagesPerModerator.toFixed(0)} messages`,
  );
  await daemon.stop();
}

// ---------------------------------------------------------------- a cluster of three nodes: polls and the live relay

let relayFigures: LiveRelayFigures | null = null;
/** Three nodes against one at one offered load (`measureAtEqualRate`, the three-node side over the one-node side). */
let clusterEqualLoad: EqualRateFigures | null = null;
/** The waiting people of the cluster's poll rows: a class's worth, in one room. */
const clusterWaiting = 1000;
/** A multiple of three, so that autocannon's connections, spread over three nodes in turn, are even. */
const clusterConnections = Math.max(3, Math.round(timing.connections / 3) * 3);

/**
 * Issue 35's cluster bench: waiting people polling their room (through their cookie, as the poll
 * scenario does) against the one node that owns it, and spread round-robin over the three nodes
 * (two thirds forwarded to the owner over NATS). The server's CPU is all three daemons' (the
 * idle ones too, in both rows), nats-server's reported beside it; the rows alternate with the
 * bare route in rounds, and the CPU of three nodes against one is compared again at one offered load.
 */
async function clusterPolls(nodes: readonly Daemon[], natsPid: number, admin: string): Promise<void> {
  const roomId = 'cluster-polls';
  const setup = new Client(nodes[0]!.url, 8);
  const created = await setup.request('POST', '/api/rooms', {
    json: {
      room_id: roomId,
      name: 'Cluster',
      waiting_room: 'all',
      waiting_room_mode: 'approval',
      waiting_room_timeout_secs: 3600,
    },
    headers: { authorization: `Bearer ${admin}` },
  });
  setup.close();
  if (created.status !== 201) throw new Error(`creating ${roomId}: ${created.status} ${created.text}`);
  const owner = await roomOwner(nodes, roomId, admin);
  const others = nodes.filter((n) => n !== owner);
  const client = new Client(owner.url, setupConcurrency);
  const keeper = new Keeper(owner.url, pollKeeperPeriodMs).start();
  await knockMany(client, keeper, [roomId], clusterWaiting, 0);
  client.close();
  log(`cluster: ${clusterWaiting} waiting in ${roomId}, owned by ${owner.name}`);
  const spec = (id: string, label: string, urls: readonly string[]): ScenarioSpec => ({
    id,
    label,
    server: owner.name,
    pid: owner.pid,
    alsoPids: others.map((n) => n.pid),
    sidePid: natsPid,
    url: urls[0]!,
    urls,
    timing: { connections: clusterConnections },
    next: (request, context) => {
      const w = keeper.next();
      context.waiter = w;
      return { ...request, path: w.path, headers: { cookie: w.cookieHeader } };
    },
    check: (status, body, _headers, context) => {
      if (status === 404) keeper.markLost(context.waiter as Waiter);
      return status === 200 && body.includes('"waiting"');
    },
    notes: [
      `${clusterWaiting} waiting in one room, each polled with its own cookie in turn, ${clusterConnections} connections; server CPU: the three daemons' together`,
    ],
  });
  const one = spec(
    clusterPollRows.oneNode,
    `cluster poll, ${clusterWaiting.toLocaleString('en')} waiting, 1 node (the owner)`,
    [owner.url],
  );
  const three = spec(
    clusterPollRows.threeNodes,
    `cluster poll, ${clusterWaiting.toLocaleString('en')} waiting, 3 nodes round-robin`,
    [owner, ...others].map((n) => n.url),
  );
  await quietMoment('cluster polls');
  const reference = baselineServer
    ? {
        ...baselineSpec(baselineServer, 'reference', 'baseline beside a scenario'),
        timing: { connections: clusterConnections },
      }
    : null;
  const rounds = await measureRounds(reference ? [reference, one, three] : [one, three], timing, [null, null, null]);
  const beside = reference ? rounds.shift()! : null;
  for (const m of rounds)
    record(beside ? { ...m, referenceRps: beside.requestsPerSec, referenceCpuUs: cpuPerRequestUs(beside) } : m);
  // The CPU per poll again at one offered load for both, a little over half what the slower answered.
  const rate = Math.max(100, Math.round(0.6 * Math.min(...rounds.map((m) => m.requestsPerSec))));
  // Windows of 2 s: at this load one node takes a few % of a core, a handful of the kernel's 10 ms ticks a second.
  clusterEqualLoad = await measureAtEqualRate(three, one, timing, rate, 8, 2);
  await keeper.stop();
  if (keeper.lost > 0)
    notes.push(`cluster polls: ${keeper.lost} of the ${clusterWaiting} waiting requests were lost (swept).`);
}

async function clusterScenario(): Promise<void> {
  if (!benchPostgres) return void notes.push('cluster: not measured, PostgreSQL did not start');
  const natsPort = await freePort();
  const nats = startNatsServer(natsPort);
  if (!nats) return void notes.push('cluster: not measured, nats-server is not installed (Debian package nats-server)');
  try {
    await sleep(500);
    const database = await benchPostgres.database('bench_cluster');
    const nodes: Daemon[] = [];
    for (const id of ['a', 'b', 'c']) {
      // The poll daemon's longer closed window (see pollClosedWindowSecs), so the keeper needs fewer polls.
      const env = {
        SERVICE_WAITING_CLOSED_WINDOW_SECS: String(pollClosedWindowSecs),
        ...daemonEnv,
        SERVICE_DATABASE_URL: database,
        SERVICE_NATS_URL: `nats://127.0.0.1:${natsPort}`,
        SERVICE_NODE_ID: `node-${id}`,
      };
      const daemon = await startDaemon(`daemon-node-${id}`, settings, {
        dataDir: join(workDir, `node-${id}`),
        workDir,
        env,
      });
      servers.push(daemon);
      nodes.push(daemon);
    }
    const admin = nodes.map((n) => n.adminToken).find((token) => token !== '') ?? '';
    await clusterPolls(nodes, nats.pid, admin);
    await quietMoment('cluster relay');
    relayFigures = await liveRelayScenario(nodes, admin, { windowSec: 2 * timing.durationSec, log });
    for (const node of nodes) await node.stop();
  } finally {
    nats.stop();
  }
}

// ---------------------------------------------------------------- class through Janus (bench/lib/sfu.ts)

let sfuFigures: SfuFigures | null = null;

async function sfuRun(): Promise<void> {
  const env = { ...sfuDaemonEnv, ...daemonEnv };
  const daemon = await startDaemon('daemon-sfu', settings, { dataDir: join(workDir, 'sfu'), workDir, env }).catch(
    (err: Error) => {
      notes.push(
        `sfu: not measured, a daemon with SERVICE_MEDIA=janus did not start (is the janus package installed?): ${err.message.split('\n')[0]}`,
      );
      return null;
    },
  );
  if (!daemon) return;
  servers.push(daemon);
  await quietMoment('sfu');
  const steps = args['sfu-steps']
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  sfuFigures = await sfuScenario(daemon, { steps, windowSec: Number(args['sfu-window']), log });
  await daemon.stop();
}

/** The knock's durable write without HTTP or engine (bench/lib/knock-floor.ts): the knock's ceiling. */
let knockFloor: KnockFloor | null = null;

// ---------------------------------------------------------------- meeting API (disk daemons, 1 tenant then 1,000 tenants)

interface Tenant {
  readonly id: string;
  readonly secret: string;
}

/** A signed path; `tenant` names the tenant in it (`/confapi/{tenant}/api/…`), else the secrets are searched. */
function signed(call: string, query: string, secret: string, tenant?: string): string {
  const checksum = createHash('sha256')
    .update(call + query + secret)
    .digest('hex');
  return `/confapi/${tenant === undefined ? '' : `${tenant}/`}api/${call}?${query}&checksum=${checksum}`;
}

/** The address of tenant k's platform server, as nginx reports it (X-Forwarded-For). */
function platformAddress(k: number): string {
  return `10.36.${(k >> 8) & 255}.${k & 255}`;
}

const success = (_status: number, body: string) => body.includes('<returncode>SUCCESS</returncode>');

function createQuery(meetingId: string): string {
  // What Moodle's plugin sends, in its order and encoding.
  return `name=${encodeURIComponent(`Lesson ${meetingId}`).replace(/%20/g, '+')}&meetingID=${meetingId}&attendeePW=ap-${meetingId}&moderatorPW=mp-${meetingId}&record=false&meta_bbb-origin=Moodle`;
}

/** A meeting-API daemon with its existing meetings, ready to be measured. */
interface ApiDaemon {
  readonly label: '1t' | '1000t' | '1t-pg';
  readonly daemon: Daemon;
  readonly sampler: RssSampler;
  readonly ids: readonly string[];
  readonly owner: (k: number) => Tenant;
  readonly tenantsText: string;
  readonly manyTenants: boolean;
}

async function startApiDaemon(
  label: ApiDaemon['label'],
  tenants: readonly Tenant[],
  databaseUrl?: string,
): Promise<ApiDaemon> {
  const dataDir = join(workDir, `api-${label}`);
  mkdirSync(dataDir, { recursive: true });
  let tenantsFile: string | undefined;
  if (tenants.length > 1) {
    tenantsFile = join(dataDir, 'tenants.toml');
    const text = tenants
      .slice(1)
      .map((t) => `[tenants.${t.id}]\napi_secret = "${t.secret}"\n`)
      .join('\n');
    writeFileSync(`${tenantsFile}.tmp`, text);
    renameSync(`${tenantsFile}.tmp`, tenantsFile);
  }
  const name = `daemon-api-${label}`;
  const daemon = await startDaemon(name, settings, {
    dataDir,
    workDir,
    compatSecret: tenants[0]!.secret,
    ...(tenantsFile ? { tenantsFile } : {}),
    env: databaseUrl ? { ...daemonEnv, SERVICE_DATABASE_URL: databaseUrl } : daemonEnv,
  });
  servers.push(daemon);
  const sampler = new RssSampler(daemon.pid).start();
  const client = new Client(daemon.compatUrl!, 16);
  const owner = (k: number) => tenants[k % tenants.length]!;

  // Existing meetings: 1,000 of them either way; with 1,000 tenants, one per tenant, each from its
  // platform's address: every platform has called before, as in a running installation, so the
  // measured creates find the hints in place however few of them a loaded machine answers.
  const ids = Array.from({ length: existingMeetings }, (_, k) => `lesson-${label}-${String(k).padStart(4, '0')}`);
  const t0 = Date.now();
  await inParallel(ids.length, 16, async (k) => {
    const answer = await client.request('GET', signed('create', createQuery(ids[k]!), owner(k).secret), {
      headers: { 'x-forwarded-for': platformAddress(k % tenants.length) },
    });
    if (!success(answer.status, answer.text)) throw new Error(`create ${ids[k]} as ${owner(k).id}: ${answer.text}`);
  });
  client.close();
  log(
    `${name} (data on ${databaseUrl ? 'PostgreSQL' : 'disk'}, ${tenants.length} tenant${tenants.length > 1 ? 's' : ''}) ready, ${ids.length} meetings created in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const tenantsText =
    (tenants.length > 1 ? `${tenants.length.toLocaleString('en')} tenants` : '1 tenant') +
    (databaseUrl ? ', PostgreSQL' : '');
  return { label, daemon, sampler, ids, owner, tenantsText, manyTenants: tenants.length > 1 };
}

type ApiCall = 'info' | 'running' | 'create' | 'create-path' | 'create-one-address';

function apiSpec(api: ApiDaemon, call: ApiCall): ScenarioSpec {
  const { daemon, ids, owner, label, tenantsText } = api;
  const base = { server: daemon.name, pid: daemon.pid, url: daemon.compatUrl!, check: success };
  let n = 0;
  if (call === 'info' || call === 'running') {
    const name = call === 'info' ? 'getMeetingInfo' : 'isMeetingRunning';
    const paths = ids.map((id, k) => signed(name, `meetingID=${id}`, owner(k).secret));
    return {
      ...base,
      id: `${call}-${label}`,
      label: `${name}, ${tenantsText}`,
      next: (request) => ({ ...request, path: paths[n++ % paths.length]! }),
      notes: [
        `${ids.length} existing meetings (created, nobody joined), SHA-256 checksum, each call signed by the meeting's owner`,
      ],
    };
  }
  if (call === 'create' || call === 'create-one-address') {
    // A platform (Moodle, Greenlight) calls from its own server, and nginx tells the daemon that
    // address: each tenant's calls carry its own in X-Forwarded-For (the daemon trusts loopback as
    // its proxy), so the tenant this address last signed with is tried first. The one-address row
    // is the worst case: every tenant in turn from one address, the hint always wrong.
    const oneAddress = call === 'create-one-address';
    return {
      ...base,
      id: `${call}-${label}`,
      label: oneAddress
        ? `create (new meeting), ${tenantsText}, all from one address`
        : `create (new meeting), ${tenantsText}`,
      next: (request) => {
        const k = n++;
        return {
          ...request,
          path: signed('create', createQuery(`${oneAddress ? 'one' : 'new'}-${label}-${k}`), owner(k).secret),
          headers: { 'x-forwarded-for': platformAddress(oneAddress || !api.manyTenants ? 0 : k % tenantCount) },
        };
      },
      notes: [
        !api.manyTenants
          ? 'signed with the one secret, from one platform address'
          : oneAddress
            ? 'each call signed by the next tenant in turn, all from one address (the hint never helps), no tenant named: the worst case of the search'
            : 'each call signed by the next tenant in turn, each tenant from its own address (X-Forwarded-For from the trusted proxy), no tenant named: the secrets searched, the tenant last signed from the address tried first',
      ],
    };
  }
  // The design deployments use: the tenant named in the path, its secret the only one tried.
  return {
    ...base,
    id: `create-path-${label}`,
    label: `create (new meeting) via /confapi/{tenant}/api, ${tenantsText}`,
    next: (request) => {
      const k = n++;
      return { ...request, path: signed('create', createQuery(`path-${label}-${k}`), owner(k).secret, owner(k).id) };
    },
    notes: ['each call signed by the next tenant in turn, the tenant named in the path'],
  };
}

/**
 * The meeting API with one tenant and with 1,000, both daemons up at once: each call is measured
 * in rounds that alternate the baseline, the one-tenant daemon and the 1,000-tenant daemon every
 * couple of seconds, so the "1,000 tenants against one" ratio compares windows a few seconds
 * apart, not minutes (this host's speed drifts by a third within minutes).
 */
async function apiScenarios(one: ApiDaemon, many: ApiDaemon, pg: ApiDaemon | null): Promise<void> {
  for (const call of ['info', 'running', 'create', 'create-path', 'create-one-address'] as const) {
    // With one tenant, one address is what `create` already measures: the worst case is a 1,000-tenant row alone.
    // PostgreSQL's row (issue 34 point 7) is `create`, in the same rounds as SQLite's.
    const daemons = call === 'create-one-address' ? [many] : call === 'create' && pg ? [one, many, pg] : [one, many];
    const specs = daemons.map((api) => apiSpec(api, call));
    await quietMoment(specs[specs.length - 1]!.label);
    const reference = baselineServer ? baselineSpec(baselineServer, 'reference', 'baseline beside a scenario') : null;
    const samplers = daemons.map((api) => api.sampler);
    const rounds = await measureRounds(
      reference ? [reference, ...specs] : specs,
      timing,
      reference ? [null, ...samplers] : samplers,
    );
    const beside = reference ? rounds.shift()! : null;
    for (const m of rounds)
      record(beside ? { ...m, referenceRps: beside.requestsPerSec, referenceCpuUs: cpuPerRequestUs(beside) } : m);
  }
  for (const api of pg ? [one, many, pg] : [one, many]) {
    api.sampler.stop();
    memory[`${api.daemon.name}HwmMb`] = (memoryOf(api.daemon.pid)?.hwmKb ?? Number.NaN) / 1024;
    await api.daemon.stop();
  }
}

// ---------------------------------------------------------------- main

function machine() {
  const cpuinfo = (() => {
    try {
      return readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      return '';
    }
  })();
  return {
    nproc: cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown',
    node: process.version,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    freeMemoryGb: Math.round(freemem() / 2 ** 30),
    loadAverageAtStart: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  };
}

async function main(): Promise<void> {
  const host = machine();
  log(`machine: ${host.nproc} × ${host.cpuModel}, node ${host.node}, load average ${host.loadAverageAtStart}`);
  log(
    `timing: ${timing.warmupSec} s warm-up + ${timing.durationSec} s per scenario, ${timing.connections} connections, ` +
      `daemon log level ${settings.logLevel ?? 'default (info, access log: errors, slow requests, state changes, a summary a minute)'}; baseline without a logger`,
  );
  const baseline = await startBaseline(settings, workDir);
  baselineServer = baseline;
  servers.push(baseline);
  const baselineSampler = new RssSampler(baseline.pid).start();
  await baselineRun(baseline, baselineSampler, 'baseline (bare Fastify), first', 'baseline-1');

  if (only.has('poll') || only.has('list')) await waitingScenarios();
  if (only.has('knock') || only.has('api') || only.has('cluster')) {
    const started = await startBenchPostgres();
    if (typeof started === 'string') notes.push(started);
    else benchPostgres = started;
  }
  if (only.has('knock')) {
    await knockScenario('sqlite');
    await knockScenario('postgres');
  }
  if (only.has('moderators')) await moderatorsScenario();
  if (only.has('cluster')) await clusterScenario();
  if (only.has('sfu')) await sfuRun();
  if (only.has('api')) {
    const primary: Tenant = { id: 'primary', secret: randomBytes(24).toString('hex') };
    const one = await startApiDaemon('1t', [primary]);
    const others = Array.from({ length: tenantCount - 1 }, (_, k): Tenant => ({
      id: `lms-${String(k + 1).padStart(4, '0')}`,
      secret: randomBytes(24).toString('hex'),
    }));
    const many = await startApiDaemon('1000t', [primary, ...others]);
    const pg = benchPostgres
      ? await startApiDaemon('1t-pg', [primary], await benchPostgres.database('bench_api'))
      : null;
    await apiScenarios(one, many, pg);
  }
  await benchPostgres?.close();

  await baselineRun(baseline, baselineSampler, 'baseline (bare Fastify), last', 'baseline-2');
  baselineSampler.stop();
  await baseline.stop();

  const baselineRps = mean(measurements.filter((m) => m.server === 'baseline').map((m) => m.requestsPerSec));
  const baselineCpuUs = mean(measurements.filter((m) => m.server === 'baseline').map(cpuPerRequestUs));
  const byId = new Map(measurements.map((m) => [m.id, m]));
  const checks = checkTargets(byId, baselineRps, facts, baselineCpuUs);
  const table = resultTable(measurements, baselineRps, checks, baselineCpuUs);
  const totalSec = (Date.now() - startedAt) / 1000;

  console.log(`\n${table}\n`);
  console.log(
    `baseline = mean of the two baseline runs = ${baselineRps.toFixed(0)} req/s, ${baselineCpuUs.toFixed(0)} µs of server CPU per request; ` +
      `"vs baseline" and "CPU/req vs baseline" compare with the baseline windows measured beside each scenario; peak RSS is the serving process's highest VmRSS in the window`,
  );
  for (const c of checks) {
    const verdict = c.verdict === 'met' ? 'met    ' : c.verdict === 'not met' ? 'NOT MET' : 'n/a    ';
    console.log(`${verdict}  ${c.rule} [${c.rows.join(', ')}]: ${c.measured}`);
  }
  const rss = (n: number) => memory[`waitingDaemonRssAt${n}OpenMb`] ?? null;
  if (rss(0) !== null && rss(10_000) !== null) {
    const tail = rss(50_000) !== null ? `; 10,000 → 50,000 open: +${(rss(50_000)! - rss(10_000)!).toFixed(1)} MiB` : '';
    console.log(`daemon RSS at rest: 0 → 10,000 open: +${(rss(10_000)! - rss(0)!).toFixed(1)} MiB${tail}`);
  }
  if (knockFloor) {
    console.log(
      `knock ceiling: its durable write alone (${knockFloor.batch} knocks per synced commit, no HTTP) ran ${knockFloor.knocksPerSec.toFixed(0)} knocks/s ` +
        `= ${percent(ratio(knockFloor.knocksPerSec, byId.get('knock')?.referenceRps ?? baselineRps))} of baseline, ${knockFloor.usPerKnock.toFixed(0)} µs per knock of the request thread`,
    );
  }
  if (moderatorFigures) {
    const f = moderatorFigures;
    console.log(
      `moderators' list: ${f.waiting.toLocaleString('en')} waiting, ${f.knocksPerSec} knocks/s each followed by a refusal, ${f.moderators} moderators connected: ` +
        `${f.cpuMsPerChange.toFixed(2)} ms of daemon CPU per change (${f.busyCpuPct.toFixed(1)}% busy vs ${f.restCpuPct.toFixed(1)}% with the polls alone), ` +
        `${Math.round(f.bytesPerModeratorPerChange)} bytes per change per moderator (${(f.bytesPerModerator / 1024).toFixed(1)} KiB in ${f.windowSec.toFixed(1)} s, ` +
        `${f.wholeListsPerModerator} whole lists), lists consistent with GET /waiting-list: ${f.consistent ?? 'not checked'}${f.errors > 0 ? `, ${f.errors} errors` : ''}`,
    );
    if ((f.otherCpuPct ?? 0) > 25)
      notes.push(
        `moderators: other programs took ${f.otherCpuPct!.toFixed(0)}% of a core during the window; the CPU figure is noisy by about that much.`,
      );
  }
  const clusterPolled = clusterPollFigures(byId, baselineCpuUs, clusterEqualLoad);
  if (clusterPolled) console.log(clusterPollLine(clusterPolled, clusterEqualLoad?.rate));
  if (relayFigures) {
    const f = relayFigures;
    const spread =
      f.spreadUsPerRoundTrip !== null && f.threeVsOne !== null
        ? `; ${f.pages} spread over the ${f.nodes} nodes ${f.spreadUsPerRoundTrip.toFixed(0)} µs (${f.spreadPerSec?.toFixed(0)}/s): three nodes against one ${f.threeVsOne.toFixed(2)}×`
        : '';
    console.log(
      `cluster, live relay: ${f.pages} pages straight to the owner and ${f.pages} through another node, ${f.perSecond} frames/s each, alternating: ` +
        `${f.directUsPerRoundTrip.toFixed(0)} µs of all ${f.nodes} nodes' CPU per round trip direct (${f.directPerSec.toFixed(0)}/s), ` +
        `${f.relayedUsPerRoundTrip.toFixed(0)} µs relayed (${f.relayedPerSec.toFixed(0)}/s): ` +
        `${f.usPerRelayedMessage.toFixed(0)} µs per relayed message${spread}${f.lost > 0 ? `, ${f.lost} unanswered` : ''}`,
    );
  }
  if (sfuFigures) console.log(`${sfuTable(sfuFigures)}\n${sfuSummary(sfuFigures).join('\n')}`);
  for (const note of notes) console.log(`note: ${note}`);
  console.log(`targets overall: ${overall(checks)}; whole run ${totalSec.toFixed(0)} s`);

  const results = {
    generatedAt: new Date(startedAt).toISOString(),
    command: 'npm run bench',
    machine: host,
    settings: {
      ...timing,
      logLevel: settings.logLevel ?? 'default',
      pollClosedWindowSecs,
      pollKeeperPeriodMs,
      meetctl: settings.meetctl,
      openCounts,
      rooms,
      tenants: tenantCount,
      pollDataOnTmpfs: fastDir !== null,
      daemonEnv,
      cpuProfiles: cpuProfDir,
    },
    baseline: {
      requestsPerSec: baselineRps,
      cpuUsPerRequest: baselineCpuUs,
      runs: measurements.filter((m) => m.server === 'baseline').map((m) => m.requestsPerSec),
    },
    measurements: measurements.map((m) => ({
      ...m,
      vsBaseline: ratio(m.requestsPerSec, referenceOf(m, baselineRps)),
      cpuUsPerRequest: cpuPerRequestUs(m),
      cpuVsBaseline: m.server === 'baseline' ? null : cpuRatioOf(m, baselineCpuUs),
    })),
    servers: servers.map((s) => ({ name: s.name, pid: s.pid, ...s.life })),
    targets: checks,
    facts,
    knockFloor: knockFloor
      ? { ...knockFloor, vsBaseline: ratio(knockFloor.knocksPerSec, byId.get('knock')?.referenceRps ?? baselineRps) }
      : null,
    memory,
    moderators: moderatorFigures,
    clusterPolls: clusterPolled ? { ...clusterPolled, equalLoad: clusterEqualLoad } : null,
    liveRelay: relayFigures,
    sfu: sfuFigures ? { ...sfuFigures, table: sfuTable(sfuFigures) } : null,
    notes,
    totalSec,
    table,
  };
  writeFileSync(
    args.out,
    `${JSON.stringify(results, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`,
  );
  console.log(`wrote ${args.out}${cpuProfDir ? `; CPU profiles in ${cpuProfDir}` : ''}`);
}

async function cleanup(): Promise<void> {
  await Promise.all(servers.map((s) => s.stop('SIGKILL').catch(() => undefined)));
  if (!args.keep) {
    rmSync(workDir, { recursive: true, force: true });
    if (fastDir) rmSync(fastDir, { recursive: true, force: true });
  } else {
    console.log(`kept ${workDir}${fastDir ? ` and ${fastDir}` : ''}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the servers and removing the temporary directories`);
    void cleanup().then(() => process.exit(130));
  });
}

main().then(
  async () => {
    await cleanup();
    process.exit(0);
  },
  async (err: unknown) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  },
);
