// The meeting API's store on both adapters (issue 34 point 2): each contract test runs once per
// adapter, SQLite (confapi.sqlite behind the asynchronous port) and PostgreSQL (a fresh database of
// this process's throwaway cluster, schema meet_compat migrated). The PostgreSQL pool's search_path
// is the engine's schema, as in the daemon, where both stores share one pool. Without PostgreSQL's
// binaries its half is reported as skipped, by name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { AsyncCompatStore } from '../../src/compat/confapi/async-store.js';
import { asyncSqliteCompatStore } from '../../src/compat/store/async-sqlite.js';
import { SqliteCompatStore } from '../../src/compat/store/compat-store.js';
import { compatMigrationSteps, compatSchema } from '../../src/compat/store/postgres-schema.js';
import { PostgresCompatStore } from '../../src/compat/store/postgres-store.js';
import { migratePostgres } from '../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../src/platform/postgres.js';
import { engineSchema } from '../../src/store/postgres/schema.js';
import { PostgresUnitOfWork } from '../../src/store/postgres/unit-of-work.js';
import { freshDatabase, postgresTest, type PostgresDatabase } from './postgres.js';

export type StoreName = 'SQLite' | 'PostgreSQL';

export interface CompatStores {
  readonly store: AsyncCompatStore;
  readonly name: StoreName;
  /** Another adapter on the same data, over its own connection: a second node, or the daemon after a restart. */
  readonly another: () => AsyncCompatStore;
}

async function sqlite(t: Test): Promise<CompatStores> {
  const dir = mkdtempSync(join(tmpdir(), 'meet-compat-contract-'));
  const open = () => {
    const store = new SqliteCompatStore(dir);
    t.teardown(() => store.close());
    return asyncSqliteCompatStore(store);
  };
  const store = open();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return { store, name: 'SQLite', another: open };
}

/** A pool on the database as the daemon opens it (search_path: the engine's schema), ended with `t`. */
export function pool(t: Test, database: PostgresDatabase, max = 4): Sql {
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: null };
  const sql = openPostgres(target, { max, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  return sql;
}

async function postgresql(t: Test): Promise<CompatStores> {
  const database = await freshDatabase(t);
  const sql = pool(t, database);
  await migratePostgres(sql, compatSchema, compatMigrationSteps());
  return {
    store: new PostgresCompatStore(new PostgresUnitOfWork(sql)),
    name: 'PostgreSQL',
    another: () => new PostgresCompatStore(new PostgresUnitOfWork(pool(t, database))),
  };
}

/** `name` once per store, each with a fresh, migrated meeting-API store. */
export function onEachCompatStore(name: string, fn: (t: Test, stores: CompatStores) => Promise<void>): void {
  t.test(`SQLite: ${name}`, async (t) => fn(t, await sqlite(t)));
  postgresTest(`PostgreSQL: ${name}`, async (t) => fn(t, await postgresql(t)));
}
