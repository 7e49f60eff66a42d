// A throwaway PostgreSQL for the tests (issue 34): the cluster itself is bench/lib/postgres-cluster.ts
// (shared with the bench): `initdb` into a temporary directory, `pg_ctl start` on a free port of
// 127.0.0.1 with its unix socket in that directory, stopped and deleted when the process exits. One
// cluster per process: the unit and service shards import many files into one process, so a shard
// pays initdb once (a copy of an initialised template and a start: about 1 s) and every test file
// gets its own database in it (CREATE DATABASE, a few ms).
// Where the binaries are absent, `postgresTest` reports the file's tests as skipped, by name.
import postgres from 'postgres';
import t, { type Test } from 'tap';
import {
  pgCtlOn,
  postgresBinDir,
  startPostgresCluster,
  type PostgresCluster,
} from '../../bench/lib/postgres-cluster.js';
import { freePort } from './net.js';

export { postgresBinDir, type PostgresCluster };

export interface PostgresDatabase {
  readonly cluster: PostgresCluster;
  readonly name: string;
  /** postgres://user@127.0.0.1:port/name (TCP: what an operator's SERVICE_DATABASE_URL looks like). */
  readonly url: string;
  /** Connection options for the driver: the unix socket of the cluster. */
  readonly options: { host: string; port: number; user: string; database: string };
}

let started: Promise<PostgresCluster> | null = null;

/** Starts this process's cluster on first use; it is stopped and deleted when the process exits. */
export function postgresCluster(): Promise<PostgresCluster> {
  started ??= freePort().then((port) => startPostgresCluster(port));
  return started;
}

/**
 * Runs `pg_ctl ARGS` on this process's cluster as its owner (a test stopping, starting or
 * restarting PostgreSQL under a running daemon), e.g. ['stop', '-m', 'fast'].
 */
export async function pgCtl(args: readonly string[]): Promise<void> {
  pgCtlOn(await postgresCluster(), args);
}

let databases = 0;

/** A new, empty database in this process's cluster, dropped when `t` ends. */
export async function freshDatabase(t: Test): Promise<PostgresDatabase> {
  const cluster = await postgresCluster();
  databases += 1;
  const name = `t${process.pid}_${databases}`;
  const admin = postgres({ host: cluster.socketDir, port: cluster.port, user: cluster.user, database: 'postgres' });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  t.teardown(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return {
    cluster,
    name,
    url: `postgres://${cluster.user}@127.0.0.1:${cluster.port}/${name}`,
    options: { host: cluster.socketDir, port: cluster.port, user: cluster.user, database: name },
  };
}

/**
 * A test that needs PostgreSQL: where the binaries are absent, it is reported as skipped by name
 * (tap counts it), so a run without them says how many PostgreSQL tests it did not run.
 */
export function postgresTest(name: string, fn: (t: Test) => Promise<void>): void {
  const skip = postgresSkip();
  if (skip) t.test(name, { skip }, () => {});
  else t.test(name, fn);
}

/** Why this run has no PostgreSQL (the skip reason tap reports), or null when it has one. */
export function postgresSkip(): string | null {
  if (postgresBinDir() !== null) return null;
  return process.env.MEET_TEST_POSTGRES === 'sqlite-only'
    ? 'test:fast runs SQLite only; npm test runs the PostgreSQL half too'
    : 'PostgreSQL is not installed (/usr/lib/postgresql/*/bin)';
}
