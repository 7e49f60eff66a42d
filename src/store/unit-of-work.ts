import type { UnitOfWork } from '../engine/unit-of-work.js';
import type { Db } from './database.js';

/**
 * The engine's unit of work on SQLite: one transaction of the connection every engine store
 * writes through, so the meetings', requests' and chat's writes inside `run` commit together.
 * better-sqlite3 commits synchronously, and a `run` inside another becomes a savepoint.
 */
export class SqliteUnitOfWork implements UnitOfWork {
  /** Built once: db.transaction() compiles a wrapper, too costly to repeat on every write. */
  private readonly inTransaction: (work: () => unknown) => unknown;

  constructor(db: Db) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
  }

  run<T>(work: () => T): T {
    return this.inTransaction(work) as T;
  }
}
