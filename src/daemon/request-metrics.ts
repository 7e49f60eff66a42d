import type { Counter, Histogram, Metric } from 'prom-client';
import type { RequestRecorder } from '../platform/access-log.js';

/**
 * meet_http_requests_total and meet_http_request_duration_seconds, per route family and status
 * class, for the Prometheus registry (metrics.ts). prom-client's own counters hash their label
 * values into a string on every call; a request is the hot path, so recording here is one map
 * lookup (the family string access-log.ts already holds) and a few array increments, and the
 * series are only written out when Prometheus scrapes.
 */

/** Upper bounds (seconds) of the duration histogram: prom-client's defaults. */
export const requestBuckets: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const classCount = statusClasses.length;

/** An answer's class; anything outside 100-599 counts as 5xx (it was no proper answer). */
function classOf(status: number): number {
  return status >= 100 && status < 600 ? ((status / 100) | 0) - 1 : classCount - 1;
}

class FamilyCounts {
  readonly requests = new Float64Array(classCount);
  /** Requests with a duration (an upgraded live socket has none: its "response" lasts the whole connection). */
  readonly timed = new Float64Array(classCount);
  readonly seconds = new Float64Array(classCount);
  /** Per class, per bucket, not cumulative (the scrape adds them up); above the last bound: only in `timed`. */
  readonly buckets = new Float64Array(classCount * requestBuckets.length);
}

type Labels = { family: string; status_class: string };
interface Series {
  readonly value: number;
  readonly labels: Labels | (Labels & { le: number | string });
  readonly metricName?: string;
}

export class RequestMetrics implements RequestRecorder {
  private readonly families = new Map<string, FamilyCounts>();

  record(family: string, status: number, elapsedMs: number, upgraded = false): void {
    let counts = this.families.get(family);
    if (!counts) {
      counts = new FamilyCounts();
      this.families.set(family, counts);
    }
    const cls = classOf(status);
    counts.requests[cls]!++;
    if (upgraded) return;
    const seconds = elapsedMs / 1000;
    counts.timed[cls]!++;
    counts.seconds[cls]! += seconds;
    let bucket = 0;
    while (bucket < requestBuckets.length && seconds > requestBuckets[bucket]!) bucket++;
    if (bucket < requestBuckets.length) counts.buckets[cls * requestBuckets.length + bucket]!++;
  }

  /** The two metrics as the registry reads them (`get()`), for `Registry.registerMetric`. */
  metrics(): Metric[] {
    const total = {
      name: 'meet_http_requests_total',
      help: 'Requests answered by the engine and compat listeners, per route family and status class',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...total, values: this.totals() }),
      reset: () => undefined,
    };
    const duration = {
      name: 'meet_http_request_duration_seconds',
      help: "How long requests took to answer, per route family and status class (an upgraded live socket is not timed: its length is the connection's)",
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ ...duration, values: this.durations() }),
      reset: () => undefined,
    };
    // The registry reads a metric only through name, help, type, aggregator and get(); these
    // are shaped as its own Counter and Histogram answer, without their per-call label hashing.
    return [total as unknown as Counter, duration as unknown as Histogram];
  }

  private *each(): Generator<[Labels, FamilyCounts, number]> {
    for (const [family, counts] of [...this.families].sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (let cls = 0; cls < classCount; cls++) {
        if (counts.requests[cls] !== 0) yield [{ family, status_class: statusClasses[cls]! }, counts, cls];
      }
    }
  }

  private totals(): Series[] {
    return [...this.each()].map(([labels, counts, cls]) => ({ labels, value: counts.requests[cls]! }));
  }

  private durations(): Series[] {
    const values: Series[] = [];
    for (const [labels, counts, cls] of this.each()) {
      if (counts.timed[cls] === 0) continue;
      let cumulative = 0;
      requestBuckets.forEach((le, bucket) => {
        cumulative += counts.buckets[cls * requestBuckets.length + bucket]!;
        values.push({
          metricName: 'meet_http_request_duration_seconds_bucket',
          labels: { ...labels, le },
          value: cumulative,
        });
      });
      values.push({
        metricName: 'meet_http_request_duration_seconds_bucket',
        labels: { ...labels, le: '+Inf' },
        value: counts.timed[cls]!,
      });
      values.push({ metricName: 'meet_http_request_duration_seconds_sum', labels, value: counts.seconds[cls]! });
      values.push({ metricName: 'meet_http_request_duration_seconds_count', labels, value: counts.timed[cls]! });
    }
    return values;
  }
}
