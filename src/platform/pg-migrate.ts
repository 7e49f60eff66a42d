// Migrations of both stores from one list (issue 34 point 4). Each step of a migrations folder is
// `NNN-name.sql` (SQLite) beside `NNN-name.pg.sql` (its PostgreSQL form): one version number, two
// statement sets, read together so that a step without its other form is an error, not a schema
// that silently differs. On PostgreSQL every store has its own schema (the engine's, the meeting
// API's); the applied versions are rows of <schema>.schema_migrations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaTooNewError, type Migration } from './migrate.js';
import type { Sql } from './postgres.js';

export interface MigrationStep {
  readonly version: number;
  /** `NNN-name`, the common part of both files' names. */
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/** A folder's steps with both forms, in version order; throws naming the step that lacks one, or a gap. */
export function readMigrationSteps(dir: string): MigrationStep[] {
  const files = readdirSync(dir).filter((file) => /^\d{3}-[a-z0-9-]+(\.pg)?\.sql$/.test(file));
  const names = [...new Set(files.map((file) => file.replace(/(\.pg)?\.sql$/, '')))].sort();
  return names.map((name, i) => {
    const version = Number(name.slice(0, 3));
    if (version !== i + 1) throw new Error(`${dir}: migration ${name} should be number ${i + 1} (no gaps, no repeats)`);
    for (const form of [`${name}.sql`, `${name}.pg.sql`])
      if (!files.includes(form)) throw new Error(`${dir}: migration ${name} has no ${form} (each step has both forms)`);
    return {
      version,
      name,
      sqlite: readFileSync(join(dir, `${name}.sql`), 'utf8'),
      postgres: readFileSync(join(dir, `${name}.pg.sql`), 'utf8'),
    };
  });
}

/** The SQLite form of the steps, as platform/migrate.ts's migrate() takes them. */
export const sqliteForm = (steps: readonly MigrationStep[]): Migration[] =>
  steps.map((s) => ({ version: s.version, name: `${s.name}.sql`, sql: s.sqlite }));

export interface PostgresMigration {
  /** The schema's version before (0: no schema yet). */
  readonly from: number;
  /** The steps applied (or, on a dry run, that would be). */
  readonly steps: readonly { readonly version: number; readonly name: string }[];
}

/** Thrown inside a dry run's transaction to roll it back. */
class DryRun extends Error {}

/** A schema name as an SQL identifier: only the service's own fixed names, never input. */
function identifier(schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a schema name: ${schema}`);
  return `"${schema}"`;
}

/**
 * Brings `schema` up to date in one transaction under a transaction-scoped advisory lock keyed by
 * the schema: daemons starting together queue on the lock, and the first migrates while the
 * others find nothing left to do. A schema newer than the last step is refused (SchemaTooNewError),
 * nothing written. A dry run reads the version under the same lock and rolls back.
 */
export async function migratePostgres(
  sql: Sql,
  schema: string,
  steps: readonly MigrationStep[],
  options: { readonly dryRun?: boolean } = {},
): Promise<PostgresMigration> {
  const name = identifier(schema);
  const known = steps.reduce((highest, s) => Math.max(highest, s.version), 0);
  let result: PostgresMigration = { from: 0, steps: [] };
  try {
    await sql.begin(async (tx) => {
      // No statement timeout for a migration: a table rewrite may take its time.
      await tx.unsafe('SET LOCAL statement_timeout = 0');
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`meet migrate ${schema}`}))`;
      const [exists] = await tx`SELECT to_regclass(${`${name}.schema_migrations`}) IS NOT NULL AS present`;
      let from = 0;
      if (exists?.present) {
        const [row] = await tx.unsafe(
          `SELECT coalesce(max(version), 0)::int AS version FROM ${name}.schema_migrations`,
        );
        from = Number(row?.version ?? 0);
      }
      if (from > known) throw new SchemaTooNewError(`PostgreSQL schema ${schema}`, from, known);
      const pending = steps.filter((s) => s.version > from);
      result = { from, steps: pending.map((s) => ({ version: s.version, name: s.name })) };
      if (options.dryRun) throw new DryRun();
      if (pending.length === 0) return;
      await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${name}`);
      await tx.unsafe(`SET LOCAL search_path TO ${name}`);
      await tx.unsafe(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const step of pending) {
        await tx.unsafe(step.postgres);
        await tx`INSERT INTO schema_migrations (version, name) VALUES (${step.version}, ${step.name})`;
      }
    });
  } catch (err) {
    if (!(err instanceof DryRun)) throw err;
  }
  return result;
}
