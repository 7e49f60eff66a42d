// Issue 34 point 4: `meetctl migrate [--dry-run]` on both stores. A dry run says which steps would
// run and changes nothing; a run applies them and says so; a second finds nothing to do; a
// database newer than this release is refused (exit 1), an unreachable one is the machine's (69).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/net.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';
import { engineMigrationSteps } from '../../../src/store/postgres/schema.js';
import { compatMigrationSteps } from '../../../src/compat/store/postgres-schema.js';

const engineSteps = engineMigrationSteps();
const compatSteps = compatMigrationSteps();
const lastEngine = engineSteps.at(-1)!;

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-migrate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

t.test('SQLite: the dry run names the steps and creates nothing; the run applies them; then up to date', async (t) => {
  const dir = dataDir(t);
  const env = { SERVICE_DATA_DIR: dir };
  const dry = await runCli(['migrate', '--dry-run'], env);
  t.equal(dry.code, 0, dry.stderr);
  t.match(
    dry.stdout,
    `engine (${join(dir, 'meet.sqlite')}): at version 0 of ${lastEngine.version}; would run 001-rooms-and-access-tokens, `,
  );
  t.match(dry.stdout, `, ${lastEngine.name}\n`);
  t.match(dry.stdout, 'meeting API (');
  t.match(dry.stdout, 'not created yet');
  t.notOk(existsSync(dir), 'the dry run created no data directory');

  const run = await runCli(['migrate'], env);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, `: ran 001-rooms-and-access-tokens, `);
  t.match(run.stdout, `(now at version ${lastEngine.version})`);
  t.ok(existsSync(join(dir, 'meet.sqlite')));

  const again = await runCli(['migrate', '--dry-run'], env);
  t.match(again.stdout, `engine (${join(dir, 'meet.sqlite')}): up to date (version ${lastEngine.version})`);
});

postgresTest(
  'PostgreSQL: both schemas; dry run first, then the run, then nothing to do; no SQLite file made',
  async (t) => {
    const database = await freshDatabase(t);
    const dir = dataDir(t);
    const env = { SERVICE_DATA_DIR: dir, SERVICE_DATABASE_URL: database.url };
    const dry = await runCli(['migrate', '--dry-run'], env);
    t.equal(dry.code, 0, dry.stderr);
    const where = `PostgreSQL 127.0.0.1:${database.cluster.port}/${database.name}`;
    t.match(dry.stdout, `engine (${where}, schema meet_engine): at version 0 of ${lastEngine.version}; would run 001-`);
    t.match(
      dry.stdout,
      `meeting API (${where}, schema meet_compat): at version 0 of ${compatSteps.length}; would run ${compatSteps.map((s) => s.name).join(', ')}`,
    );
    const sql = postgres({ ...database.options, onnotice: () => {} });
    t.teardown(() => sql.end());
    const schemas = async () =>
      (await sql`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'meet_%' ORDER BY 1`).map(
        (r) => r.schema_name as string,
      );
    t.same(await schemas(), [], 'the dry run created nothing');

    const run = await runCli(['migrate'], env);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, `engine (${where}, schema meet_engine): ran 001-`);
    t.match(run.stdout, `meeting API (${where}, schema meet_compat): ran `);
    t.same(await schemas(), ['meet_compat', 'meet_engine']);
    t.notOk(existsSync(dir), 'no SQLite file (nor data directory) on PostgreSQL');

    const again = await runCli(['migrate', '--dry-run'], env);
    t.match(again.stdout, `schema meet_engine): up to date (version ${lastEngine.version})`);
    t.match(again.stdout, `schema meet_compat): up to date (version ${compatSteps.length})`);

    await sql.unsafe(
      `INSERT INTO meet_engine.schema_migrations (version, name) VALUES (${lastEngine.version + 1}, 'later')`,
    );
    const newer = await runCli(['migrate'], env);
    t.equal(newer.code, 1, 'refused');
    t.match(newer.stderr, `PostgreSQL schema meet_engine has schema version ${lastEngine.version + 1}`);
    t.match(newer.stderr, 'hint: run the release that wrote it; nothing was changed');
  },
);

t.test('PostgreSQL unreachable: exit 69 naming the database problem', async (t) => {
  const port = await freePort();
  const result = await runCli(['migrate', '--dry-run'], {
    SERVICE_DATA_DIR: dataDir(t),
    SERVICE_DATABASE_URL: `postgres://meet@127.0.0.1:${port}/meet?sslmode=disable`,
  });
  t.equal(result.code, 69, result.stderr);
  t.match(result.stderr, /meetctl: the database cannot be used: .*ECONNREFUSED/);
});

t.test('a password in SERVICE_DATABASE_URL stops the command before any connection (exit 2)', async (t) => {
  const result = await runCli(['migrate', '--dry-run'], {
    SERVICE_DATA_DIR: dataDir(t),
    SERVICE_DATABASE_URL: 'postgres://meet:hunter2-pw@127.0.0.1:1/meet',
  });
  t.equal(result.code, 2);
  t.match(result.stderr, 'SERVICE_DATABASE_URL must not hold a password');
  t.notMatch(result.stderr, 'hunter2');
});
