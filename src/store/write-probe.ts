import type { Db } from './database.js';
import { readPragma, setPragma } from '../platform/sqlite.js';

/** The instance_meta row the probe rewrites: how many write probes this database has taken. */
export const writeProbeKey = 'readiness_write_probes';

/**
 * Readiness of the database as the service uses it: an IMMEDIATE transaction (the write lock)
 * that changes one row and commits, so the WAL append and its fsync run like any real write.
 * BEGIN + ROLLBACK alone would pass on a database whose commits fail. Synchronous: the daemon
 * asks it through the asynchronous ports (async-sqlite.ts), in its turn with the open units.
 */
export class SqliteWriteProbe {
  private readonly bump;

  constructor(
    private readonly db: Db,
    /** How long the probe waits for another writer's lock; the daemon's own writes wait 5 s. */
    private readonly busyMs = 250,
  ) {
    this.bump = db.prepare<[string]>(
      `INSERT INTO instance_meta (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
    );
  }

  probeWrite(): void {
    // better-sqlite3 is synchronous: the shorter wait cannot leak into another statement.
    const previous = Number(readPragma(this.db, 'busy_timeout'));
    setPragma(this.db, 'busy_timeout', this.busyMs);
    try {
      this.db.transaction(() => this.bump.run(writeProbeKey)).immediate();
    } finally {
      setPragma(this.db, 'busy_timeout', previous);
    }
  }
}
