// The bench's PostgreSQL (issue 34 point 7): one throwaway cluster for the run, started as the
// tests start theirs (postgres-cluster.ts), but with fsync and full-page writes ON: the knock's
// figure is a durable commit on either store, or the comparison with SQLite would flatter PostgreSQL.
import postgres from 'postgres';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { freePort } from './servers.js';

export interface BenchPostgres {
  readonly cluster: PostgresCluster;
  /** A new empty database; its SERVICE_DATABASE_URL. */
  database(name: string): Promise<string>;
  /** `SELECT count(*)` of a table of a database made by `database`. */
  count(name: string, table: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts the cluster, or answers why not (the binaries are absent). */
export async function startBenchPostgres(): Promise<BenchPostgres | string> {
  if (postgresBinDir() === null)
    return 'PostgreSQL is not installed (/usr/lib/postgresql/*/bin): its rows were not measured';
  const cluster = startPostgresCluster(await freePort(), ['fsync = on', 'full_page_writes = on']);
  const on = (database: string) =>
    postgres({ host: cluster.socketDir, port: cluster.port, user: cluster.user, database, onnotice: () => {} });
  const admin = on('postgres');
  return {
    cluster,
    async database(name) {
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return `postgres://${cluster.user}@127.0.0.1:${cluster.port}/${name}`;
    },
    async count(name, table) {
      const sql = on(name);
      try {
        const [row] = await sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table}`);
        return row?.n ?? 0;
      } finally {
        await sql.end();
      }
    },
    close: () => admin.end(),
  };
}
