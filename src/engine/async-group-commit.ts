import { answerCommitted, answerFailed, type GroupEntry } from './group-answers.js';
import type { UnitStep } from './unit-of-work.js';

/**
 * Group commit over an asynchronous unit of work (issue 34 point 2): the writes queued in one turn
 * of the event loop share ONE transaction, so one durable commit serves them all, on SQLite (one
 * fsync) as on PostgreSQL (one WAL flush under synchronous_commit=on). Its promises:
 *
 *   const group = new AsyncGroupCommit(async (fn) => ({ value: await unitOfWork.run(fn), durable: null }), (run) => setImmediate(run));
 *   const value = await group.add({ write: async () => ..., committed: (value) => ..., failed: () => ... });
 *
 * Each queued write runs inside the shared transaction, one after another in queue order (their
 * store calls keep that order). After the COMMIT resolved, every `committed` runs synchronously,
 * in queue order and before any other code, so memory follows the disk before anyone can read
 * it; then the promises resolve, once the commit is durable: at once, or when its `durable`
 * promise resolved (SQLite's WAL synced off the event loop, UnitOfWork.runSyncedLater; a failed
 * sync rejects them, the writes stay committed). When the transaction fails, nothing of the group
 * is on disk: every `failed` runs and every promise rejects with that error.
 *
 * Groups commit one after another, in the order they were taken: a later group (or a
 * transaction that waited for `flush()`) never overtakes an earlier one it could depend on.
 */
export interface AsyncQueuedWrite<T, R = T> {
  /**
   * Store writes only; runs inside the group's transaction. Every store call and transaction
   * call (`onRollback`, `afterCommit`) is made before it returns, or after an await inside
   * `step(() => ...)`: the group finds its unit and transaction by the synchronous step, not by
   * an asynchronous context. A write that depends on an earlier one (a row referring to another)
   * waits for it and makes its call in a step: on PostgreSQL a store call is several statements
   * (its fence, then its write), so two calls made at once may interleave.
   */
  write(step: UnitStep): Promise<T> | T;
  /** The group is durable: apply the change to memory. Must not throw or write. */
  committed?(value: T): void;
  /**
   * What the caller is answered once the group is durable (its value when absent); a throw
   * rejects that caller alone. Saves a knock the promise of a `.then` over the answer.
   */
  answer?(value: T): R;
  /** The group's transaction failed; nothing of `write` is on disk. */
  failed?(error: unknown): void;
}

/**
 * Runs `run` later, once the I/O callbacks that are ready now have run (setImmediate). `run`
 * resolves to how many writes its group committed (0 when an earlier flush took them or the
 * commit failed), so the daemon can time the commits of real groups without the engine reading a clock.
 */
export type AsyncDefer = (run: () => Promise<number>) => void;

type Entry = GroupEntry<AsyncQueuedWrite<unknown, unknown>>;

/**
 * The group's writes one after another, in queue order: one promise for the group and one per
 * write that answers a promise (a knock's), none for a write that answers at once.
 */
function writeAll(group: Entry[], step: UnitStep): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const out: unknown[] = [];
    const from = (start: number): void => {
      for (let i = start; i < group.length; i += 1) {
        let value: unknown;
        try {
          const queued = group[i]!.queued;
          value = step(() => queued.write(step));
        } catch (error) {
          reject(error);
          return;
        }
        if (value instanceof Promise) {
          value.then((written) => {
            out.push(written);
            from(i + 1);
          }, reject);
          return;
        }
        out.push(value);
      }
      resolve(out);
    };
    from(0);
  });
}

/**
 * The group's writes sent at once, in queue order, each in its step (a store whose calls apply in
 * the order made: UnitOfWork.inOrderAtOnce); their values in queue order once all are written.
 */
function writeAllAtOnce(group: Entry[], step: UnitStep): Promise<unknown[]> {
  try {
    return Promise.all(group.map(({ queued }) => step(() => queued.write(step))));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A group's transaction: its value once committed, and the promise of its sync to disk when that
 * is still under way (null: done). `fn` makes each write's calls through the transaction's `step`.
 */
type AsyncGroupTransaction = <T>(
  fn: (step: UnitStep) => Promise<T>,
) => Promise<{ value: T; durable: Promise<void> | null }>;

export class AsyncGroupCommit {
  private queue: Entry[] = [];
  private scheduled = false;
  /** The last group taken: the next one commits after it. */
  private tail: Promise<unknown> = Promise.resolve(0);
  /** Flushes not yet settled. */
  private underWay = 0;

  /**
   * @param atOnce Whether the store applies calls made at once in the order made: then a group's
   *   writes are sent together (one round trip on PostgreSQL), else one after another.
   */
  constructor(
    private readonly transaction: AsyncGroupTransaction,
    private readonly defer: AsyncDefer,
    private readonly atOnce: () => boolean = () => false,
  ) {}

  /** Writes waiting for their group to be taken. */
  get size(): number {
    return this.queue.length;
  }

  add<T, R = T>(queued: AsyncQueuedWrite<T, R>): Promise<R> {
    const promise = new Promise<R>((resolve, reject) => {
      this.queue.push({
        queued,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
    });
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(() => {
        this.scheduled = false;
        return this.flush();
      });
    }
    return promise;
  }

  /**
   * Takes the queue and commits it after the groups taken before; resolves once it (and so every
   * earlier group) is settled, to how many writes it committed (0: none queued, or failed). With
   * no group under way the queue is taken now; behind one, only once that one settled, so the
   * writes queued while an earlier commit ran share the next one however many turns of the loop
   * they arrived over (a commit on PostgreSQL is a round trip, and knocks keep coming meanwhile).
   */
  flush(): Promise<number> {
    const now = this.underWay === 0 ? this.take() : null;
    this.underWay += 1;
    const done = this.tail.then(() => {
      const group = now ?? this.take();
      return group.length === 0 ? 0 : this.commit(group);
    });
    // Not `finally` (three promises where one does); `done` never rejects: a failed group answers 0.
    const settle = () => void (this.underWay -= 1);
    this.tail = done.then(settle, settle);
    return done;
  }

  private take(): Entry[] {
    const group = this.queue;
    this.queue = [];
    return group;
  }

  private commit(group: Entry[]): Promise<number> {
    const write = this.atOnce() ? writeAllAtOnce : writeAll;
    return this.transaction((step) => write(group, step)).then(
      ({ value, durable }) => answerCommitted(group, value, durable),
      (error: unknown) => answerFailed(group, error),
    );
  }
}
