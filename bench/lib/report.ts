/**
 * Pure helpers of the bench: ratios, the issue's targets, and the table. No I/O here, so
 * test/unit/bench/report.test.ts can run them without a daemon.
 */

/** One scenario as measured (after its warm-up). */
export interface Measurement {
  readonly id: string;
  readonly label: string;
  /** The process that answered: `baseline` (bare Fastify) or the name of a daemon (its CPU profile's name too). */
  readonly server: string;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses counted in the measured window. */
  readonly requests: number;
  /** Connection errors, timeouts, unexpected status codes and wrong bodies (FAILED, lost requests). */
  readonly errors: number;
  /** Highest VmRSS of the serving process seen during the measured window (MiB). */
  readonly peakRssMb: number | null;
  /** CPU time of the serving process over the window, in % of one core. */
  readonly serverCpuPct: number | null;
  /** Of which system (kernel) time, in % of one core. */
  readonly serverSysPct: number | null;
  /** Of which the main thread's (JavaScript and the event loop's system calls), in % of one core. */
  readonly serverMainPct?: number | null;
  /** CPU time of the load generator (this process) over the window, in % of one core. */
  readonly clientCpuPct: number;
  /** CPU the rest of the machine (other programs) took over the window, in % of one core. */
  readonly otherCpuPct: number | null;
  /** A helper's CPU reported beside the server's (a cluster's nats-server), in % of one core; absent without one. */
  readonly sideCpuPct?: number | null;
  /** The measured window (warm-up excluded), epoch ms: lines a CPU profile up with the scenario. */
  readonly windowMs: readonly [number, number];
  readonly notes?: readonly string[];
  /** The baseline's throughput measured in alternation with this scenario, when it was (bench/lib/load.ts). */
  readonly referenceRps?: number;
  /** The baseline's server CPU per request (µs) in those same windows. */
  readonly referenceCpuUs?: number;
  /**
   * Server CPU per request of the scenario and of the baseline, both at the same fixed offered
   * load (bench/lib/load.ts, `measureAtEqualRate`), when it was measured: the CPU comparison.
   */
  readonly equalRate?: EqualRateFigures;
}

