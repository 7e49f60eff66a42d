// `meetctl migrate [--dry-run]` (issue 34 point 4): brings both databases (the engine's and the
// meeting API's) to this release's schema, on the store SERVICE_DATABASE_URL names, or says which
// steps would run. The daemon migrates at start the same way; this lets an operator do it (or
// look first) with the service stopped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compatDatabaseFileName } from '../compat/store/compat-store.js';
import { compatMigrationSteps, compatSchema } from '../compat/store/postgres-schema.js';
import type { Config } from '../config/settings.js';
import { migrate, SchemaTooNewError } from '../platform/migrate.js';
import { migratePostgres, sqliteForm, type MigrationStep } from '../platform/pg-migrate.js';
import { openPostgres } from '../platform/postgres.js';
import { openDurable, openSqlite, readPragma } from '../platform/sqlite.js';
import { privateDirectory } from '../platform/private-files.js';
import { databaseFileName } from '../store/database.js';
import { engineMigrationSteps, engineSchema } from '../store/postgres/schema.js';

export interface StoreMigration {
  /** engine, or meeting API. */
  readonly store: string;
  /** Where: a SQLite file, or a PostgreSQL schema of the database. */
  readonly where: string;
  /** The version found (0: nothing yet). */
  readonly from: number;
  /** The version this release knows. */
  readonly latest: number;
  /** The steps run (or, on a dry run, that would run). */
  readonly steps: readonly { readonly version: number; readonly name: string }[];
  /** The store is not there and is not created by this command (the meeting API's file before its first use). */
  readonly absent?: true;
}

const latestOf = (steps: readonly MigrationStep[]) => steps.reduce((n, s) => Math.max(n, s.version), 0);

const brief = (steps: readonly MigrationStep[]) => steps.map((s) => ({ version: s.version, name: s.name }));

function sqliteStore(
  store: string,
  file: string,
  steps: MigrationStep[],
  dryRun: boolean,
  create: boolean,
): StoreMigration {
  const latest = latestOf(steps);
  if (!existsSync(file) && (dryRun || !create)) {
    if (!create) return { store, where: file, from: 0, latest, steps: [], absent: true };
    return { store, where: file, from: 0, latest, steps: brief(steps) };
  }
  if (dryRun) {
    const db = openSqlite(file, { readonly: true });
    try {
      const from = readPragma(db, 'user_version') as number;
      if (from > latest) throw new SchemaTooNewError(file, from, latest);
      return { store, where: file, from, latest, steps: brief(steps.filter((s) => s.version > from)) };
    } finally {
      db.close();
    }
  }
  const db = openDurable(file);
  try {
    const from = readPragma(db, 'user_version') as number;
    const applied = migrate(db, sqliteForm(steps));
    return { store, where: file, from, latest, steps: brief(steps.filter((s) => applied.includes(s.version))) };
  } finally {
    db.close();
  }
}

/** The PostgreSQL schemas of both stores with the version this release migrates them to (for `meetctl doctor`). */
export function postgresSchemas(): { store: string; schema: string; latest: number }[] {
  return [
    { store: 'engine', schema: engineSchema, latest: latestOf(engineMigrationSteps()) },
    { store: 'meeting API', schema: compatSchema, latest: latestOf(compatMigrationSteps()) },
  ];
}

/** Migrates (or, with dryRun, only reads the versions of) both stores of the configuration. */
export async function migrateStores(config: Config, dryRun: boolean): Promise<StoreMigration[]> {
  const engine = engineMigrationSteps();
  const compat = compatMigrationSteps();
  const location = config.databaseUrl;
  if (location.kind === 'sqlite') {
    if (!dryRun) privateDirectory(config.dataDir);
    return [
      sqliteStore('engine', join(config.dataDir, databaseFileName), engine, dryRun, true),
      sqliteStore('meeting API', join(config.compatApiDataDir, compatDatabaseFileName), compat, dryRun, false),
    ];
  }
  const sql = openPostgres(location, { max: 1, statementTimeoutMs: config.databaseStatementTimeoutMs });
  try {
    const where = (schema: string) =>
      `PostgreSQL ${location.host}:${location.port}/${location.database}, schema ${schema}`;
    const out: StoreMigration[] = [];
    for (const [store, schema, steps] of [
      ['engine', engineSchema, engine],
      ['meeting API', compatSchema, compat],
    ] as const) {
      const result = await migratePostgres(sql, schema, steps, { dryRun });
      out.push({ store, where: where(schema), from: result.from, latest: latestOf(steps), steps: result.steps });
    }
    return out;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
