import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { readPragma, setPragma } from './sqlite.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Migrations are files `NNN-name.sql`; NNN is the schema version they lead to. */
export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}-[a-z0-9-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(join(dir, file), 'utf8') }));
}

/**
 * Applies every migration above PRAGMA user_version in one IMMEDIATE transaction, so a
 * crash mid-way leaves the previous schema whole. Returns the versions applied.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[]): number[] {
  const run = db.transaction(() => {
    const current = readPragma(db, 'user_version') as number;
    const pending = migrations.filter((m) => m.version > current);
    for (const migration of pending) {
      db.exec(migration.sql);
      setPragma(db, 'user_version', migration.version);
    }
    return pending.map((m) => m.version);
  });
  return run.immediate();
}
