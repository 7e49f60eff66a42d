// A throwaway PostgreSQL cluster from Debian's binaries (/usr/lib/postgresql/*/bin): `initdb` once
// per machine into a template, each cluster a copy of it started with `pg_ctl` on a port of
// 127.0.0.1 with its unix socket in its own directory, stopped and deleted when the process exits
// (or, killed by a signal, by a watchdog). Shared by the tests (test/helpers/postgres.ts) and the
// bench's PostgreSQL rows (bench/run.ts), so both measure and test the same kind of cluster.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';

export interface PostgresCluster {
  /** The directory holding the cluster's data and its unix socket. */
  readonly dir: string;
  /** The unix socket's directory (a libpq `host`). */
  readonly socketDir: string;
  readonly port: number;
  /** The superuser (trust authentication on the socket and on 127.0.0.1). */
  readonly user: string;
}

/** The newest Debian PostgreSQL's bin directory, or null when the package is not installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  // MEET_TEST_POSTGRES=absent: as on a machine without the package (to see the skips reported);
  // sqlite-only: `npm run test:fast`, which leaves the PostgreSQL halves to `npm test`.
  const wanted = process.env.MEET_TEST_POSTGRES;
  if (wanted === 'absent' || wanted === 'sqlite-only' || !existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

/** initdb refuses to run as root: then the cluster belongs to Debian's `postgres` user. */
function runAs(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(bin: string, args: string[], owner: { uid: number; gid: number } | null): void {
  const result = spawnSync(bin, args, { encoding: 'utf8', ...(owner ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  if (result.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
}

/** The initialised data directory every cluster copies, made once (atomically, by rename) per version and user. */
function template(bin: string, owner: { uid: number; gid: number } | null, user: string): string {
  const path = join(tmpdir(), `meet-pg-template-${basename(dirname(bin))}-${userInfo().uid}`);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  const scratch = mkdtempSync(`${path}.`);
  if (owner) chownSync(scratch, owner.uid, owner.gid);
  const data = join(scratch, 'data');
  run(join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-locale'], owner);
  try {
    renameSync(data, path);
  } catch (err) {
    // Another process made it first: theirs is as good.
    if (!existsSync(join(path, 'PG_VERSION'))) throw err;
  }
  rmSync(scratch, { recursive: true, force: true });
  return path;
}

/**
 * Starts a cluster on `port` (a free one the caller chose); it is stopped and deleted when this
 * process exits. `settings` are extra postgresql.conf lines.
 */
export function startPostgresCluster(port: number, settings: readonly string[] = []): PostgresCluster {
  const bin = postgresBinDir();
  if (bin === null) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/*/bin)');
  const owner = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'meet-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const user = 'postgres';
  // initdb is most of a start (2 to 3 s on a loaded machine): it runs once per machine into a
  // template, and each cluster is a copy of it (0.2 s).
  run('cp', ['-a', template(bin, owner, user), data], null);
  // fsync off: the tests kill daemons, never the machine; synchronous_commit keeps its default (on).
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 200',
      'shared_buffers = 32MB',
      ...settings,
      '',
    ].join('\n'),
  );
  if (owner) chownSync(join(data, 'postgresql.auto.conf'), owner.uid, owner.gid);
  run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-w', '-s', 'start'], owner);
  process.once('exit', () => {
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-s', 'stop'], { ...(owner ?? {}) });
    rmSync(dir, { recursive: true, force: true });
  });
  // A test process killed by a signal (tap's timeout, a developer's ^C) never reaches 'exit': a
  // watchdog of its own stops the cluster once this process is gone (checked in /proc, which the
  // cluster's user can read even when this process is root's and kill -0 would be refused).
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while [ -d "/proc/$1" ]; do sleep 1; done; "$2" -D "$3" -m immediate -s stop; rm -rf "$4"',
      'watchdog',
      String(process.pid),
      join(bin, 'pg_ctl'),
      data,
      dir,
    ],
    { detached: true, stdio: 'ignore', ...(owner ?? {}) },
  );
  watchdog.unref();
  return { dir, socketDir: dir, port, user };
}

/** Runs `pg_ctl ARGS` on a cluster as its owner (stop, start or restart it under a running daemon). */
export function pgCtlOn(cluster: PostgresCluster, args: readonly string[]): void {
  const bin = postgresBinDir();
  if (bin === null) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/*/bin)');
  run(
    join(bin, 'pg_ctl'),
    ['-D', join(cluster.dir, 'data'), '-l', join(cluster.dir, 'log'), '-w', '-s', ...args],
    runAs(),
  );
}
