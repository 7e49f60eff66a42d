import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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
 * The database was written by a newer version of the service (a downgrade, or a backup of a
 * later release restored). Running on it would read and write tables this code does not know,
 * so the start is refused before anything is written; the daemon exits 2 with this message.
 */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly file: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `${file} has schema version ${found}, newer than this version of the service knows (up to ${known}): ` +
        'it was written by a newer release. Run that release again, or restore the copy of the data directory taken before the upgrade',
    );
  }
}

/**
 * Applies every migration above PRAGMA user_version in one IMMEDIATE transaction, so a
 * crash mid-way leaves the previous schema whole. Returns the versions applied. A schema
 * newer than the last migration is refused (SchemaTooNewError), nothing written.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[]): number[] {
  const run = db.transaction(() => {
    const current = readPragma(db, 'user_version') as number;
    const known = migrations.reduce((highest, m) => Math.max(highest, m.version), 0);
    if (current > known) throw new SchemaTooNewError(basename(db.name), current, known);
    const pending = migrations.filter((m) => m.version > current);
    for (const migration of pending) {
      db.exec(migration.sql);
      setPragma(db, 'user_version', migration.version);
    }
    return pending.map((m) => m.version);
  });
  return run.immediate();
}
