import { answerCommitted, answerFailed, type GroupEntry } from './group-answers.js';

/**
 * Group commit: writes queued in the same turn of the event loop are committed in ONE
 * transaction, so one durable commit (one fsync under synchronous=FULL) serves them all.
 * A burst of knocks would otherwise pay a commit each, and the commit is most of a knock's cost.
 *
 *   const group = new GroupCommit((fn) => unitOfWork.run(fn), (run) => setImmediate(run));
 *   const value = await group.add({ write: () => ..., committed: (value) => ..., failed: () => ... });
 *
 * Each queued write runs inside the shared transaction; after the COMMIT returned, every
 * `committed` runs synchronously, in queue order and before any other code, so memory follows
 * the store before anyone can read it; then the promises resolve, once the commit is durable:
 * at once when the transaction synced in the calling thread, or when its `durable` promise
 * resolved (the sync to disk done off the event loop; see UnitOfWork.runSyncedLater). A
 * failed sync rejects the group's promises (the writes stay committed). When the transaction fails
 * (disk full, I/O error), nothing of the group is on disk: every `failed` runs and every
 * promise rejects with that error.
 *
 * `flush()` commits the queue at once. Whoever writes anything else must flush first, so a
 * write never overtakes a queued one that it could depend on (Transactions.atomically does).
 */
export interface QueuedWrite<T> {
  /** Store writes only; runs inside the group's transaction. */
  write(): T;
  /** The group is durable: apply the change to memory. Must not throw or write. */
  committed?(value: T): void;
  /** The group's transaction failed; nothing of `write` is on disk. */
  failed?(error: unknown): void;
}

/**
 * Runs `run` later, once the I/O callbacks that are ready now have run (setImmediate). `run`
 * returns how many writes its group committed (0 when an earlier flush took them), so the
 * daemon can time the commits of real groups for its metrics without the engine reading a clock.
 */
export type Defer = (run: () => number) => void;

/** A group's transaction: its value, and the promise of its sync to disk when that is still under way (null: done). */
interface GroupTransaction {
  <T>(fn: () => T): { readonly value: T; readonly durable: Promise<void> | null };
}

type Entry = GroupEntry<QueuedWrite<unknown>>;

export class GroupCommit {
  private queue: Entry[] = [];
  private scheduled = false;

  constructor(
    private readonly transaction: GroupTransaction,
    private readonly defer: Defer,
  ) {}

  /** Writes waiting for their group's commit. */
  get size(): number {
    return this.queue.length;
  }

  add<T>(queued: QueuedWrite<T>): Promise<T> {
    const promise = new Promise<T>((resolve, reject) => {
      this.queue.push({ queued, resolve: resolve as (value: unknown) => void, reject });
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

  /** Commits the queue now; returns how many writes were committed (0 when none were queued or the transaction failed). */
  flush(): number {
    if (this.queue.length === 0) return 0;
    // Taken before the transaction: whatever a callback queues belongs to the next group.
    const group = this.queue;
    this.queue = [];
    let values: unknown[];
    let durable: Promise<void> | null;
    try {
      ({ value: values, durable } = this.transaction(() => group.map((entry) => entry.queued.write())));
    } catch (error) {
      return answerFailed(group, error);
    }
    return answerCommitted(group, values, durable);
  }
}
