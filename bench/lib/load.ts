import autocannon, { type RequestParams } from 'autocannon';
import { cpuTimesOf, machineBusySeconds, RssSampler } from './proc.js';
import { cpuPerRequestUs, median, ratio, type EqualRateFigures, type Measurement } from './report.js';

export interface Timing {
  readonly warmupSec: number;
  readonly durationSec: number;
  readonly connections: number;
  /** A fixed offered load in requests per second (all connections together); without it, as fast as the server answers. */
  readonly rate?: number;
}

export interface ScenarioSpec {
  readonly id: string;
  readonly label: string;
  readonly server: Measurement['server'];
  /** The serving process (for RSS and CPU). */
  readonly pid: number;
  /** More serving processes whose CPU counts as the server's (a cluster's other nodes). */
  readonly alsoPids?: readonly number[];
  /** A helper whose CPU is reported beside the server's, not in it (`sideCpuPct`: the cluster's nats-server). */
  readonly sidePid?: number;
  readonly url: string;
  /** Several addresses: the connections are spread over them in turn (autocannon's own rule); `url` is then the first. */
  readonly urls?: readonly string[];
  readonly method?: 'GET' | 'POST';
  /** Fills in each request (path, headers, body); called once per request. `context` travels to `check`. */
  readonly next: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
  /** Judges each answer (warm-up included); false on a 2xx counts as an error. Without it only the status is judged. */
  readonly check?: (
    status: number,
    body: string,
    headers: Record<string, string | string[]>,
    context: Record<string, unknown>,
  ) => boolean;
  readonly notes?: readonly string[];
  /** Overrides of the run's timing for this scenario. */
  readonly timing?: Partial<Timing>;
}

async function fire(spec: ScenarioSpec, connections: number, durationSec: number, judge: boolean, rate?: number) {
  let bad = 0;
  const check = spec.check;
  const result = await autocannon({
    url: spec.urls ? [...spec.urls] : spec.url,
    connections,
    duration: durationSec,
    timeout: 10,
    ...(rate ? { overallRate: rate } : {}),
    requests: [
      {
        method: spec.method ?? 'GET',
        setupRequest: (request, context) => spec.next(request, context),
        ...(check
          ? {
              onResponse: (
                status: number,
                body: string,
                context: Record<string, unknown>,
                headers: Record<string, string | string[]>,
              ) => {
                // Called in the warm-up too (a check may collect what the answers carry); counted only when measured.
                if (!check(status, body, headers, context) && judge && status >= 200 && status < 300) bad += 1;
              },
            }
          : {}),
      },
    ],
  });
  return { result, bad };
}

/** Load that is not measured: brings the serving process to its busy state before a reading. */
export async function warmOnly(spec: ScenarioSpec, connections: number, seconds: number): Promise<void> {
  await fire(spec, connections, seconds, false);
}

/**
 * Warm-up (not recorded, same load), then the measured window: throughput, latency
 * percentiles, errors of every kind, the serving process's peak RSS and CPU, and the load
 * generator's own CPU (to show when the client, not the server, was the limit).
 */
