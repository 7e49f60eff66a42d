// The in-process service on either store (issue 34 point 5): a test of the waiting room, the
// meeting API or the gateway written once runs on SQLite (the data directory's files, the
// default) and once more on PostgreSQL (a fresh database of this process's throwaway cluster,
// named by SERVICE_DATABASE_URL). The harnesses (appFor, compatAppFor, inProcessDaemonFor) open
// the store as the daemon does (openStoreBundle), so on PostgreSQL the engine and the meeting
// API both live in that database. Without PostgreSQL's binaries its half is skipped, by name.
import t, { type Test } from 'tap';
import { freshDatabase, postgresTest, type PostgresDatabase } from './postgres.js';

export type ServiceStoreName = 'SQLite' | 'PostgreSQL';

export interface ServiceStore {
  readonly name: ServiceStoreName;
  /**
   * What puts the daemon on this store, beside its other settings: nothing on SQLite, the
   * database's SERVICE_DATABASE_URL on PostgreSQL. The same value again is the same data (a restart).
   */
  readonly env: Readonly<Record<string, string>>;
  /** The PostgreSQL database (null on SQLite), for a test that looks at what was committed over its own connection. */
  readonly database: PostgresDatabase | null;
}

export const sqliteStore: ServiceStore = { name: 'SQLite', env: {}, database: null };

/** A fresh, empty PostgreSQL database for `t` (dropped when it ends); the daemon migrates it at start. */
export async function postgresStore(t: Test): Promise<ServiceStore> {
  const database = await freshDatabase(t);
  return { name: 'PostgreSQL', env: { SERVICE_DATABASE_URL: database.url }, database };
}

/** `name` once per store: `SQLite: name`, then `PostgreSQL: name` (skipped by name without the binaries). */
export function onEachServiceStore(name: string, fn: (t: Test, store: ServiceStore) => Promise<void>): void {
  t.test(`SQLite: ${name}`, async (t) => fn(t, sqliteStore));
  postgresTest(`PostgreSQL: ${name}`, async (t) => fn(t, await postgresStore(t)));
}
