import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';

export interface AttemptLimits {
  readonly limit: number;
  readonly windowMs: number;
}

export const defaultCodeAttemptLimits: AttemptLimits = { limit: 10, windowMs: 10 * 60_000 };

export class TooManyAttemptsError extends EngineError {
  constructor(readonly retryAfterSecs: number) {
    super('too_many_attempts', `too many wrong access codes; try again in ${retryAfterSecs} s`);
  }
}

/**
 * Failed attempts per key in a sliding window. Once `limit` failures lie inside the window,
 * every attempt is refused (a right guess too, or guessing would simply continue) until the
 * oldest leaves it.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: AttemptLimits = defaultCodeAttemptLimits,
  ) {}

  /** Throws TooManyAttemptsError while `key` is blocked. */
  check(key: string): void {
    const now = this.clock.now().getTime();
    const recent = this.recent(key, now);
    const oldest = recent[0];
    if (oldest !== undefined && recent.length >= this.limits.limit) {
      throw new TooManyAttemptsError(Math.max(1, Math.ceil((oldest + this.limits.windowMs - now) / 1000)));
    }
  }

  fail(key: string): void {
    const now = this.clock.now().getTime();
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent.slice(-this.limits.limit));
  }

  /** Forgets keys with no failure left in the window, so memory follows only active guessers. */
  prune(): void {
    const now = this.clock.now().getTime();
    for (const key of [...this.failures.keys()]) this.recent(key, now);
  }

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.limits.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }
}