/** `measureAtEqualRate`'s figures: medians over rounds of one window each, taken in alternation. */
export interface EqualRateFigures {
  readonly rate: number;
  /** Median server CPU per request (µs) of the scenario's windows, and of the baseline's. */
  readonly cpuUs: number;
  readonly referenceCpuUs: number;
  /** Median of the rounds' own ratios (each round: one window of each, seconds apart): the comparison. */
  readonly ratio?: number;
  /** Smallest and largest of those per-round ratios: the scatter of this run. */
  readonly spread?: readonly [number, number];
  readonly rounds?: number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN without finite values. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What a scenario is compared with: the baseline measured beside it, else the run's baseline mean. */
export function referenceOf(m: Pick<Measurement, 'referenceRps'> | undefined, baselineRps: number): number {
  return m?.referenceRps ?? baselineRps;
}

/**
 * The scenario's server CPU per request over the baseline's: at an equal offered load when that
 * was measured, else beside it at full speed (else the run's baseline figure). 1.3 means 30% more.
 */
export function cpuRatioOf(
  m: Pick<Measurement, 'serverCpuPct' | 'requestsPerSec' | 'referenceCpuUs' | 'equalRate'> | undefined,
  baselineCpuUs: number,
): number {
  if (!m) return Number.NaN;
  if (m.equalRate) return m.equalRate.ratio ?? ratio(m.equalRate.cpuUs, m.equalRate.referenceCpuUs);
  return ratio(cpuPerRequestUs(m), m.referenceCpuUs ?? baselineCpuUs);
}

export function times(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a';
}

export type Verdict = 'met' | 'not met' | 'not measured';

export interface TargetCheck {
  readonly id: string;
  /** The target as the issue states it. */
  readonly rule: string;
  /** What was measured, in words and numbers. */
  readonly measured: string;
  readonly verdict: Verdict;
  /** The table rows this target is about (shown in their "target" cell). */
  readonly rows: readonly string[];
}

/** Extra facts the targets need that are not a throughput. */
export interface TargetFacts {
  /** VmRSS with 10,000 open requests minus VmRSS with none, same daemon, both read at rest (MiB). */
  readonly rssAddedBy10kMb: number | null;
  /** The same with 50,000 open requests (MiB); null when the run did not open 50,000. */
  readonly rssAddedBy50kMb?: number | null;
  /** Knocks answered 202 during the knock scenario (warm-up included). */
  readonly knocksAcknowledged: number | null;
  /** Of those, the requests found in the database after the daemon was killed with SIGKILL. */
  readonly knocksOnDisk: number | null;
  /** The same on PostgreSQL (null: not measured). */
  readonly pgKnocksAcknowledged?: number | null;
  readonly pgKnocksOnDisk?: number | null;
}

export const targets = {
  pollVsBaseline: 0.7,
  /** Server CPU per poll at most this many times the bare route's. */
  pollCpuVsBaseline: 1.45,
  pollFlatness: 0.9,
  knockVsBaseline: 0.25,
  apiVsBaseline: 0.5,
  apiTenantsVsSingle: 0.9,
  /** Issue 36 point 3: create with 1,000 tenants and none named (the secrets searched) against one tenant. */
  apiSearchVsSingle: 0.8,
  /** Issue 36 point 2: what 10,000 and 50,000 open waiting requests may add to the daemon's RSS (MiB). */
  /** Issue 34 point 7: PostgreSQL's server CPU per knock at most this many times SQLite's. */
  pgKnockCpuVsSqlite: 2,
  /** And its durable knock throughput at least this share of SQLite's (each against the baseline beside it). */
  pgKnockVsSqlite: 0.5,
  rssPer10kMb: 20,
  rssPer50kMb: 100,
} as const;

/** value / reference; NaN when either is missing or the reference is not positive. */
export function ratio(value: number | null | undefined, reference: number | null | undefined): number {
  if (value === null || value === undefined || reference === null || reference === undefined) return Number.NaN;
  if (!Number.isFinite(value) || !Number.isFinite(reference) || reference <= 0) return Number.NaN;
  return value / reference;
}

export function percent(r: number): string {
  return Number.isFinite(r) ? `${Math.round(r * 100)}%` : 'n/a';
}

export function mean(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length === 0 ? Number.NaN : finite.reduce((a, b) => a + b, 0) / finite.length;
}

/** Smallest over largest: 1 is perfectly flat. NaN when a value is missing. */
export function flatness(values: readonly number[]): number {
  if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v <= 0)) return Number.NaN;
  return Math.min(...values) / Math.max(...values);
}

function verdictOf(r: number, min: number): Verdict {
  return Number.isFinite(r) ? (r >= min ? 'met' : 'not met') : 'not measured';
}

function all(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('not measured')) return verdicts.includes('not met') ? 'not met' : 'not measured';
  return verdicts.every((v) => v === 'met') ? 'met' : 'not met';
}

/**
 * The targets of issue 6, point 3 and issue 15, point 2, judged on one run. `baselineRps` and
 * `baselineCpuUs` are the baseline runs' of the same bench run, used for a scenario that was not
 * measured beside the baseline.
 */
