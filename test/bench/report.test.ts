import t from 'tap';
import { checkTargets, cpuPerRequestUs, flatness, formatTable, percent, ratio, resultTable, targetCell, type Measurement } from '../../bench/lib/report.js';

function m(id: string, requestsPerSec: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    id, label: id, server: 'daemon', requestsPerSec, p50Ms: 1, p99Ms: 2, requests: requestsPerSec * 8, errors: 0,
    peakRssMb: 100, serverCpuPct: 100, serverSysPct: 10, clientCpuPct: 50, otherCpuPct: 0, windowMs: [0, 8000], ...extra,
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
      m('poll-1k', 7100), m('poll-10k', 7000), m('poll-50k', 6500),
      m('knock', 2000),
      m('info-1t', 6000), m('info-1000t', 5500),
      m('running-1t', 4000), m('running-1000t', 3000),
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
  t.equal(verdict('rss-10k'), 'met');
  t.equal(targetCell('info-1000t', checks), '≥90% of 1 tenant (92%): met');
  t.equal(targetCell('knock', checks), '≥25%: not met; on disk: met');
});

t.test('lost requests and missing figures are never "met"', async (t) => {
  const byId = new Map([m('poll-1k', 9000, { errors: 12 })].map((x) => [x.id, x]));
  const checks = checkTargets(byId, 10_000, { rssAddedBy10kMb: null, knocksAcknowledged: 10, knocksOnDisk: 9 });
  const verdict = (id: string) => checks.find((c) => c.id === id)?.verdict;
  t.equal(verdict('poll-1k-vs-baseline'), 'not met', 'errors spoil a fast figure');
  t.equal(verdict('poll-10k-vs-baseline'), 'not measured');
  t.equal(verdict('knock-durable'), 'not met', 'one acknowledged knock missing');
  t.equal(verdict('rss-10k'), 'not measured');
});

t.test('the table is Markdown with padded columns', async (t) => {
  t.equal(formatTable(['a', 'bb'], [['xyz', '1'], ['q', '22']], [false, true]), ['| a   | bb |', '|-----|---:|', '| xyz |  1 |', '| q   | 22 |'].join('\n'));
  const table = resultTable([m('baseline-1', 10_000, { server: 'baseline' }), m('poll-1k', 7000)], 10_000, []);
  const lines = table.split('\n');
  t.equal(lines.length, 4);
  t.ok(lines.every((line) => line.length === lines[0]!.length), 'every row as wide as the header');
  t.match(lines[3]!, /\| poll-1k .*\|\s+70% \|/);
});
