import type { AsyncContext } from './async-context.js';
import { AsyncGroupCommit, type AsyncDefer, type AsyncQueuedWrite } from './async-group-commit.js';
import { plainStep, type UnitOfWork, type UnitStep } from './unit-of-work.js';

const immediately: AsyncDefer = (run) => void run();

/** The transaction under way in one asynchronous context: what to undo if it fails, what follows its commit. */
interface OpenTransaction {
  readonly undo: (() => void)[];
  readonly done: (() => void)[];
  /** Settled: a step registered later (a timer started inside, run after) is not part of it. */
  settled: boolean;
}

const opened = (): OpenTransaction => ({ undo: [], done: [], settled: false });

/**
 * The engine's transactions over the asynchronous unit of work (issue 34 point 2): the one way
 * engine services write together, on PostgreSQL as on SQLite (through store/async-sqlite.ts).
 * Its promises:
 * - order: writes queued for the group commit (`commitGrouped`) are committed before a
 *   transaction started after them (`atomically` awaits the queued group first);
 * - memory follows the disk: `onRollback` steps run, newest first, when the outermost
 *   transaction fails;
 * - `afterCommit` steps run once the outermost transaction has committed, in order, and never
 *   for one that failed;
 * - group commit: the writes queued in one turn share one durable commit.
 *
 * The undo and after-commit lists belong to the transaction under way IN ITS OWN ASYNCHRONOUS
 * CONTEXT (an AsyncContext: AsyncLocalStorage), not to a field: PostgreSQL runs the units of different rooms at
 * once, and a step registered by one must never land in another's lists. A group commit and `inSteps`,
 * whose work makes every call in a synchronous step, are the exception: a field set while a step
 * runs tells them (the knock, an admission and a bar run no AsyncLocalStorage, issue 34 point 7).
 *
 *   const transactions = new AsyncTransactions(stores.unitOfWork, contextSlot(), (run) => setImmediate(run));
 *   const participant = await transactions.atomically(async () => meetings.join(await meetings.ensure(roomId), role, name));
 */
export class AsyncTransactions {
  private readonly group: AsyncGroupCommit;
  /** The transaction whose step (a group's write, a call of `inSteps`' work) is running now; undefined between steps. */
  private stepping: OpenTransaction | undefined;

  /**
   * @param open Which transaction an asynchronous step belongs to: a context given to this object
   *   alone (`contextSlot()` in the daemon, `new AsyncLocalStorage()` in a test).
   * @param defer When a group of queued writes is committed: the daemon passes setImmediate;
   *   without it every queued write is committed at once.
   */
  constructor(
    private readonly unit: UnitOfWork<'async'>,
    private readonly open: AsyncContext<OpenTransaction>,
    defer: AsyncDefer = immediately,
  ) {
    this.group = new AsyncGroupCommit(
      (fn) => this.outermostGrouped(fn),
      defer,
      () => this.unit.inOrderAtOnce?.() ?? false,
    );
  }

  /** Whether the caller runs inside a transaction (a group's write step, or its own asynchronous context). */
  get inside(): boolean {
    const open = this.current();
    return open !== undefined && !open.settled;
  }

  /** Runs `fn` in one transaction, after the writes queued before it; inside one, as part of it. */
  async atomically<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inside) return this.nested(fn);
    await this.group.flush();
    return this.outermost(() => this.unit.run(fn));
  }

  /**
   * `atomically` for work that makes every store and transaction call inside one of its steps
   * (`step(() => meetings.record(...))`, each call made before the step returns): its transaction
   * and its unit are told them by a field set while a step runs, not by an asynchronous context,
   * so an admission or a bar runs no AsyncLocalStorage (issue 34 point 7). A call made after an
   * await outside a step is not the transaction's: it would wait for it to end.
   */
  inSteps<T>(fn: (step: UnitStep) => Promise<T>): Promise<T> {
    if (this.inside) return this.nested(() => fn(plainStep));
    return this.group.flush().then(() => this.outermostInSteps(fn));
  }

  /** Queues store writes to share the commit of the others queued in this turn; resolves once durable. */
  commitGrouped<T, R = T>(queued: AsyncQueuedWrite<T, R>): Promise<R> {
    return this.group.add(queued);
  }

  /** Commits the queued writes now; resolves once they are settled. */
  flushGrouped(): Promise<number> {
    return this.group.flush();
  }

  /** How to take back a change to memory made in the transaction under way; nothing outside one. */
  onRollback(step: () => void): void {
    const open = this.current();
    if (open && !open.settled) open.undo.push(step);
  }

  /** What to do once the transaction under way has committed, in order; at once outside one. */
  afterCommit(step: () => void): void {
    const open = this.current();
    if (open && !open.settled) open.done.push(step);
    else step();
  }

  /** The transaction of a group's write step under way, else that of the caller's asynchronous context. */
  private current(): OpenTransaction | undefined {
    return this.stepping ?? this.open.getStore();
  }

  /**
   * A group's transaction: its sync to disk off the event loop when the store can
   * (UnitOfWork.runSyncedLater). Its writes make their calls synchronously (AsyncQueuedWrite), so
   * the transaction is told them by a field set while each write runs, not by an asynchronous
   * context: a knock runs no AsyncLocalStorage (issue 34 point 7).
   */
  private outermostGrouped<T>(
    fn: (step: UnitStep) => Promise<T>,
  ): Promise<{ value: T; durable: Promise<void> | null }> {
    const unit = this.unit;
    const open = opened();
    const within = this.within(open);
    if (unit.runSyncedLater)
      return this.settle(open, () => unit.runSyncedLater!((step) => fn((write) => step(() => within(write)))));
    return this.settle(open, () => unit.run(() => fn(within))).then((value) => ({ value, durable: null }));
  }

  private outermostInSteps<T>(fn: (step: UnitStep) => Promise<T>): Promise<T> {
    const unit = this.unit;
    const open = opened();
    const within = this.within(open);
    if (unit.runInSteps)
      return this.settle(open, () => unit.runInSteps!((step) => fn((call) => step(() => within(call)))));
    return this.settle(open, () => unit.run(() => fn(within)));
  }

  /** A step of `open`: the transaction calls made while it runs are `open`'s. */
  private within(open: OpenTransaction): UnitStep {
    return (call) => {
      const before = this.stepping;
      this.stepping = open;
      try {
        return call();
      } finally {
        this.stepping = before;
      }
    };
  }

  /**
   * Part of the transaction under way. Found in a step, the rest of `fn` (after its awaits) is
   * told it by the context: a nested transaction is rare and may run one.
   */
  private nested<T>(fn: () => Promise<T>): Promise<T> {
    const open = this.stepping;
    return open ? this.open.run(open, () => this.unit.run(fn)) : this.unit.run(fn);
  }

  /** Chained rather than awaited: every outermost `atomically` comes here. */
  private outermost<R>(run: () => Promise<R>): Promise<R> {
    const open = opened();
    return this.settle(open, () => this.open.run(open, run));
  }

  /** `open` ends with `run`: its after-commit steps once it committed, its undo steps once it failed. */
  private settle<R>(open: OpenTransaction, run: () => Promise<R>): Promise<R> {
    let running: Promise<R>;
    try {
      running = run();
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (value) => {
        open.settled = true;
        for (const step of open.done) step();
        return value;
      },
      (error: unknown) => {
        open.settled = true;
        for (const step of open.undo.reverse()) step();
        throw error;
      },
    );
  }
}
