import type { SyncedLater, UnitOfWork } from '../engine/unit-of-work.js';
import type { Db } from './database.js';
import { WalSync } from './wal-sync.js';

/**
 * The engine's unit of work on SQLite: one transaction of the connection every engine store
 * writes through, so the meetings', requests' and chat's writes inside `run` commit together.
 * better-sqlite3 commits synchronously, and a `run` inside another becomes a savepoint.
 *
 * `runSyncedLater` (the knocks' group commit) takes the commit's sync to disk off the event
 * loop (wal-sync.ts: committed at synchronous=NORMAL, then the WAL fdatasync'ed on libuv's
 * thread pool); a database that is not a WAL file at FULL commits as `run`.
 */
export class SqliteUnitOfWork implements UnitOfWork {
  /** Built once: db.transaction() compiles a wrapper, too costly to repeat on every write. */
  private readonly inTransaction: (work: () => unknown) => unknown;
  private readonly wal: WalSync;

  constructor(private readonly db: Db) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
    this.wal = new WalSync(db);
  }

  run<T>(work: () => T): T {
    return this.inTransaction(work) as T;
  }

  runSyncedLater<T>(work: () => T): SyncedLater<T> {
    // Inside another transaction the sync is the outer one's; closing, no sync is left running.
    if (!this.wal.available || this.db.inTransaction) return { value: this.run(work), durable: Promise.resolve() };
    const value = this.wal.atNormal(() => this.run(work));
    return { value, durable: this.wal.sync() };
  }

  /** No sync after this one; the WAL's descriptor is closed once the last sync under way returned. */
  close(): void {
    this.wal.close();
  }
}
