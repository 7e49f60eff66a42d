import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { SyncedLater, UnitOfWork } from '../engine/unit-of-work.js';
import type { Db } from './database.js';
import { readPragma } from '../platform/sqlite.js';

type Statement = Database.Statement<[]>;

/**
 * The engine's unit of work on SQLite: one transaction of the connection every engine store
 * writes through, so the meetings', requests' and chat's writes inside `run` commit together.
 * better-sqlite3 commits synchronously, and a `run` inside another becomes a savepoint.
 *
 * `runSyncedLater` (the knocks' group commit) takes the commit's sync to disk off the event
 * loop. On a WAL database at synchronous=FULL, COMMIT appends the transaction to the WAL and
 * then syncs the WAL (fdatasync) in the calling thread; that sync is most of a commit's time.
 * Here the transaction commits at synchronous=NORMAL (appended to the WAL, in the kernel's page
 * cache: it survives a kill -9 of the process and every later transaction sees it and comes
 * after it), the connection goes back to FULL, and the WAL is then fdatasync'ed on libuv's
 * thread pool: once that returned the commit is as durable as FULL's, and only then is anyone
 * told. A database that is not a WAL file at FULL (in memory, in a test) commits as `run`.
 */
export class SqliteUnitOfWork implements UnitOfWork {
  /** Built once: db.transaction() compiles a wrapper, too costly to repeat on every write. */
  private readonly inTransaction: (work: () => unknown) => unknown;
  /** PRAGMA synchronous = NORMAL / FULL, prepared once; null when the database is no WAL file at FULL. */
  private readonly relax: Statement | null = null;
  private readonly restore: Statement | null = null;
  /** The WAL file, opened for its syncs at the first one; closed by close() once no sync is under way. */
  private wal: number | null = null;
  private syncing = 0;
  /** The sync the commits made while one is under way wait for; null when none waits. */
  private next: Promise<void> | null = null;
  private nextSettle: { resolve(): void; reject(error: Error): void } | null = null;
  private closed = false;

  constructor(private readonly db: Db) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
    // readPragma keeps its statements: db.pragma makes one per call outside the kept prepare, and
    // one collected later can abort Node 24 (platform/sqlite.ts).
    const walAtFull = !db.memory && readPragma(db, 'journal_mode') === 'wal' && readPragma(db, 'synchronous') === 2;
    if (walAtFull) {
      this.relax = db.prepare<[]>('PRAGMA synchronous = NORMAL');
      this.restore = db.prepare<[]>('PRAGMA synchronous = FULL');
    }
  }

  run<T>(work: () => T): T {
    return this.inTransaction(work) as T;
  }

  runSyncedLater<T>(work: () => T): SyncedLater<T> {
    // Inside another transaction the sync is the outer one's; closing, no sync is left running.
    if (!this.relax || !this.restore || this.closed || this.db.inTransaction)
      return { value: this.run(work), durable: Promise.resolve() };
    this.relax.run();
    let value: T;
    try {
      value = this.run(work);
    } finally {
      this.restore.run();
    }
    return { value, durable: this.syncWal() };
  }

  /** No sync after this one; the WAL's descriptor is closed once the last sync under way returned. */
  close(): void {
    this.closed = true;
    this.release();
  }

  /**
   * One fdatasync at a time: a commit made while one is under way waits for the next, which
   * starts when that one returned and covers every commit made meanwhile (what SQLite's own
   * sync would have done one by one). So the syncs batch the knocks as the blocking ones did.
   */
  private syncWal(): Promise<void> {
    this.next ??= new Promise<void>((resolve, reject) => {
      this.nextSettle = { resolve, reject };
    });
    const waiting = this.next;
    if (this.syncing === 0) this.startSync();
    return waiting;
  }

  private startSync(): void {
    const settle = this.nextSettle!;
    this.next = null;
    this.nextSettle = null;
    let fd: number;
    try {
      fd = this.wal ??= openSync(`${this.db.name}-wal`, 'r');
    } catch (error) {
      settle.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.syncing += 1;
    fdatasync(fd, (error) => {
      this.syncing -= 1;
      if (error) settle.reject(error);
      else settle.resolve();
      if (this.next) this.startSync();
      else this.release();
    });
  }

  private release(): void {
    if (!this.closed || this.syncing > 0 || this.wal === null) return;
    closeSync(this.wal);
    this.wal = null;
  }
}
