// Issue 29, point 12: the request metrics as Prometheus reads them: per family and status
// class, cumulative buckets, live sockets counted but not timed.
import { Registry } from 'prom-client';
import t from 'tap';
import { RequestMetrics } from '../../../src/daemon/request-metrics.js';

async function scrape(metrics: RequestMetrics): Promise<string[]> {
  const registry = new Registry();
  for (const metric of metrics.metrics()) registry.registerMetric(metric);
  return (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

t.test('counts per family and status class, a histogram Prometheus can sum', async (t) => {
  const metrics = new RequestMetrics();
  metrics.record('room.knock', 202, 3);
  metrics.record('room.knock', 202, 30);
  metrics.record('room.knock', 429, 0.2);
  metrics.record('api.rooms', 500, 12_000);
  metrics.record('live', 200, 3_600_000, true);
  metrics.record('unmatched', 999, 1);
  const lines = await scrape(metrics);
  t.same(
    lines.filter((line) => line.startsWith('meet_http_requests_total')),
    [
      'meet_http_requests_total{family="api.rooms",status_class="5xx"} 1',
      'meet_http_requests_total{family="live",status_class="2xx"} 1',
      'meet_http_requests_total{family="room.knock",status_class="2xx"} 2',
      'meet_http_requests_total{family="room.knock",status_class="4xx"} 1',
      'meet_http_requests_total{family="unmatched",status_class="5xx"} 1',
    ],
    'sorted by family; a status outside 100-599 counts as 5xx',
  );
  const knock = lines.filter(
    (line) => line.includes('family="room.knock",status_class="2xx"') && line.startsWith('meet_http_request_duration'),
  );
  t.same(
    knock.map((line) =>
      line.replace(/^meet_http_request_duration_seconds_/, '').replace('{family="room.knock",status_class="2xx"', '{'),
    ),
    [
      'bucket{,le="0.005"} 1',
      'bucket{,le="0.01"} 1',
      'bucket{,le="0.025"} 1',
      'bucket{,le="0.05"} 2',
      'bucket{,le="0.1"} 2',
      'bucket{,le="0.25"} 2',
      'bucket{,le="0.5"} 2',
      'bucket{,le="1"} 2',
      'bucket{,le="2.5"} 2',
      'bucket{,le="5"} 2',
      'bucket{,le="10"} 2',
      'bucket{,le="+Inf"} 2',
      'sum{} 0.033',
      'count{} 2',
    ],
    'cumulative buckets, the sum in seconds',
  );
  t.ok(
    lines.includes('meet_http_request_duration_seconds_bucket{family="api.rooms",status_class="5xx",le="10"} 0') &&
      lines.includes('meet_http_request_duration_seconds_bucket{family="api.rooms",status_class="5xx",le="+Inf"} 1'),
    'a request slower than the last bound is only in +Inf',
  );
  t.notOk(
    lines.some((line) => line.startsWith('meet_http_request_duration') && line.includes('family="live"')),
    'a live socket is counted, never timed',
  );
});

t.test('nothing recorded: the metrics are declared, with no series', async (t) => {
  const registry = new Registry();
  for (const metric of new RequestMetrics().metrics()) registry.registerMetric(metric);
  t.same(
    (await registry.metrics()).split('\n').filter((line) => line !== ''),
    [
      '# HELP meet_http_requests_total Requests answered by the engine and compat listeners, per route family and status class',
      '# TYPE meet_http_requests_total counter',
      "# HELP meet_http_request_duration_seconds How long requests took to answer, per route family and status class (an upgraded live socket is not timed: its length is the connection's)",
      '# TYPE meet_http_request_duration_seconds histogram',
    ],
  );
});
