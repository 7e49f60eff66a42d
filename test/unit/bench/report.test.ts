import t from 'tap';
import {
  checkTargets,
  clusterPollFigures,
  clusterPollLine,
  cpuPerRequestUs,
  cpuRatioOf,
  flatness,
  formatTable,
  median,
  percent,
  ratio,
  resultTable,
  targetCell,
  type Measurement,
} from '../../../bench/lib/report.js';
import { combine } from '../../../bench/lib/load.js';

function m(id: string, requestsPerSec: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    id,
    label: id,
    server: 'daemon',
    requestsPerSec,
    p50Ms: 1,
    p99Ms: 2,
    requests: requestsPerSec * 8,
    errors: 0,
    peakRssMb: 100,
    serverCpuPct: 100,
    serverSysPct: 10,
    clientCpuPct: 50,
    otherCpuPct: 0,
    windowMs: [0, 8000],
    ...extra,
  };
}

t.test('ratio, percent and flatness', async (t) => {
  t.equal(ratio(7000, 10_000), 0.7);
  t.ok(Number.isNaN(ratio(5, 0)), 'no ratio to nothing');
  t.ok(Number.isNaN(ratio(null, 10)), 'no ratio of a missing figure');
  t.equal(percent(0.704), '70%');
  t.equal(percent(Number.NaN), 'n/a');
  t.equal(flatness([900, 1000, 950]), 0.9);
  t.ok(Number.isNaN(flatness([1000, Number.NaN])), 'a missing figure is not flat');
  t.equal(cpuPerRequestUs({ serverCpuPct: 50, requestsPerSec: 10_000 }), 50);
});

t.test('targets are judged on the run’s own figures', async (t) => {
  const byId = new Map(
    [
      m('poll-1k', 7100),
      m('poll-10k', 7000),
      m('poll-50k', 6500),
      m('knock', 2000),
      m('info-1t', 6000),
      m('info-1000t', 5500),
      m('running-1t', 4000),
      m('running-1000t', 3000),
      m('create-path-1t', 2000),
      m('create-path-1000t', 1900),
      m('create-1t', 2000),
      m('create-1000t', 1500),
    ].map((x) => [x.id, x]),
  );
  const checks = checkTargets(byId, 10_000, { rssAddedBy10kMb: 40, knocksAcknowledged: 100, knocksOnDisk: 100 });
  const verdict = (id: string) => checks.find((c) => c.id === id)?.verdict;
  t.equal(verdict('poll-1k-vs-baseline'), 'met');
  t.equal(verdict('poll-50k-vs-baseline'), 'not met', '65% is under 70%');
  t.equal(verdict('poll-flat'), 'met', '6500/7100 is within 10%');
  t.equal(verdict('knock-vs-baseline'), 'not met');
  t.equal(verdict('knock-durable'), 'met');
  t.equal(verdict('info-1t-vs-baseline'), 'met');
  t.equal(verdict('info-1000t-vs-1t'), 'met', '5500/6000 = 92%');
  t.equal(verdict('running-1t-vs-baseline'), 'not met');
  t.equal(verdict('running-1000t-vs-1t'), 'not met', '75% of its single-tenant figure');
  t.equal(verdict('rss-10k'), 'not met', 'issue 36: 40 MiB is over 20 MiB per 10,000');
  t.equal(verdict('create-path-1000t-vs-1t'), 'met', 'create with the tenant in the path: 1900/2000 = 95%');
  t.equal(targetCell('create-path-1000t', checks), '≥90% of 1 tenant (95%): met');
  t.equal(verdict('create-1000t-vs-1t'), 'not met', 'issue 36: the search, 1500/2000 = 75% is under 80%');
  t.equal(targetCell('create-1000t', checks), '≥80% of 1 tenant (75%): not met');
  t.equal(targetCell('info-1000t', checks), '≥90% of 1 tenant (92%): met');
  t.equal(targetCell('knock', checks), '≥25%: not met; on disk: met');
});