/** Issue 34 point 7: the knock on PostgreSQL against the knock on SQLite of the same run. */
function postgresKnockChecks(
  byId: ReadonlyMap<string, Measurement>,
  baselineRps: number,
  facts: TargetFacts,
  baselineCpuUs: number,
): TargetCheck[] {
  const vs = (id: string) => ratio(byId.get(id)?.requestsPerSec, referenceOf(byId.get(id), baselineRps));
  const cpu = ratio(cpuRatioOf(byId.get('knock-pg'), baselineCpuUs), cpuRatioOf(byId.get('knock'), baselineCpuUs));
  const throughput = ratio(vs('knock-pg'), vs('knock'));
  const { pgKnocksAcknowledged: acked = null, pgKnocksOnDisk: onDisk = null } = facts;
  return [
    {
      id: 'knock-pg-cpu',
      rule: `PostgreSQL's server CPU per knock ≤ ${times(targets.pgKnockCpuVsSqlite)} SQLite's`,
      measured: times(cpu),
      verdict: !Number.isFinite(cpu) ? 'not measured' : cpu <= targets.pgKnockCpuVsSqlite ? 'met' : 'not met',
      rows: ['knock-pg'],
    },
    {
      id: 'knock-pg-vs-sqlite',
      rule: `PostgreSQL's durable knock throughput ≥ ${percent(targets.pgKnockVsSqlite)} of SQLite's`,
      measured: `${percent(throughput)} (${percent(vs('knock-pg'))} vs ${percent(vs('knock'))} of baseline)`,
      verdict: verdictOf(throughput, targets.pgKnockVsSqlite),
      rows: ['knock-pg'],
    },
    {
      id: 'knock-pg-durable',
      rule: 'every acknowledged knock in PostgreSQL (counted after SIGKILL)',
      measured: acked === null || onDisk === null ? 'not counted' : `${onDisk} of ${acked} acknowledged knocks found`,
      verdict: acked === null || onDisk === null ? 'not measured' : onDisk >= acked && acked > 0 ? 'met' : 'not met',
      rows: ['knock-pg'],
    },
  ];
}