export async function measure(spec: ScenarioSpec, runTiming: Timing, sampler: RssSampler | null): Promise<Measurement> {
  const timing = { ...runTiming, ...spec.timing };
  if (timing.warmupSec > 0) await fire(spec, timing.connections, timing.warmupSec, false, timing.rate);
  sampler?.window();
  const serverCpu0 = serverTimes(spec);
  const sideCpu0 = spec.sidePid === undefined ? null : cpuTimesOf(spec.sidePid);
  const mainCpu0 = cpuTimesOf(spec.pid, true);
  const clientCpu0 = process.cpuUsage();
  const busy0 = machineBusySeconds();
  const t0 = performance.now();
  const windowStart = Date.now();
  const { result, bad } = await fire(spec, timing.connections, timing.durationSec, true, timing.rate);
  const wallSec = (performance.now() - t0) / 1000;
  const windowEnd = Date.now();
  const serverCpu1 = serverTimes(spec);
  const sideCpu1 = spec.sidePid === undefined ? null : cpuTimesOf(spec.sidePid);
  const mainCpu1 = cpuTimesOf(spec.pid, true);
  const clientCpu = process.cpuUsage(clientCpu0);
  const busy1 = machineBusySeconds();
  const serverCpuPct =
    serverCpu0 && serverCpu1
      ? ((serverCpu1.user + serverCpu1.system - serverCpu0.user - serverCpu0.system) / wallSec) * 100
      : null;
  const serverSysPct = serverCpu0 && serverCpu1 ? ((serverCpu1.system - serverCpu0.system) / wallSec) * 100 : null;
  const serverMainPct =
    mainCpu0 && mainCpu1 ? ((mainCpu1.user + mainCpu1.system - mainCpu0.user - mainCpu0.system) / wallSec) * 100 : null;
  const clientCpuPct = ((clientCpu.user + clientCpu.system) / 1e6 / wallSec) * 100;
  const sideCpuPct =
    sideCpu0 && sideCpu1 ? ((sideCpu1.user + sideCpu1.system - sideCpu0.user - sideCpu0.system) / wallSec) * 100 : null;
  const machinePct = busy0 !== null && busy1 !== null ? ((busy1 - busy0) / wallSec) * 100 : null;
  const answered = Object.values(result.statusCodeStats ?? {}).reduce((sum, s) => sum + Number(s.count), 0);
  return {
    id: spec.id,
    label: spec.label,
    server: spec.server,
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: answered,
    errors: result.errors + result.non2xx + bad,
    peakRssMb: sampler?.peakMb() ?? null,
    serverCpuPct,
    serverSysPct,
    serverMainPct,
    clientCpuPct,
    otherCpuPct:
      machinePct !== null && serverCpuPct !== null
        ? Math.max(0, machinePct - serverCpuPct - clientCpuPct - (sideCpuPct ?? 0))
        : null,
    ...(spec.sidePid === undefined ? {} : { sideCpuPct }),
    windowMs: [windowStart, windowEnd],
    ...(spec.notes ? { notes: spec.notes } : {}),
  };
}

/** The CPU times of the serving process and of `alsoPids` summed; null once one of them is gone. */
function serverTimes(spec: ScenarioSpec): { user: number; system: number } | null {
  let user = 0;
  let system = 0;
  for (const pid of [spec.pid, ...(spec.alsoPids ?? [])]) {
    const times = cpuTimesOf(pid);
    if (!times) return null;
    user += times.user;
    system += times.system;
  }
  return { user, system };
}

/** A measurement with the baseline measured beside it, in alternation (see `measurePaired`). */
export interface PairedMeasurement extends Measurement {
  readonly referenceRps: number;
  readonly referenceCpuUs: number;
}

/** Several short windows of one scenario as one: totals, time-weighted means, the worst p99. */
export function combine(parts: readonly Measurement[]): Measurement {
  const first = parts[0]!;
  const seconds = parts.map((p) => (p.windowMs[1] - p.windowMs[0]) / 1000);
  const total = seconds.reduce((a, b) => a + b, 0);
  const weighted = (pick: (m: Measurement) => number | null) => {
    if (parts.some((p) => pick(p) === null)) return null;
    return parts.reduce((sum, p, i) => sum + pick(p)! * seconds[i]!, 0) / total;
  };
  const rssValues = parts.map((p) => p.peakRssMb).filter((v): v is number => v !== null);
  return {
    ...first,
    requestsPerSec: parts.reduce((sum, p, i) => sum + p.requestsPerSec * seconds[i]!, 0) / total,
    p50Ms: weighted((m) => m.p50Ms)!,
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    requests: parts.reduce((sum, p) => sum + p.requests, 0),
    errors: parts.reduce((sum, p) => sum + p.errors, 0),
    peakRssMb: rssValues.length > 0 ? Math.max(...rssValues) : null,
    serverCpuPct: weighted((m) => m.serverCpuPct),
    serverSysPct: weighted((m) => m.serverSysPct),
    serverMainPct: weighted((m) => m.serverMainPct ?? null),
    clientCpuPct: weighted((m) => m.clientCpuPct)!,
    otherCpuPct: weighted((m) => m.otherCpuPct),
    ...(first.sideCpuPct === undefined ? {} : { sideCpuPct: weighted((m) => m.sideCpuPct ?? null) }),
    windowMs: [first.windowMs[0], parts.at(-1)!.windowMs[1]],
  };
}

/**
 * The scenario's window cut into `slices`, each preceded by a one-second window of the
 * baseline, and one more baseline window at the end. On a virtual machine whose speed drifts by
 * a third within minutes (seen here), a ratio to a baseline measured minutes earlier says more
 * about the host than about the code; alternating every few seconds cancels the drift.
 */