t.test('issue 36: memory at 10,000 and 50,000 open, and the poll at 50 connections', async (t) => {
  const byId = new Map([m('poll-10k', 7000), m('poll-10k-50c', 6900), m('poll-50k', 7000)].map((x) => [x.id, x]));
  const judge = (rss10k: number, rss50k: number | null) => {
    const checks = checkTargets(byId, 10_000, {
      rssAddedBy10kMb: rss10k,
      rssAddedBy50kMb: rss50k,
      knocksAcknowledged: null,
      knocksOnDisk: null,
    });
    return (id: string) => checks.find((c) => c.id === id);
  };
  t.equal(judge(19.5, 99)('rss-10k')?.verdict, 'met', '19.5 MiB per 10,000');
  t.equal(judge(20.5, 99)('rss-10k')?.verdict, 'not met', '20.5 MiB per 10,000');
  t.equal(judge(19.5, 99)('rss-50k')?.verdict, 'met', '99 MiB per 50,000');
  t.equal(judge(19.5, 101)('rss-50k')?.verdict, 'not met', '101 MiB per 50,000');
  t.equal(judge(19.5, null)('rss-50k')?.verdict, 'not measured', 'no 50,000 in the run');
  t.same(judge(19.5, 99)('rss-50k')?.rows, ['poll-50k'], 'shown on the 50,000 row');
  t.equal(judge(19.5, 99)('poll-10k-50c-vs-baseline')?.verdict, 'not met', '69% at 50 connections is under 70%');
  const fast = checkTargets(new Map([m('poll-10k-50c', 7100)].map((x) => [x.id, x])), 10_000, {
    rssAddedBy10kMb: null,
    knocksAcknowledged: null,
    knocksOnDisk: null,
  });
  t.equal(fast.find((c) => c.id === 'poll-10k-50c-vs-baseline')?.verdict, 'met', '71% at 50 connections');
  t.equal(targetCell('poll-10k-50c', fast), '≥70%: met');
});

t.test('lost requests and missing figures are never "met"', async (t) => {
  const byId = new Map([m('poll-1k', 9000, { errors: 12 })].map((x) => [x.id, x]));
  const checks = checkTargets(byId, 10_000, { rssAddedBy10kMb: null, knocksAcknowledged: 10, knocksOnDisk: 9 });
  const verdict = (id: string) => checks.find((c) => c.id === id)?.verdict;
  t.equal(verdict('poll-1k-vs-baseline'), 'not met', 'errors spoil a fast figure');
  t.equal(verdict('poll-10k-vs-baseline'), 'not measured');
  t.equal(verdict('knock-durable'), 'not met', 'one acknowledged knock missing');
  t.equal(verdict('rss-10k'), 'not measured');
  t.equal(verdict('create-path-1000t-vs-1t'), 'not measured');
  t.equal(verdict('create-1000t-vs-1t'), 'not measured');
});

t.test('the table is Markdown with padded columns', async (t) => {
  t.equal(
    formatTable(
      ['a', 'bb'],
      [
        ['xyz', '1'],
        ['q', '22'],
      ],
      [false, true],
    ),
    ['| a   | bb |', '|-----|---:|', '| xyz |  1 |', '| q   | 22 |'].join('\n'),
  );
  const table = resultTable([m('baseline-1', 10_000, { server: 'baseline' }), m('poll-1k', 7000)], 10_000, []);
  const lines = table.split('\n');
  t.equal(lines.length, 4);
  t.ok(
    lines.every((line) => line.length === lines[0]!.length),
    'every row as wide as the header',
  );
  t.match(lines[3]!, /\| poll-1k .*\|\s+70% \|/);
});

t.test('a scenario measured beside its own baseline is judged against that baseline', async (t) => {
  // The host slowed down by a third between the first poll scenario and the last.
  const byId = new Map(
    [
      m('poll-1k', 14_000, { referenceRps: 20_000 }),
      m('poll-10k', 12_000, { referenceRps: 17_000 }),
      m('poll-50k', 9_500, { referenceRps: 13_500 }),
      m('info-1t', 10_000, { referenceRps: 20_000 }),
      m('info-1000t', 6_600, { referenceRps: 13_000 }),
    ].map((x) => [x.id, x]),
  );
  const checks = checkTargets(byId, 16_000, { rssAddedBy10kMb: null, knocksAcknowledged: null, knocksOnDisk: null });
  const check = (id: string) => checks.find((c) => c.id === id);
  t.equal(check('poll-50k-vs-baseline')?.measured, '70%', '9,500 of the 13,500 beside it, not of the run mean');
  t.equal(check('poll-flat')?.verdict, 'met', 'the drift of the host cancels: 70-71% of baseline at every size');
  t.ok(flatness([14_000, 12_000, 9_500]) < 0.9, 'raw req/s would have failed it');
  t.equal(check('info-1000t-vs-1t')?.measured, '102%', 'tenants compared as ratios to their own baselines');
  t.match(resultTable([...byId.values()], 16_000, checks), /poll-50k\s+\|\s+9500 \|.*\|\s+70% \|/);
});

