import type { Clock } from '../engine/clock.js';
import type { RequestRecorder } from '../platform/access-log.js';

/**
 * Requests per route family over a window, for the one summary line a minute that replaces
 * a line per request. Latency goes into a fixed log-linear histogram (integer microseconds:
 * exact below 16 µs, then 8 buckets per power of two, so a percentile is at most 12.5% high),
 * so recording is a few integer operations and no allocation; a family's arrays are made once,
 * the first time it is seen, and zeroed (not replaced) when the window is taken.
 */

const exactBelow = 16;
const subBuckets = 8;
const maxMicros = 2 ** 31 - 1;
// Powers of two from 2^4 to 2^30, 8 buckets each, after the 16 exact ones.
const bucketCount = exactBelow + (30 - 4 + 1) * subBuckets;

export function bucketOf(micros: number): number {
  const us = micros < 0 ? 0 : micros > maxMicros ? maxMicros : micros | 0;
  if (us < exactBelow) return us;
  const exponent = 31 - Math.clz32(us);
  return exactBelow + (exponent - 4) * subBuckets + ((us >>> (exponent - 3)) & 7);
}

/** The largest value (µs) a bucket holds. */
export function bucketTop(bucket: number): number {
  if (bucket < exactBelow) return bucket;
  const exponent = Math.floor((bucket - exactBelow) / subBuckets) + 4;
  const sub = (bucket - exactBelow) % subBuckets;
  const step = 2 ** (exponent - 3);
  return (subBuckets + sub) * step + step - 1;
}

class FamilyWindow {
  count = 0;
  clientErrors = 0;
  serverErrors = 0;
  maxMicros = 0;
  readonly buckets = new Uint32Array(bucketCount);

  reset(): void {
    this.count = 0;
    this.clientErrors = 0;
    this.serverErrors = 0;
    this.maxMicros = 0;
    this.buckets.fill(0);
  }

  /** The value (µs) at or below which `fraction` of the requests fall, never above the largest seen. */
  percentile(fraction: number): number {
    const rank = Math.max(1, Math.ceil(fraction * this.count));
    let seen = 0;
    for (let bucket = 0; bucket < bucketCount; bucket++) {
      seen += this.buckets[bucket]!;
      if (seen >= rank) return Math.min(bucketTop(bucket), this.maxMicros);
    }
    return this.maxMicros;
  }
}

export interface FamilySummary {
  readonly n: number;
  /** Answers 400-499 (the expected ones included: counted here, never logged one by one). */
  readonly '4xx': number;
  readonly '5xx': number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export interface SummaryLine {
  readonly windowSecs: number;
  readonly requests: number;
  /** Per family, latencies in milliseconds (two decimals). */
  readonly families: Readonly<Record<string, FamilySummary>>;
}

const ms = (micros: number): number => Math.round(micros / 10) / 100;

export class RequestSummary implements RequestRecorder {
  private readonly families = new Map<string, FamilyWindow>();
  private windowStart: number;

  constructor(private readonly clock: Clock) {
    this.windowStart = clock.now().getTime();
  }

  record(family: string, status: number, elapsedMs: number): void {
    let window = this.families.get(family);
    if (!window) {
      window = new FamilyWindow();
      this.families.set(family, window);
    }
    const micros = elapsedMs * 1000;
    window.count++;
    if (status >= 500) window.serverErrors++;
    else if (status >= 400) window.clientErrors++;
    if (micros > window.maxMicros) window.maxMicros = micros;
    window.buckets[bucketOf(micros)]!++;
  }

  /** The window since the last take and a new one begun; null when no request came in it. */
  take(): SummaryLine | null {
    const now = this.clock.now().getTime();
    const windowSecs = Math.round((now - this.windowStart) / 100) / 10;
    this.windowStart = now;
    const families: Record<string, FamilySummary> = {};
    let requests = 0;
    for (const name of [...this.families.keys()].sort()) {
      const window = this.families.get(name)!;
      if (window.count === 0) continue;
      requests += window.count;
      families[name] = {
        n: window.count,
        '4xx': window.clientErrors,
        '5xx': window.serverErrors,
        p50: ms(window.percentile(0.5)),
        p95: ms(window.percentile(0.95)),
        p99: ms(window.percentile(0.99)),
        max: ms(window.maxMicros),
      };
      window.reset();
    }
    return requests === 0 ? null : { windowSecs, requests, families };
  }
}

/** Writes the summary every `intervalMs` (skipped when nothing happened); returns the stop. */
export function summarizeEvery(
  summary: RequestSummary,
  intervalMs: number,
  write: (line: SummaryLine) => void,
): () => void {
  const timer = setInterval(() => {
    const line = summary.take();
    if (line) write(line);
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    // What the last partial window saw is not lost at a stop.
    const line = summary.take();
    if (line) write(line);
  };
}
