// Issue 34 point 8: `meetctl doctor` checks the PostgreSQL of SERVICE_DATABASE_URL: reachable,
// version 13 or newer, both schemas at this release's version (behind: a warning, ahead: a
// failure), and the role's rights. Each against the throwaway cluster, in process; one run of the
// command itself shows the checks in its output; on SQLite they are skipped.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { postgresSchemas } from '../../../src/daemon/migrate-stores.js';
import type { CheckResult, DoctorContext } from '../../../src/ops/doctor/check.js';
import {
  databaseMigrationsCheck,
  databaseReachableCheck,
  databaseRightsCheck,
  databaseVersionCheck,
} from '../../../src/ops/doctor/database.js';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/net.js';
import { freshDatabase, postgresTest, type PostgresDatabase } from '../../helpers/postgres.js';

const checks = [databaseReachableCheck, databaseVersionCheck, databaseMigrationsCheck, databaseRightsCheck];
const [engine, compat] = postgresSchemas();

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-doctor-db-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

/** The four checks as doctor runs them (one context, so one connection), by id. */
async function run(url: string | undefined, t: Test): Promise<Record<string, CheckResult>> {
  const env = { SERVICE_DATA_DIR: dataDir(t), ...(url === undefined ? {} : { SERVICE_DATABASE_URL: url }) };
  const config = loadConfig({ env });
  const ctx = {
    env,
    config,
    ...(config.databaseUrl.kind === 'postgres' ? { databaseSchemas: postgresSchemas() } : {}),
  } as unknown as DoctorContext;
  const results = await Promise.all(checks.map(async (c) => c.run(ctx)));
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

async function migrated(t: Test): Promise<{ database: PostgresDatabase; sql: postgres.Sql }> {
  const database = await freshDatabase(t);
  const result = await runCli(['migrate'], { SERVICE_DATA_DIR: dataDir(t), SERVICE_DATABASE_URL: database.url });
  t.equal(result.code, 0, result.stderr);
  const sql = postgres({ ...database.options, onnotice: () => {} });
  t.teardown(() => sql.end());
  return { database, sql };
}

postgresTest('a migrated database the role owns: every check passes', async (t) => {
  const { database } = await migrated(t);
  const r = await run(database.url, t);
  t.same(
    Object.values(r).map((c) => c.status),
    ['ok', 'ok', 'ok', 'ok'],
    JSON.stringify(r),
  );
  t.match(r.database!.detail, `PostgreSQL 127.0.0.1:${database.cluster.port}/${database.name} as postgres`);
  t.match(r['database-version']!.detail, /^PostgreSQL 1\d/);
  t.equal(
    r['database-migrations']!.detail,
    `meet_engine at version ${engine!.latest}, meet_compat at version ${compat!.latest}`,
  );
  t.equal(r['database-rights']!.detail, 'postgres can create in and write meet_engine and meet_compat');
});

postgresTest('an old schema warns (meetctl migrate), a newer one fails; an empty database warns', async (t) => {
  const { database, sql } = await migrated(t);
  await sql.unsafe(`DELETE FROM meet_engine.schema_migrations WHERE version = ${engine!.latest}`);
  let r = await run(database.url, t);
  t.equal(r['database-migrations']!.status, 'warn');
  t.equal(r['database-migrations']!.detail, `meet_engine is at version ${engine!.latest - 1} of ${engine!.latest}`);
  t.match(r['database-migrations']!.hint, 'run meetctl migrate');

  await sql.unsafe(`INSERT INTO meet_compat.schema_migrations (version, name) VALUES (${compat!.latest + 1}, 'later')`);
  r = await run(database.url, t);
  t.equal(r['database-migrations']!.status, 'fail');
  t.match(
    r['database-migrations']!.detail,
    `meet_compat is at version ${compat!.latest + 1}, newer than this release's ${compat!.latest}`,
  );
  t.match(r['database-migrations']!.hint, 'run the release that wrote it');

  const empty = await freshDatabase(t);
  r = await run(empty.url, t);
  t.equal(r['database-migrations']!.status, 'warn');
  t.match(r['database-migrations']!.detail, 'meet_engine is at version 0 of');
  t.equal(r['database-rights']!.status, 'ok', 'the owner may create the schemas');
});

postgresTest('a role without rights fails the rights check, naming what it cannot do', async (t) => {
  const { database, sql } = await migrated(t);
  const role = `weak_${database.name}`;
  await sql.unsafe(`CREATE ROLE ${role} LOGIN`);
  await sql.unsafe(`REVOKE CREATE ON DATABASE ${database.name} FROM PUBLIC`);
  await sql.unsafe(`GRANT USAGE ON SCHEMA meet_engine, meet_compat TO ${role}`);
  await sql.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA meet_engine, meet_compat TO ${role}`);
  t.teardown(async () => {
    await sql.unsafe(`DROP OWNED BY ${role}`);
  });
  const url = `postgres://${role}@127.0.0.1:${database.cluster.port}/${database.name}`;
  const r = await run(url, t);
  t.equal(r.database!.status, 'ok');
  t.equal(r['database-rights']!.status, 'fail');
  t.match(r['database-rights']!.detail, `${role} cannot create in the schema meet_engine`);
  t.match(
    r['database-rights']!.detail,
    `${role} cannot write meet_engine.access_tokens, meet_engine.account_identities, `,
  );
  t.match(r['database-rights']!.hint, `OWNER TO ${role}`);
  t.equal(r['database-migrations']!.status, 'fail', 'it cannot read schema_migrations either');
});

t.test('a stopped server fails reachability, the others say why they did not run; SQLite skips them', async (t) => {
  const port = await freePort();
  const r = await run(`postgres://meet@127.0.0.1:${port}/meet?sslmode=disable`, t);
  t.equal(r.database!.status, 'fail');
  t.match(r.database!.detail, /cannot be used: .*ECONNREFUSED/);
  t.match(r.database!.hint, 'start PostgreSQL');
  for (const id of ['database-version', 'database-migrations', 'database-rights'])
    t.same([r[id]!.status, r[id]!.detail], ['skip', 'the database cannot be reached (see above)'], id);

  const sqlite = await run(undefined, t);
  t.same(
    Object.values(sqlite).map((c) => c.status),
    ['skip', 'skip', 'skip', 'skip'],
  );
});

postgresTest('meetctl doctor prints the database checks (the schemas come from the release)', async (t) => {
  const { database } = await migrated(t);
  const dir = dataDir(t);
  const result = await runCli(['doctor', '--json', '--config-dir', join(dir, '..')], {
    SERVICE_DATA_DIR: dir,
    SERVICE_DATABASE_URL: database.url,
  });
  const json = JSON.parse(result.stdout) as { checks: CheckResult[] };
  const mine = json.checks.filter((c) => c.id.startsWith('database'));
  t.same(
    mine.map((c) => [c.id, c.status]),
    [
      ['database', 'ok'],
      ['database-version', 'ok'],
      ['database-migrations', 'ok'],
      ['database-rights', 'ok'],
    ],
  );
  t.match(mine[2]!.detail, `meet_engine at version ${engine!.latest}`);
});
