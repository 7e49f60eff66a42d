import type { AsyncPort } from '../async-port.js';
import type { Clock, Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import { guarded } from './live-errors.js';

/** A family's timer: when its sub-groups come back to the main room (`roomId`: the main room). */
export interface SubgroupTimerRow {
  readonly roomId: string;
  readonly endsAt: string;
}

/** Where the timers are kept, so that a restart (even `kill -9`) still brings everyone back on time. */
export interface SubgroupTimerStore {
  subgroupTimers(): SubgroupTimerRow[];
  saveSubgroupTimer(roomId: string, endsAt: string | null): void;
}

export interface SubgroupTimerDeps {
  readonly timers: AsyncPort<SubgroupTimerStore>;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly log: EngineLog;
}

/**
 * The sub-groups' timers, one per main room, durable: set, cancel, and run out (`ranOut` is
 * called with the main room). A timer that ran out stays on record as "ran out" until the next
 * gesture on that family clears it, so a page that reconnects into a sub-group after the end
 * (a restart, a network drop) is still sent back.
 *
 * The timers kept before a restart are read once, at start: `loaded` settles when they are
 * scheduled (it rejects when the store refused the read). Whoever reads a timer first awaits it
 * (the live hub's welcome does, and every gesture comes from a welcomed socket); `set` does too,
 * so the read never puts an older timer over a new one.
 */
export class SubgroupTimers {
  private readonly endsAt = new Map<string, number>();
  private readonly handles = new Map<string, unknown>();
  readonly loaded: Promise<void>;

  constructor(
    private readonly deps: SubgroupTimerDeps,
    private readonly ranOut: (root: string) => void | Promise<void>,
  ) {
    this.loaded = deps.timers.subgroupTimers().then((rows) => {
      for (const row of rows) this.schedule(row.roomId, Date.parse(row.endsAt));
    });
  }

  /** The end of a running timer (ISO 8601), or null: none set, or it ran out. */
  running(root: string): string | null {
    const end = this.endsAt.get(root);
    return end !== undefined && end > this.now() ? new Date(end).toISOString() : null;
  }

  /** The family's timer ran out and nobody has sent anyone into a group since. */
  over(root: string): boolean {
    const end = this.endsAt.get(root);
    return end !== undefined && end <= this.now();
  }

  /** Starts (or replaces) the timer: `ms` from now; null cancels it. Written before anyone is told. */
  async set(root: string, ms: number | null): Promise<void> {
    await this.loaded;
    this.cancel(root);
    if (ms === null) {
      await this.deps.timers.saveSubgroupTimer(root, null);
      return;
    }
    const end = this.now() + ms;
    await this.deps.timers.saveSubgroupTimer(root, new Date(end).toISOString());
    this.schedule(root, end);
  }

  /** Forgets a timer that ran out (someone is sent into a group again); a running one stays. */
  async clearOver(root: string): Promise<void> {
    if (this.over(root)) await this.set(root, null);
  }

  close(): void {
    for (const handle of this.handles.values()) this.deps.scheduler.clearTimeout(handle);
    this.handles.clear();
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  private cancel(root: string): void {
    const handle = this.handles.get(root);
    if (handle !== undefined) this.deps.scheduler.clearTimeout(handle);
    this.handles.delete(root);
    this.endsAt.delete(root);
  }

  private schedule(root: string, end: number): void {
    this.endsAt.set(root, end);
    const handle = this.deps.scheduler.setTimeout(
      () => {
        this.handles.delete(root);
        guarded(this.deps.log, 'sub-group timer', () => this.ranOut(root));
      },
      Math.max(0, end - this.now()),
    );
    this.handles.set(root, handle);
  }
}
