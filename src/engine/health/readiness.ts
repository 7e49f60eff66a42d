import type { Clock } from '../clock.js';

/** The database side of readiness: one real, committed write, or an exception saying why not. */
export interface WriteProbe {
  probeWrite(): void;
}

/**
 * One thing the service needs before it can take traffic. `check` answers true (fine), false
 * (failing) or null (does not apply on this instance: left out of the report); throwing
 * counts as failing. `reuseMs` keeps an answer that long, for checks that cost a disk write.
 */
export interface ReadinessCheck {
  readonly name: string;
  readonly check: () => boolean | null;
  readonly reuseMs?: number;
}

export type CheckState = 'ok' | 'failing';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckState>>;
}

/**
 * What /readyz answers. The failure's detail (a path, an SQLite message) goes to `onFailure`
 * for the log and never into the report, which an unauthenticated caller reads.
 */
export class Readiness {
  private readonly reused = new Map<string, { at: number; state: CheckState | null }>();

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly clock: Clock,
    private readonly onFailure: (name: string, err: unknown) => void = () => {},
  ) {}

  report(): ReadinessReport {
    const checks: Record<string, CheckState> = {};
    for (const check of this.checks) {
      const state = this.stateOf(check);
      if (state !== null) checks[check.name] = state;
    }
    return { ready: Object.values(checks).every((state) => state === 'ok'), checks };
  }

  private stateOf(check: ReadinessCheck): CheckState | null {
    const now = this.clock.now().getTime();
    const kept = this.reused.get(check.name);
    if (kept && check.reuseMs !== undefined && now - kept.at < check.reuseMs) return kept.state;
    let state: CheckState | null;
    try {
      const answer = check.check();
      state = answer === null ? null : answer ? 'ok' : 'failing';
      if (answer === false) this.onFailure(check.name, null);
    } catch (err) {
      state = 'failing';
      this.onFailure(check.name, err);
    }
    // Read the clock again: a probe that waited on a lock must not shorten the next pause.
    if (check.reuseMs !== undefined) this.reused.set(check.name, { at: this.clock.now().getTime(), state });
    return state;
  }
}
