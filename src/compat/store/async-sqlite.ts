import { contextSlot } from '../../platform/async-context.js';
import type { AsyncCompatStore } from '../confapi/async-store.js';
import type { CallbackJob } from '../confapi/model.js';
import { toCallback, type CallbackRow, type SqliteCompatStore } from './compat-store.js';

/**
 * The meeting API's SQLite file behind the asynchronous port (issue 34 point 2), its behaviour
 * unchanged. A better-sqlite3 transaction cannot span an await, so `transaction` is BEGIN
 * IMMEDIATE ... COMMIT by hand, and calls take turns: while one transaction is open, every other
 * transaction and every call made outside it waits, so nothing from outside joins it (or is rolled
 * back with it). A transaction inside another is a savepoint (as the engine's async-sqlite.ts).
 */
class Turns {
  private readonly inside = contextSlot<number>();
  private turn: Promise<unknown> = Promise.resolve();
  private savepoints = 0;

  constructor(private readonly store: SqliteCompatStore) {}

  /** Runs `call` when no transaction is open, or at once inside the caller's own. */
  exclusive<T>(call: () => Promise<T> | T): Promise<T> {
    if (this.inside.getStore() !== undefined) return Promise.resolve().then(call);
    const result = this.turn.then(call);
    this.turn = result.catch(() => undefined);
    return result;
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    const depth = this.inside.getStore();
    const db = this.store.db;
    if (depth !== undefined) return this.nested(work, depth + 1);
    return this.exclusive(async () => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const value = await this.inside.run(0, work);
        db.exec('COMMIT');
        return value;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  private async nested<T>(work: () => Promise<T>, depth: number): Promise<T> {
    const db = this.store.db;
    const name = `compat_${depth}_${(this.savepoints += 1)}`;
    db.exec(`SAVEPOINT ${name}`);
    try {
      const value = await this.inside.run(depth, work);
      db.exec(`RELEASE ${name}`);
      return value;
    } catch (err) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
      throw err;
    }
  }
}

/** The SQLite store's claim: the due jobs in order, each moved to the lease's end, in one transaction. */
function claimer(store: SqliteCompatStore) {
  const due = store.db.prepare(
    'SELECT * FROM compat_callbacks WHERE done_at IS NULL AND next_at <= ? ORDER BY next_at, id LIMIT ?',
  );
  const lease = store.db.prepare('UPDATE compat_callbacks SET next_at = ? WHERE id = ?');
  return store.db.transaction((now: number, leaseUntil: number, limit: number): CallbackJob[] => {
    const rows = due.all(now, limit) as CallbackRow[];
    for (const row of rows) lease.run(leaseUntil, row.id);
    return rows.map((row) => ({ ...toCallback(row), nextAt: leaseUntil }));
  });
}

/** `store` (an open SqliteCompatStore) behind the asynchronous port; closing the port closes it. */
export function asyncSqliteCompatStore(store: SqliteCompatStore): AsyncCompatStore {
  const turns = new Turns(store);
  const claim = claimer(store);
  const own: Pick<AsyncCompatStore, 'transaction' | 'claimDueCallbacks'> = {
    transaction: (work) => turns.transaction(work),
    claimDueCallbacks: (now, leaseUntil, limit) => turns.exclusive(() => claim.immediate(now, leaseUntil, limit)),
  };
  // Every other method is the synchronous store's, answering a promise, taking its turn.
  return new Proxy(store, {
    get(target, key) {
      if (key === 'transaction' || key === 'claimDueCallbacks') return own[key];
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => turns.exclusive(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as unknown as AsyncCompatStore;
}
