import { GroupCommit, type Defer, type QueuedWrite } from './group-commit.js';
import type { UnitOfWork } from './unit-of-work.js';

const immediately: Defer = (run) => run();

/**
 * The engine's transactions over the store's unit of work, shared by every service that writes
 * (meetings, the waiting room, the live chat), so none of them reaches another's internals to
 * get one. It keeps three promises the store alone does not:
 * - order: writes queued for the group commit (`commitGrouped`, the knocks) are committed before
 *   any other transaction starts, so no write overtakes a queued one it could depend on;
 * - memory follows the disk: a service that changes its in-memory state inside a transaction
 *   registers how to take it back (`onRollback`); when the outermost transaction fails, those
 *   steps run in reverse order and memory matches the store again;
 * - what may only follow a durable change (a count in the metrics) waits for the commit
 *   (`afterCommit`) and never happens for a transaction that failed;
 * - group commit: the queued writes of one turn of the event loop share one durable commit.
 *
 *   const transactions = new Transactions(unitOfWork, (run) => setImmediate(run));
 *   const participant = transactions.atomically(() => meetings.join(meetings.ensure(roomId), role, name));
 */
export class Transactions {
  private readonly group: GroupCommit;
  /** Memory changes to take back if the transaction under way fails; null outside one. */
  private undo: (() => void)[] | null = null;
  /** What to do once the transaction under way has committed; null outside one. */
  private done: (() => void)[] | null = null;

  /**
   * @param defer When a group of queued writes is committed. The daemon passes setImmediate: it
   *   runs after every I/O callback that is ready, so whatever arrived during the previous commit
   *   joins the next one. Tests pass queueMicrotask or a hand-driven queue; without it every
   *   queued write is committed at once.
   */
  constructor(
    private readonly unit: UnitOfWork,
    defer: Defer = immediately,
  ) {
    this.group = new GroupCommit((fn) => this.outermostGrouped(fn), defer);
  }

  /** Runs `fn` in one transaction, after the writes queued by `commitGrouped`; inside one, as part of it. */
  atomically<T>(fn: () => T): T {
    if (this.undo) return this.unit.run(fn);
    this.group.flush();
    return this.outermost(fn);
  }

  /**
   * Queues store writes to be committed together with the others queued in this turn of the
   * event loop: one durable commit for the group. Resolves once they are on disk; see GroupCommit.
   */
  commitGrouped<T>(queued: QueuedWrite<T>): Promise<T> {
    return this.group.add(queued);
  }

  /** Commits the queued writes now. */
  flushGrouped(): void {
    this.group.flush();
  }

  /** How to take back a change to memory made in the transaction under way; nothing outside one. */
  onRollback(step: () => void): void {
    this.undo?.push(step);
  }

  /** What to do once the transaction under way has committed, in order; at once outside one. */
  afterCommit(step: () => void): void {
    if (this.done) this.done.push(step);
    else step();
  }

  /** A group's transaction: its sync to disk off the event loop when the store can (see GroupCommit). */
  private outermostGrouped<T>(fn: () => T): { value: T; durable: Promise<void> | null } {
    const unit = this.unit;
    if (!unit.runSyncedLater) return { value: this.outermost(fn), durable: null };
    let durable: Promise<void> | null = null;
    const value = this.outermost(fn, (work) => {
      const committed = unit.runSyncedLater!(work);
      durable = committed.durable;
      return committed.value;
    });
    return { value, durable };
  }

  private outermost<T>(fn: () => T, run: (work: () => T) => T = (work) => this.unit.run(work)): T {
    const undo: (() => void)[] = [];
    const done: (() => void)[] = [];
    this.undo = undo;
    this.done = done;
    let value: T;
    try {
      value = run(fn);
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    } finally {
      this.undo = null;
      this.done = null;
    }
    for (const step of done) step();
    return value;
  }
}
