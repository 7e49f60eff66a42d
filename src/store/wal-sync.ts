import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { Db } from './database.js';
import { readPragma } from '../platform/sqlite.js';

type Statement = Database.Statement<[]>;

/**
 * A commit's sync to disk taken off the event loop, for the SQLite unit of work behind the
 * asynchronous ports (async-sqlite.ts). On a WAL database at
 * synchronous=FULL, COMMIT appends the transaction to the WAL and then syncs the WAL (fdatasync)
 * in the calling thread; that sync is most of a commit's time. Here the transaction commits at
 * synchronous=NORMAL (appended to the WAL, in the kernel's page cache: it survives a kill -9 of the
 * process and every later transaction sees it and comes after it), the connection goes back to
 * FULL, and the WAL is then fdatasync'ed on libuv's thread pool: once that returned the commit is
 * as durable as FULL's, and only then is anyone told. A database that is not a WAL file at FULL
 * (in memory, in a test) has no such commit (`available` is false): its units commit as `run`.
 */
export class WalSync {
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
    // readPragma keeps its statements: db.pragma makes one per call outside the kept prepare, and
    // one collected later can abort Node 24 (platform/sqlite.ts).
    const walAtFull = !db.memory && readPragma(db, 'journal_mode') === 'wal' && readPragma(db, 'synchronous') === 2;
    if (walAtFull) {
      this.relax = db.prepare<[]>('PRAGMA synchronous = NORMAL');
      this.restore = db.prepare<[]>('PRAGMA synchronous = FULL');
      // SQLite applies a PRAGMA's setting when it prepares it, and the first run of the NORMAL
      // statement, prepared before FULL's, changes nothing (seen on better-sqlite3 12): run both
      // once here, so the first group commit is at NORMAL too rather than at FULL.
      this.relax.run();
      this.restore.run();
    }
  }

  /** Whether a commit can be synced later: a WAL file at FULL, not closed. */
  get available(): boolean {
    return this.relax !== null && !this.closed;
  }

  /** Runs `commit` (a whole transaction) at synchronous=NORMAL; the connection is at FULL again when it settled. */
  atNormal<T>(commit: () => T): T;
  atNormal<T>(commit: () => Promise<T>): Promise<T>;
  atNormal<T>(commit: () => T | Promise<T>): T | Promise<T> {
    this.relax!.run();
    let result: T | Promise<T>;
    try {
      result = commit();
    } catch (error) {
      this.restore!.run();
      throw error;
    }
    if (!(result instanceof Promise)) {
      this.restore!.run();
      return result;
    }
    // Not `finally`: three promises where one does (the knocks' group commit comes here).
    return result.then(
      (value) => {
        this.restore!.run();
        return value;
      },
      (error: unknown) => {
        this.restore!.run();
        throw error;
      },
    );
  }

  /**
   * One fdatasync at a time: a commit made while one is under way waits for the next, which
   * starts when that one returned and covers every commit made meanwhile (what SQLite's own
   * sync would have done one by one). So the syncs batch the knocks as the blocking ones did.
   */
  sync(): Promise<void> {
    this.next ??= new Promise<void>((resolve, reject) => {
      this.nextSettle = { resolve, reject };
    });
    const waiting = this.next;
    if (this.syncing === 0) this.startSync();
    return waiting;
  }

  /** No sync after this one; the WAL's descriptor is closed once the last sync under way returned. */
  close(): void {
    this.closed = true;
    this.release();
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
