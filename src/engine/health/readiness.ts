import type { Clock } from '../clock.js';

/** The database side of readiness: one real, committed write, or a rejection saying why not (SQLite or PostgreSQL). */
export interface WriteProbe {
  probeWrite(): Promise<void>;
}

/**
 * One thing the service needs before it can take traffic. `check` answers true (fine), false
 * (failing) or null (does not apply on this instance: left out of the report); throwing
 * counts as failing. `reuseMs` keeps an answer that long, for checks that cost a disk write.
 */
export interface ReadinessCheck {
  readonly name: string;
  readonly check: () => boolean | null | Promise<boolean | null>;
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
  /** A kept check under way: the /readyz calls that arrive meanwhile share its answer instead of probing again. */
  private readonly running = new Map<string, Promise<CheckState | null>>();

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly clock: Clock,
    private readonly onFailure: (name: string, err: unknown) => void = () => {},
  ) {}

  /** The checks are asked together: a store that takes its time does not delay the listeners' answers. */
  async report(): Promise<ReadinessReport> {
    const states = await Promise.all(this.checks.map((check) => this.stateOf(check)));
    const checks: Record<string, CheckState> = {};
    this.checks.forEach((check, i) => {
      const state = states[i];
      if (state !== null && state !== undefined) checks[check.name] = state;
    });
    return { ready: Object.values(checks).every((state) => state === 'ok'), checks };
  }

  private stateOf(check: ReadinessCheck): Promise<CheckState | null> {
    const now = this.clock.now().getTime();
    const kept = this.reused.get(check.name);
    if (kept && check.reuseMs !== undefined && now - kept.at < check.reuseMs) return Promise.resolve(kept.state);
    if (check.reuseMs === undefined) return this.ask(check);
    let running = this.running.get(check.name);
    if (!running) {
      running = this.ask(check).finally(() => this.running.delete(check.name));
      this.running.set(check.name, running);
    }
    return running;
  }

  private async ask(check: ReadinessCheck): Promise<CheckState | null> {
    let state: CheckState | null;
    try {
      const answer = await check.check();
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
