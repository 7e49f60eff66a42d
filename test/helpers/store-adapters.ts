// The engine's repositories on both stores (issue 34 point 5): each contract test runs once per
// adapter, SQLite (the synchronous stores behind the asynchronous port) and PostgreSQL (a fresh
// database of this process's throwaway cluster, migrated). Without PostgreSQL's binaries its half
// is reported as skipped, by name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { AsyncStores } from '../../src/engine/async-ports.js';
import { migratePostgres } from '../../src/platform/pg-migrate.js';
import { openPostgres } from '../../src/platform/postgres.js';
import { sqliteAsyncStores } from '../../src/store/async-sqlite.js';
import { openDatabase } from '../../src/store/database.js';
import { engineMigrationSteps, engineSchema } from '../../src/store/postgres/schema.js';
import { postgresStores } from '../../src/store/postgres/stores.js';
import { freshDatabase, postgresTest } from './postgres.js';

export type StoreName = 'SQLite' | 'PostgreSQL';

async function sqlite(t: Test): Promise<AsyncStores> {
  const dir = mkdtempSync(join(tmpdir(), 'meet-contract-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return sqliteAsyncStores(db);
}

/** Fresh, migrated PostgreSQL stores in a new database of this process's throwaway cluster. */
export async function postgresql(t: Test): Promise<AsyncStores> {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: null };
  const sql = openPostgres(target, { max: 4, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  await migratePostgres(sql, engineSchema, engineMigrationSteps());
  return postgresStores(sql);
}

/** `name` once per store, each with fresh, migrated stores. */
export function onEachStore(name: string, fn: (t: Test, stores: AsyncStores, store: StoreName) => Promise<void>): void {
  t.test(`SQLite: ${name}`, async (t) => fn(t, await sqlite(t), 'SQLite'));
  postgresTest(`PostgreSQL: ${name}`, async (t) => fn(t, await postgresql(t), 'PostgreSQL'));
}