t.test('slices of one scenario combine into one measurement', async (t) => {
  const a = m('poll-1k', 10_000, { windowMs: [0, 2000], requests: 20_000, p99Ms: 2, peakRssMb: 100, serverCpuPct: 90 });
  const b = m('poll-1k', 20_000, {
    windowMs: [3000, 5000],
    requests: 40_000,
    p99Ms: 5,
    peakRssMb: 120,
    serverCpuPct: 100,
  });
  const c = combine([a, b]);
  t.equal(c.requestsPerSec, 15_000, 'time-weighted');
  t.equal(c.requests, 60_000);
  t.equal(c.p99Ms, 5, 'the worst p99 of the slices');
  t.equal(c.peakRssMb, 120);
  t.equal(c.serverCpuPct, 95);
  t.same(c.windowMs, [0, 5000], 'from the first slice to the last');
});

t.test("the poll's server CPU per request is judged against the baseline's beside it (≤ 1.45×)", async (t) => {
  // serverCpuPct 100 at 10,000 req/s = 100 µs per request.
  const byId = new Map(
    [
      m('poll-1k', 10_000, { referenceCpuUs: 80 }),
      m('poll-10k', 10_000, { referenceCpuUs: 60 }),
      m('poll-50k', 10_000, { referenceCpuUs: 75, errors: 3 }),
    ].map((x) => [x.id, x]),
  );
  const checks = checkTargets(
    byId,
    12_000,
    { rssAddedBy10kMb: null, knocksAcknowledged: null, knocksOnDisk: null },
    50,
  );
  const check = (id: string) => checks.find((c) => c.id === id);
  t.equal(check('poll-1k-cpu')?.measured, '1.25×', '100 µs against the 80 µs of the baseline beside it');
  t.equal(check('poll-1k-cpu')?.verdict, 'met');
  t.equal(check('poll-10k-cpu')?.verdict, 'not met', '100 µs against 60 µs is 1.67×');
  t.equal(check('poll-50k-cpu')?.verdict, 'not met', 'lost requests spoil a cheap figure');
  t.equal(targetCell('poll-1k', checks), '≥70%: met; CPU ≤1.45×: met');
  t.match(
    resultTable([...byId.values()], 12_000, checks, 50),
    /poll-1k .*\|\s+100 \|\s+1\.25× \|/,
    'the ratio is a column of the table',
  );

  const unpaired = checkTargets(
    new Map([['poll-1k', m('poll-1k', 10_000)]]),
    12_000,
    { rssAddedBy10kMb: null, knocksAcknowledged: null, knocksOnDisk: null },
    80,
  );
  t.equal(
    unpaired.find((c) => c.id === 'poll-1k-cpu')?.measured,
    '1.25×',
    "without a baseline beside it, the run's baseline figure",
  );
  t.equal(
    checkTargets(new Map(), 12_000, { rssAddedBy10kMb: null, knocksAcknowledged: null, knocksOnDisk: null }).find(
      (c) => c.id === 'poll-1k-cpu',
    )?.verdict,
    'not measured',
  );
});

t.test('paired slices carry the baseline’s CPU per request beside them', async (t) => {
  const a = m('baseline', 20_000, { windowMs: [0, 1000], serverCpuPct: 80 });
  const b = m('baseline', 20_000, { windowMs: [2000, 3000], serverCpuPct: 100 });
  t.equal(cpuPerRequestUs(combine([a, b])), 45, 'total CPU over total requests: 0.9 core at 20,000 req/s');
});