export function checkTargets(
  byId: ReadonlyMap<string, Measurement>,
  baselineRps: number,
  facts: TargetFacts,
  baselineCpuUs = Number.NaN,
): TargetCheck[] {
  const rps = (id: string) => byId.get(id)?.requestsPerSec ?? Number.NaN;
  const vs = (id: string) => ratio(rps(id), referenceOf(byId.get(id), baselineRps));
  const errorsOf = (id: string) => byId.get(id)?.errors ?? 0;
  const checks: TargetCheck[] = [];

  const polls = ['poll-1k', 'poll-10k', 'poll-50k'];
  for (const id of polls) {
    const r = vs(id);
    // Lost requests (swept while the bench was polling them) mean the figure is not the one asked for.
    const verdict =
      errorsOf(id) > 0 && verdictOf(r, targets.pollVsBaseline) === 'met'
        ? 'not met'
        : verdictOf(r, targets.pollVsBaseline);
    checks.push({
      id: `${id}-vs-baseline`,
      rule: `poll ≥ ${percent(targets.pollVsBaseline)} of baseline`,
      measured: `${percent(r)}${errorsOf(id) > 0 ? `, ${errorsOf(id)} errors` : ''}`,
      verdict,
      rows: [id],
    });
    const cpu = cpuRatioOf(byId.get(id), baselineCpuUs);
    const cpuVerdict: Verdict = !Number.isFinite(cpu)
      ? 'not measured'
      : cpu <= targets.pollCpuVsBaseline && errorsOf(id) === 0
        ? 'met'
        : 'not met';
    checks.push({
      id: `${id}-cpu`,
      rule: `poll's server CPU per request ≤ ${times(targets.pollCpuVsBaseline)} the baseline's`,
      measured: `${times(cpu)}${errorsOf(id) > 0 ? `, ${errorsOf(id)} errors` : ''}`,
      verdict: cpuVerdict,
      rows: [id],
    });
  }
  // Issue 36 point 4: the poll under 50 connections (a school's proxy), against the bare route under 50 too.
  const many = vs('poll-10k-50c');
  checks.push({
    id: 'poll-10k-50c-vs-baseline',
    rule: `poll at 50 connections ≥ ${percent(targets.pollVsBaseline)} of baseline at 50 connections`,
    measured: `${percent(many)}${errorsOf('poll-10k-50c') > 0 ? `, ${errorsOf('poll-10k-50c')} errors` : ''}`,
    verdict:
      errorsOf('poll-10k-50c') > 0 && verdictOf(many, targets.pollVsBaseline) === 'met'
        ? 'not met'
        : verdictOf(many, targets.pollVsBaseline),
    rows: ['poll-10k-50c'],
  });
  // Compared as ratios to the baseline beside each, so that the host's drift between scenarios cancels.
  const flat = flatness(polls.map(vs));
  checks.push({
    id: 'poll-flat',
    rule: `poll flat within ${percent(1 - targets.pollFlatness)} from 1,000 to 50,000 open requests (slowest ≥ ${percent(targets.pollFlatness)} of fastest)`,
    measured: `slowest/fastest = ${percent(flat)} (${polls.map((id) => percent(vs(id))).join(' / ')} of baseline)`,
    verdict: verdictOf(flat, targets.pollFlatness),
    rows: polls,
  });

  const knock = vs('knock');
  checks.push({
    id: 'knock-vs-baseline',
    rule: `knock ≥ ${percent(targets.knockVsBaseline)} of baseline`,
    measured: percent(knock),
    verdict: verdictOf(knock, targets.knockVsBaseline),
    rows: ['knock'],
  });
  const { knocksAcknowledged: acked, knocksOnDisk: onDisk } = facts;
  checks.push({
    id: 'knock-durable',
    rule: 'every acknowledged knock on disk (counted after SIGKILL)',
    measured: acked === null || onDisk === null ? 'not counted' : `${onDisk} of ${acked} acknowledged knocks found`,
    verdict: acked === null || onDisk === null ? 'not measured' : onDisk >= acked && acked > 0 ? 'met' : 'not met',
    rows: ['knock'],
  });

  if (byId.has('knock-pg')) checks.push(...postgresKnockChecks(byId, baselineRps, facts, baselineCpuUs));

  for (const call of ['info', 'running']) {
    const single = vs(`${call}-1t`);
    checks.push({
      id: `${call}-1t-vs-baseline`,
      rule: `meeting API on existing meetings ≥ ${percent(targets.apiVsBaseline)} of baseline`,
      measured: percent(single),
      verdict: verdictOf(single, targets.apiVsBaseline),
      rows: [`${call}-1t`],
    });
    const many = ratio(vs(`${call}-1000t`), vs(`${call}-1t`));
    checks.push({
      id: `${call}-1000t-vs-1t`,
      rule: `with 1,000 tenants ≥ ${percent(targets.apiTenantsVsSingle)} of its single-tenant figure`,
      measured: percent(many),
      verdict: verdictOf(many, targets.apiTenantsVsSingle),
      rows: [`${call}-1000t`],
    });
  }

  // create names a new meeting, so no owner narrows the search: with the tenant in the path it
  // is one secret whatever the number of tenants; without it the secrets are searched (a lower target).
  const createSearch = ratio(vs('create-1000t'), vs('create-1t'));
  checks.push({
    id: 'create-1000t-vs-1t',
    rule: `create with 1,000 tenants and none named (the search, each platform from its own address) ≥ ${percent(targets.apiSearchVsSingle)} of its single-tenant figure`,
    measured: percent(createSearch),
    verdict: verdictOf(createSearch, targets.apiSearchVsSingle),
    rows: ['create-1000t'],
  });
  const createMany = ratio(vs('create-path-1000t'), vs('create-path-1t'));
  checks.push({
    id: 'create-path-1000t-vs-1t',
    rule: `create via /confapi/{tenant}/api with 1,000 tenants ≥ ${percent(targets.apiTenantsVsSingle)} of its single-tenant figure`,
    measured: percent(createMany),
    verdict: verdictOf(createMany, targets.apiTenantsVsSingle),
    rows: ['create-path-1000t'],
  });

  for (const [id, open, added, max, row] of [
    ['rss-10k', '10,000', facts.rssAddedBy10kMb, targets.rssPer10kMb, 'poll-10k'],
    ['rss-50k', '50,000', facts.rssAddedBy50kMb ?? null, targets.rssPer50kMb, 'poll-50k'],
  ] as const) {
    const known = added !== null && Number.isFinite(added);
    checks.push({
      id,
      rule: `${open} open waiting requests add ≤ ${max} MiB to the daemon's RSS`,
      measured: known ? `+${added.toFixed(1)} MiB` : 'not measured',
      verdict: known ? (added <= max ? 'met' : 'not met') : 'not measured',
      rows: [row],
    });
  }
  return checks;
}

