import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { migrate, readMigrations } from '../platform/migrate.js';
import { privateDirectory } from '../platform/private-files.js';
import { openDurable } from '../platform/sqlite.js';

const migrationsDir = fileURLToPath(new URL('./migrations', import.meta.url));

export type Db = Database.Database;

export const databaseFileName = 'meet.sqlite';

/**
 * Opens (creating if needed) the service database in the data directory and brings its
 * schema up to date. synchronous=FULL: a transition acknowledged to a client must survive
 * a power cut, not only a crash of the process.
 */
export function openDatabase(dataDir: string): Db {
  privateDirectory(dataDir);
  const db = openDurable(join(dataDir, databaseFileName));
  migrate(db, readMigrations(migrationsDir));
  return db;
}

/** The schema version this code migrates the service database to (its last migration). */
export function engineSchemaVersion(): number {
  return Math.max(0, ...readMigrations(migrationsDir).map((m) => m.version));
}

/** The schema as SQLite itself describes it, one line per object, for golden comparisons. */
export function describeSchema(db: Db): string[] {
  const rows = db
    .prepare("SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  return rows.map((row) => `${row.type} ${row.name}: ${(row.sql ?? '').replace(/\s+/g, ' ').trim()}`);
}