t.test('the CPU comparison at an equal load is the median of the rounds’ own ratios', async (t) => {
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 3, 2]), 2.5, 'an even count: the mean of the two middle values');
  t.equal(median([5, Number.NaN, 1]), 3, 'a window without a figure is left out');
  t.ok(Number.isNaN(median([])), 'no figure, no median');
  const burst = { rate: 8000, cpuUs: 60, referenceCpuUs: 40, ratio: 1.3, spread: [1.1, 2.4] as const, rounds: 10 };
  t.equal(
    cpuRatioOf(m('poll-1k', 10_000, { equalRate: burst }), 30),
    1.3,
    'the rounds’ median, not the ratio of the pooled medians (1.5)',
  );
  t.equal(
    cpuRatioOf(m('poll-1k', 10_000, { equalRate: { rate: 8000, cpuUs: 60, referenceCpuUs: 40 } }), 30),
    1.5,
    'figures without rounds: the ratio of the two',
  );
  t.equal(
    cpuRatioOf(m('poll-1k', 10_000, { referenceCpuUs: 50 }), 30),
    2,
    'no equal-load figures: beside it at full speed',
  );
});

t.test("issue 35: the cluster's polls, three nodes against one, nats-server's CPU beside the daemons'", async (t) => {
  // serverCpuPct 100 at 10,000 polls/s = 100 µs of the three daemons' CPU per poll; nats 20% = 20 µs.
  const one = m('cluster-poll-1n', 10_000, { serverCpuPct: 100, sideCpuPct: 5, referenceCpuUs: 50 });
  const three = m('cluster-poll-3n', 5_000, { serverCpuPct: 150, sideCpuPct: 20, referenceCpuUs: 75 });
  const byId = new Map([one, three].map((x) => [x.id, x]));
  const full = clusterPollFigures(byId, 40);
  t.equal(full?.oneNodeUs, 100);
  t.equal(full?.threeNodesUs, 300, '1.5 cores at 5,000 polls/s');
  t.equal(full?.natsOneNodeUs, 5);
  t.equal(full?.natsThreeNodesUs, 40);
  t.equal(full?.threeVsOne, 3, 'without an equal-load comparison: the full-speed figures');
  t.equal(full?.threeVsOneAt, 'full speed');
  t.equal(full?.oneNodeVsBaseline, 2, 'each row against the bare route beside it');
  t.equal(full?.threeNodesVsBaseline, 4);
  const equal = clusterPollFigures(byId, 40, {
    rate: 3000,
    cpuUs: 200,
    referenceCpuUs: 100,
    ratio: 1.9,
    spread: [1.7, 2.2],
    rounds: 10,
  });
  t.equal(equal?.threeVsOne, 1.9, 'at one offered load: the median of the rounds');
  t.same(equal?.spread, [1.7, 2.2]);
  t.equal(
    clusterPollLine(equal!, 3000),
    "cluster, polls: all daemons' CPU per poll 100 µs with the owner alone (2.00× the bare route's), 300 µs spread over three nodes (4.00×); " +
      'three nodes against one 1.90× at an equal offered load of 3000 polls/s, median of the rounds (1.70×-2.20×); nats-server beside them 5 µs and 40 µs per poll',
  );
  t.equal(
    clusterPollFigures(new Map([m('poll-1k', 1000)].map((x) => [x.id, x])), 40),
    null,
    'no cluster rows: no line',
  );
  const missing = clusterPollFigures(new Map([[one.id, one]]), 40);
  t.ok(Number.isNaN(missing!.threeVsOne), 'one row alone: no ratio');
  t.match(clusterPollLine(missing!), /n\/a spread over three nodes/);
  t.match(
    resultTable([...byId.values()], 10_000, [], 40),
    /cluster-poll-3n .*\|\s+300 \|\s+4\.00× \|/,
    'both rows in the table, each against its baseline',
  );
  const a = m('cluster-poll-3n', 5_000, { windowMs: [0, 1000], sideCpuPct: 10 });
  const b = m('cluster-poll-3n', 5_000, { windowMs: [2000, 3000], sideCpuPct: 30 });
  t.equal(combine([a, b]).sideCpuPct, 20, "slices combine nats-server's CPU as the server's");
  t.equal(combine([m('x', 1), m('x', 1)]).sideCpuPct, undefined, 'a row without a helper has none');
});