/** The verdict of every target that concerns one row, e.g. "≥70%: met". */
export function targetCell(rowId: string, checks: readonly TargetCheck[]): string {
  const mine = checks.filter((c) => c.rows.includes(rowId) && c.id !== 'poll-flat');
  if (mine.length === 0) return '';
  const short = (c: TargetCheck) => {
    if (c.id === 'knock-durable' || c.id === 'knock-pg-durable') return `on disk: ${c.verdict}`;
    if (c.id === 'knock-pg-cpu')
      return `CPU ≤${times(targets.pgKnockCpuVsSqlite)} SQLite's (${c.measured}): ${c.verdict}`;
    if (c.id === 'knock-pg-vs-sqlite') return `≥${percent(targets.pgKnockVsSqlite)} of SQLite's: ${c.verdict}`;
    if (c.id === 'rss-10k' || c.id === 'rss-50k') return `RSS ${c.measured}: ${c.verdict}`;
    if (c.id.endsWith('-cpu')) return `CPU ≤${times(targets.pollCpuVsBaseline)}: ${c.verdict}`;
    const min = /≥ (\d+%)/.exec(c.rule)?.[1] ?? '';
    if (c.id.endsWith('-vs-1t')) return `≥${min} of 1 tenant (${c.measured}): ${c.verdict}`;
    return `≥${min}: ${c.verdict}`;
  };
  return mine.map(short).join('; ');
}

export function overall(checks: readonly TargetCheck[]): Verdict {
  return all(checks.map((c) => c.verdict));
}

/** CPU time the serving process spent per answered request (µs): unlike req/s, barely moved by other programs. */
export function cpuPerRequestUs(m: Pick<Measurement, 'serverCpuPct' | 'requestsPerSec'>): number {
  if (m.serverCpuPct === null || !(m.requestsPerSec > 0)) return Number.NaN;
  return (m.serverCpuPct / 100 / m.requestsPerSec) * 1e6;
}

function fixed(value: number | null, digits: number): string {
  return value === null || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
}

/** The one table: a Markdown table whose columns are padded so that it also reads in a terminal. */
export function resultTable(
  measurements: readonly Measurement[],
  baselineRps: number,
  checks: readonly TargetCheck[],
  baselineCpuUs = Number.NaN,
): string {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'vs baseline',
    'server CPU µs/req',
    'CPU/req vs baseline',
    'peak RSS MiB',
    'others CPU',
    'target',
  ];
  const rows = measurements.map((m) => [
    m.label,
    fixed(m.requestsPerSec, 0),
    fixed(m.p50Ms, 1),
    fixed(m.p99Ms, 1),
    String(m.errors),
    percent(ratio(m.requestsPerSec, referenceOf(m, baselineRps))),
    fixed(cpuPerRequestUs(m), 0),
    m.server === 'baseline' ? '' : times(cpuRatioOf(m, baselineCpuUs)),
    fixed(m.peakRssMb, 0),
    m.otherCpuPct === null ? 'n/a' : `${m.otherCpuPct.toFixed(0)}%`,
    targetCell(m.id, checks),
  ]);
  const right = [false, true, true, true, true, true, true, true, true, true, false];
  return formatTable(header, rows, right);
}

