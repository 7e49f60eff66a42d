// Issue 34 point 1 for the commands that open the services: `meetctl token` and `meetctl user`
// with SERVICE_DATABASE_URL write to and read from PostgreSQL (each call a new open of the store
// bundle, as separate runs of the command are), the services the daemon opens on the same
// database accept what they wrote, and no SQLite file appears in the data directory. A database
// out of reach is the machine's fault (exit 69), named by host and port, with no secret shown.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type * as Load from '../../../src/config/load.js';
import type * as ServicesModule from '../../../src/daemon/services.js';
import type * as BundleModule from '../../../src/daemon/store-bundle.js';
import { builtModule } from '../../helpers/compat-app.js';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/net.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

const good = 'Korrekt-Pferd-Batterie';

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-pg-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

/** The services as the daemon opens them on `env` (the built modules, what `meetctl serve` runs); closed with `t`. */
async function daemonServices(t: Test, env: Record<string, string>) {
  const [{ loadConfig }, { openServices }, { openStoreBundle }] = await Promise.all([
    builtModule<typeof Load>('config/load.js'),
    builtModule<typeof ServicesModule>('daemon/services.js'),
    builtModule<typeof BundleModule>('daemon/store-bundle.js'),
  ]);
  const config = loadConfig({ env });
  const services = await openServices(config, await openStoreBundle(config));
  t.teardown(() => services.close());
  return services;
}

postgresTest('PostgreSQL: meetctl token and meetctl user keep their state in the database', async (t) => {
  const database = await freshDatabase(t);
  const dir = dataDir(t);
  const env = { SERVICE_DATA_DIR: dir, SERVICE_DATABASE_URL: database.url };

  const created = await runCli(['token', 'create', '--name', 'moodle-sync'], env);
  t.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim();
  t.match(token, /^\S{20,}$/, 'the token, printed once');
  const listed = await runCli(['token', 'list', '--json'], env);
  t.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { name: string; last_used_at: string | null }[];
  t.same(
    rows.map((r) => r.name),
    ['moodle-sync'],
    'a later run of the command reads it back from PostgreSQL',
  );
  t.notMatch(listed.stdout, token, 'the list never shows the token');

  const added = await runCli(
    ['user', 'add', 'Bob@School.example', '--name', 'Bob', '--password-file', '-'],
    env,
    `${good}\n`,
  );
  t.equal(added.code, 0, added.stderr);
  const users = await runCli(['user', 'list'], env);
  t.equal(users.code, 0, users.stderr);
  t.match(users.stdout, /bob@school\.example/, 'the account is listed by a later run');

  const services = await daemonServices(t, env);
  t.equal((await services.accessTokens.verify(token))?.name, 'moodle-sync', "the daemon's services accept the token");
  const signedIn = await services.accounts.signIn('bob@school.example', good, '127.0.0.1');
  t.equal(signedIn.account.email, 'bob@school.example', 'and sign Bob in with his password');
  await services.close();

  const revoked = await runCli(['token', 'revoke', 'moodle-sync'], env);
  t.equal(revoked.code, 0, revoked.stderr);
  const after = await daemonServices(t, env);
  t.equal(await after.accessTokens.verify(token), null, 'a revoked token is refused');

  t.notOk(existsSync(join(dir, 'meet.sqlite')), 'no SQLite database in the data directory');
  const files = existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
  t.same(
    files.filter((f) => f.endsWith('.sqlite') || f.includes('.sqlite-')),
    [],
    'no SQLite file of any kind',
  );
});

postgresTest('PostgreSQL out of reach: the command exits 69 naming host and port, and shows no password', async (t) => {
  const port = await freePort();
  const dir = dataDir(t);
  const env = {
    SERVICE_DATA_DIR: dir,
    SERVICE_DATABASE_URL: `postgres://meet@127.0.0.1:${port}/meet`,
    PGPASSWORD: 'pg-secret-never-shown',
  };
  for (const args of [
    ['token', 'list'],
    ['user', 'list'],
  ]) {
    const run = await runCli(args, env);
    t.equal(run.code, 69, `${args.join(' ')}: the machine's fault (EX_UNAVAILABLE)`);
    t.match(run.stderr, `127.0.0.1:${port}`, `${args.join(' ')}: names where it looked`);
    t.notMatch(run.stdout + run.stderr, 'pg-secret-never-shown', `${args.join(' ')}: no password`);
  }
  t.notOk(existsSync(join(dir, 'meet.sqlite')), 'and falls back to no SQLite file');
});
