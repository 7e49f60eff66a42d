import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';

export interface AttemptLimits {
  readonly limit: number;
  readonly windowMs: number;
}

export const defaultCodeAttemptLimits: AttemptLimits = { limit: 10, windowMs: 10 * 60_000 };

export type RateLimitCode =
  'too_many_attempts' | 'too_many_knocks' | 'too_many_waiting' | 'waiting_room_full' | 'too_many_sign_ins';

const messages: Readonly<Record<RateLimitCode, (secs: number) => string>> = {
  too_many_attempts: (secs) => `too many wrong access codes; try again in ${secs} s`,
  too_many_knocks: (secs) => `too many requests to join this room from your network; try again in ${secs} s`,
  too_many_waiting: (secs) => `too many people from your network are waiting in this room; try again in ${secs} s`,
  waiting_room_full: (secs) => `too many people are waiting in this room; try again in ${secs} s`,
  too_many_sign_ins: (secs) => `too many failed sign-ins; try again in ${secs} s`,
};

/** A refusal that tells when to come back (HTTP 429 with Retry-After). */
export class TooManyAttemptsError extends EngineError {
  constructor(
    readonly retryAfterSecs: number,
    code: RateLimitCode = 'too_many_attempts',
  ) {
    super(code, messages[code](retryAfterSecs));
  }
}

/**
 * Attempts per key in a sliding window. Once `limit` attempts lie inside the window, every
 * attempt is refused (a right guess too, or guessing would simply continue) until the
 * oldest leaves it.
 */
export class AttemptLimiter {
  /**
   * A key's attempt times inside the window, oldest first, in ms since this limiter was made. One
   * attempt (a knock: every waiting person's address) is kept as its number, not a list: a small
   * integer for V8 (for 24 days of uptime), so 10,000 addresses cost their map entries only,
   * where a list each cost about 60 bytes more (issue 36 point 2).
   */
  private readonly failures = new Map<string, number | number[]>();
  private readonly inFlight = new Map<string, { count: number; readonly settled: (() => void)[] }>();
  private readonly originMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly limits: AttemptLimits = defaultCodeAttemptLimits,
    private readonly code: RateLimitCode = 'too_many_attempts',
  ) {
    this.originMs = clock.now().getTime();
  }

  /** Throws TooManyAttemptsError while `key` is blocked. */
  check(key: string): void {
    const now = this.nowMs();
    const recent = this.recent(key, now);
    const oldest = recent[0];
    if (oldest !== undefined && recent.length >= this.limits.limit) {
      throw new TooManyAttemptsError(Math.max(1, Math.ceil((oldest + this.limits.windowMs - now) / 1000)), this.code);
    }
  }

  /** Counts an attempt now (a wrong code, a new request). */
  record(key: string): void {
    const now = this.nowMs();
    const recent = this.recent(key, now);
    recent.push(now);
    this.keep(key, recent.slice(-this.limits.limit));
  }

  /**
   * For an attempt whose outcome takes a while (an access code hashed off the event loop):
   * attempts in flight count against the limit, so guesses sent at once cannot all pass
   * `check` before the first one failed; those beyond it wait for one to finish instead of
   * being refused, so a class typing the right code at once is not turned away. Call the
   * returned function with the outcome.
   */
  async begin(key: string): Promise<(succeeded: boolean) => void> {
    for (;;) {
      this.check(key);
      const flight = this.inFlight.get(key) ?? { count: 0, settled: [] };
      if (this.recent(key, this.nowMs()).length + flight.count < this.limits.limit) {
        flight.count++;
        this.inFlight.set(key, flight);
        return (succeeded) => {
          if (!succeeded) this.record(key);
          flight.count--;
          if (flight.count === 0) this.inFlight.delete(key);
          for (const wake of flight.settled.splice(0)) wake();
        };
      }
      await new Promise<void>((resolve) => flight.settled.push(resolve));
    }
  }

  /**
   * Forgets keys with no failure left in the window, so memory follows only active guessers.
   * Runs every second over every key (after a class of 50,000 knocked, 50,000 addresses), so it
   * allocates nothing: a key's times are in order, so its last one tells whether any is left;
   * the older times of a key still active are dropped when the key is next used.
   */
  prune(): void {
    const horizon = this.nowMs() - this.limits.windowMs;
    // forEach, not for-of: no [key, times] pair per key.
    this.failures.forEach((times, key) => {
      const last = typeof times === 'number' ? times : times[times.length - 1];
      if (last === undefined || last <= horizon) this.failures.delete(key);
    });
  }

  /** Nothing counted and nothing in flight: a limiter made per scope may be dropped. */
  idle(): boolean {
    return this.failures.size === 0 && this.inFlight.size === 0;
  }

  private recent(key: string, now: number): number[] {
    const held = this.failures.get(key);
    const times = held === undefined ? [] : typeof held === 'number' ? [held] : held;
    const kept = times.filter((at) => at > now - this.limits.windowMs);
    this.keep(key, kept);
    return kept;
  }

  private keep(key: string, times: number[]): void {
    if (times.length === 0) this.failures.delete(key);
    else this.failures.set(key, times.length === 1 ? times[0]! : times);
  }

  private nowMs(): number {
    return this.clock.now().getTime() - this.originMs;
  }
}