export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: readonly boolean[] = [],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number) => (rightAligned[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
  const line = (cells: readonly string[]) => `| ${widths.map((_, i) => cell(cells[i] ?? '', i)).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (rightAligned[i] ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Issue 35's cluster bench: the rows of waiting people polling one room's owner, and three nodes in turn. */
export const clusterPollRows = { oneNode: 'cluster-poll-1n', threeNodes: 'cluster-poll-3n' } as const;

export interface ClusterPollFigures {
  /** All daemons' CPU per poll (µs), the polls sent to the owner alone, and spread over the three nodes. */
  readonly oneNodeUs: number;
  readonly threeNodesUs: number;
  /** nats-server's own CPU per poll (µs), beside the daemons'. */
  readonly natsOneNodeUs: number;
  readonly natsThreeNodesUs: number;
  /** Three nodes over one: at one offered load for both when that was measured, else at full speed. */
  readonly threeVsOne: number;
  /** How `threeVsOne` was measured, and that comparison's rounds' scatter when it had rounds. */
  readonly threeVsOneAt: 'equal load' | 'full speed';
  readonly spread: readonly [number, number] | null;
  /** Each against the bare route's CPU per request beside it. */
  readonly oneNodeVsBaseline: number;
  readonly threeNodesVsBaseline: number;
}

/** A helper's CPU per request of a row (µs): its `sideCpuPct` over the row's throughput. */
function sideUsPerRequest(m: Measurement | undefined): number {
  if (!m || m.sideCpuPct === undefined || m.sideCpuPct === null) return Number.NaN;
  return cpuPerRequestUs({ serverCpuPct: m.sideCpuPct, requestsPerSec: m.requestsPerSec });
}

/** The cluster's poll figures of one run; null when the run has neither row. */
export function clusterPollFigures(
  byId: ReadonlyMap<string, Measurement>,
  baselineCpuUs: number,
  equalLoad: EqualRateFigures | null = null,
): ClusterPollFigures | null {
  const one = byId.get(clusterPollRows.oneNode);
  const three = byId.get(clusterPollRows.threeNodes);
  if (!one && !three) return null;
  const oneNodeUs = one ? cpuPerRequestUs(one) : Number.NaN;
  const threeNodesUs = three ? cpuPerRequestUs(three) : Number.NaN;
  const equal = equalLoad ? (equalLoad.ratio ?? ratio(equalLoad.cpuUs, equalLoad.referenceCpuUs)) : Number.NaN;
  return {
    oneNodeUs,
    threeNodesUs,
    natsOneNodeUs: sideUsPerRequest(one),
    natsThreeNodesUs: sideUsPerRequest(three),
    threeVsOne: Number.isFinite(equal) ? equal : ratio(threeNodesUs, oneNodeUs),
    threeVsOneAt: Number.isFinite(equal) ? 'equal load' : 'full speed',
    spread: Number.isFinite(equal) ? (equalLoad?.spread ?? null) : null,
    oneNodeVsBaseline: cpuRatioOf(one, baselineCpuUs),
    threeNodesVsBaseline: cpuRatioOf(three, baselineCpuUs),
  };
}

/** The figures in one line, as the bench prints them under its table. */
export function clusterPollLine(f: ClusterPollFigures, rate?: number): string {
  const us = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} µs` : 'n/a');
  const at =
    f.threeVsOneAt === 'equal load'
      ? `at an equal offered load${rate ? ` of ${rate.toFixed(0)} polls/s` : ''}, median of the rounds${f.spread ? ` (${times(f.spread[0])}-${times(f.spread[1])})` : ''}`
      : 'at full speed';
  return (
    `cluster, polls: all daemons' CPU per poll ${us(f.oneNodeUs)} with the owner alone (${times(f.oneNodeVsBaseline)} the bare route's), ` +
    `${us(f.threeNodesUs)} spread over three nodes (${times(f.threeNodesVsBaseline)}); three nodes against one ${times(f.threeVsOne)} ${at}; ` +
    `nats-server beside them ${us(f.natsOneNodeUs)} and ${us(f.natsThreeNodesUs)} per poll`
  );
}