export async function measurePaired(
  spec: ScenarioSpec,
  baseline: ScenarioSpec,
  runTiming: Timing,
  sampler: RssSampler | null,
  slices = 4,
): Promise<PairedMeasurement> {
  const timing = { ...runTiming, ...spec.timing };
  if (timing.warmupSec > 0) await fire(spec, timing.connections, timing.warmupSec, false, timing.rate);
  const slice = { ...timing, warmupSec: 0, durationSec: Math.max(1, Math.round(timing.durationSec / slices)) };
  const reference = { ...timing, warmupSec: 0, durationSec: 1 };
  const parts: Measurement[] = [];
  const references: Measurement[] = [];
  for (let k = 0; k < slices; k++) {
    references.push(await measure(baseline, reference, null));
    parts.push(await measure(spec, slice, sampler));
  }
  references.push(await measure(baseline, reference, null));
  const beside = combine(references);
  return { ...combine(parts), referenceRps: beside.requestsPerSec, referenceCpuUs: cpuPerRequestUs(beside) };
}

/**
 * Server CPU per request of a scenario and of the baseline at the same fixed offered load
 * (`rate` requests per second). At full speed the two are not comparable on a small machine:
 * the load generator shares the cores, the baseline answers faster, and a server answering more
 * requests per event-loop turn spends less CPU on each (fewer wake-ups and system calls), so the
 * faster side looks cheaper per request than it is.
 *
 * Measured in `rounds` rounds of one one-second window of each, the order swapped every other
 * round. On this virtual machine the same build read 1.2× in one run and 1.8× in the next with
 * the windows pooled: a burst of the host's other work that lands in one side's window moves a
 * pooled mean. Each round's own ratio compares windows a second apart, and the median of those
 * ratios ignores the few rounds such a burst hits; the smallest and largest are kept as the scatter.
 * A side that takes a few % of a core at `rate` needs longer windows (`windowSec`): the kernel
 * counts CPU in ticks of 10 ms.
 */
export async function measureAtEqualRate(
  spec: ScenarioSpec,
  baseline: ScenarioSpec,
  runTiming: Timing,
  rate: number,
  rounds = 10,
  windowSec = 1,
): Promise<EqualRateFigures> {
  const timing = { ...runTiming, ...spec.timing, rate };
  const window = { ...timing, warmupSec: 0, durationSec: windowSec };
  await fire(spec, timing.connections, 1, false, rate);
  await fire(baseline, timing.connections, 1, false, rate);
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const pair = k % 2 === 0 ? [spec, baseline] : [baseline, spec];
    for (const side of pair) {
      const us = cpuPerRequestUs(await measure(side, window, null));
      (side === spec ? mine : theirs).push(us);
    }
  }
  const ratios = mine.map((us, k) => ratio(us, theirs[k]));
  const finite = ratios.filter((r) => Number.isFinite(r));
  return {
    rate,
    cpuUs: median(mine),
    referenceCpuUs: median(theirs),
    ratio: median(ratios),
    spread: finite.length > 0 ? [Math.min(...finite), Math.max(...finite)] : [Number.NaN, Number.NaN],
    rounds,
  };
}

/**
 * Several scenarios measured in rounds: after a warm-up of each, `slices` rounds in which each
 * scenario has a short window in turn (the order reversed every other round, so that none always
 * follows the same one); each scenario's windows are combined. Ratios between them then compare
 * windows seconds apart.
 */
export async function measureRounds(
  specs: readonly ScenarioSpec[],
  runTiming: Timing,
  samplers: readonly (RssSampler | null)[],
  slices = 4,
): Promise<Measurement[]> {
  const parts = specs.map((): Measurement[] => []);
  for (const spec of specs) {
    const timing = { ...runTiming, ...spec.timing };
    if (timing.warmupSec > 0) await fire(spec, timing.connections, timing.warmupSec, false, timing.rate);
  }
  for (let k = 0; k < slices; k++) {
    const order = [...specs.keys()];
    if (k % 2 === 1) order.reverse();
    for (const i of order) {
      const spec = specs[i]!;
      const timing = { ...runTiming, ...spec.timing };
      const slice = { ...timing, warmupSec: 0, durationSec: Math.max(1, Math.round(timing.durationSec / slices)) };
      parts[i]!.push(await measure(spec, slice, samplers[i] ?? null));
    }
  }
  return parts.map(combine);
}
