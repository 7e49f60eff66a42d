// Issue 34 point 4: both stores migrate from one list. Every step has its SQLite and its
// PostgreSQL form; the PostgreSQL schemas have every table and column (and nullability) of the
// SQLite databases; daemons starting at once migrate once (advisory lock); a schema newer than
// the code is refused, nothing written; a dry run says what would run and writes nothing.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { compatMigrationSteps, compatSchema } from '../../../src/compat/store/postgres-schema.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';
import { SchemaTooNewError } from '../../../src/platform/migrate.js';
import { migratePostgres, readMigrationSteps, type MigrationStep } from '../../../src/platform/pg-migrate.js';
import { openSqlite } from '../../../src/platform/sqlite.js';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { freshDatabase, postgresTest, type PostgresDatabase } from '../../helpers/postgres.js';

const stores: { name: string; schema: string; steps: () => MigrationStep[]; dir: string }[] = [
  { name: 'engine', schema: engineSchema, steps: engineMigrationSteps, dir: '../../../src/store/migrations' },
  {
    name: 'meeting API',
    schema: compatSchema,
    steps: compatMigrationSteps,
    dir: '../../../src/compat/store/migrations',
  },
];

/** Columns PostgreSQL has beyond SQLite's: each stands in for SQLite's implicit rowid where code orders by it. */
const rowidStandIns = [
  'compat_meetings.ordinal',
  'meetings.ordinal',
  'participant_stats.ordinal',
  'participants.ordinal',
  'waiting_requests.ordinal',
];

/**
 * Tables only PostgreSQL has: on SQLite their content is a file of the data directory (the signing
 * key), or means nothing (the nodes of a cluster and the rooms' leases: SQLite serves one node).
 */
const postgresOnlyTables = ['nodes', 'room_leases', 'signing_key'];

const connect = (t: Test, db: PostgresDatabase) => {
  const sql = postgres({ ...db.options, onnotice: () => {} });
  t.teardown(() => sql.end());
  return sql;
};

t.test('every migration of both stores has its SQLite and its PostgreSQL form, one version each', async (t) => {
  for (const store of stores) {
    const files = readdirSync(fileURLToPath(new URL(store.dir, import.meta.url)));
    const sqlite = files.filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f));
    const pg = files.filter((f) => /^\d{3}-[a-z0-9-]+\.pg\.sql$/.test(f));
    t.same(
      pg,
      sqlite.map((f) => f.replace(/\.sql$/, '.pg.sql')),
      `${store.name}: a .pg.sql beside each .sql`,
    );
    const steps = store.steps();
    t.same(
      steps.map((s) => s.version),
      sqlite.map((_, i) => i + 1),
      `${store.name}: steps 1..${sqlite.length}`,
    );
    t.ok(
      steps.every((s) => s.postgres.trim() !== '' && s.sqlite.trim() !== ''),
      `${store.name}: no empty form`,
    );
  }
});

t.test('a step without its PostgreSQL form (or its SQLite one) is refused, naming it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-steps-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, '001-a.sql'), 'CREATE TABLE a (x TEXT) STRICT;');
  writeFileSync(join(dir, '001-a.pg.sql'), 'CREATE TABLE a (x text);');
  writeFileSync(join(dir, '002-b.sql'), 'CREATE TABLE b (x TEXT) STRICT;');
  t.throws(() => readMigrationSteps(dir), /migration 002-b has no 002-b\.pg\.sql/);
  writeFileSync(join(dir, '002-b.pg.sql'), 'CREATE TABLE b (x text);');
  writeFileSync(join(dir, '003-c.pg.sql'), 'CREATE TABLE c (x text);');
  t.throws(() => readMigrationSteps(dir), /migration 003-c has no 003-c\.sql/);
  writeFileSync(join(dir, '003-c.sql'), 'CREATE TABLE c (x TEXT) STRICT;');
  t.equal(readMigrationSteps(dir).length, 3);
  writeFileSync(join(dir, '005-e.sql'), '');
  writeFileSync(join(dir, '005-e.pg.sql'), '');
  t.throws(() => readMigrationSteps(dir), /migration 005-e should be number 4/);
});

/** table -> column -> NOT NULL, of a SQLite database. */
function sqliteColumns(db: Db): Map<string, Map<string, boolean>> {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  return new Map(
    tables.map((table) => [
      table,
      new Map(
        (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; notnull: number; pk: number }[]).map(
          (c) => [c.name, c.notnull === 1 || c.pk > 0],
        ),
      ),
    ]),
  );
}

postgresTest(
  'the PostgreSQL schemas have every table and column of the SQLite databases, nullability alike',
  async (t) => {
    const database = await freshDatabase(t);
    const sql = connect(t, database);
    const dir = mkdtempSync(join(tmpdir(), 'meet-parity-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    openDatabase(dir).close();
    new SqliteCompatStore(dir).close();
    const files = { [engineSchema]: 'meet.sqlite', [compatSchema]: 'confapi.sqlite' };
    for (const store of stores) {
      await migratePostgres(sql, store.schema, store.steps());
      const sqlite = openSqlite(join(dir, files[store.schema as keyof typeof files]), { readonly: true });
      const expected = sqliteColumns(sqlite);
      sqlite.close();
      const rows = await sql<{ table_name: string; column_name: string; is_nullable: string }[]>`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = ${store.schema} AND table_name <> 'schema_migrations'`;
      const actual = new Map<string, Map<string, boolean>>();
      for (const row of rows) {
        const columns = actual.get(row.table_name) ?? new Map<string, boolean>();
        columns.set(row.column_name, row.is_nullable === 'NO');
        actual.set(row.table_name, columns);
      }
      t.same(
        [...actual.keys()].filter((table) => !postgresOnlyTables.includes(table)).sort(),
        [...expected.keys()].sort(),
        `${store.name}: the same tables (${postgresOnlyTables.join(', ')} aside)`,
      );
      for (const [table, columns] of expected) {
        const got = actual.get(table) ?? new Map<string, boolean>();
        for (const [column, notNull] of columns)
          t.equal(
            got.get(column),
            notNull,
            `${store.name}: ${table}.${column} exists, ${notNull ? 'NOT NULL' : 'nullable'}`,
          );
        const extra = [...got.keys()].filter((c) => !columns.has(c)).map((c) => `${table}.${c}`);
        t.ok(
          extra.every((c) => rowidStandIns.includes(c)),
          `${store.name}: ${table} has no column SQLite lacks but a rowid stand-in (${extra.join(', ') || 'none'})`,
        );
      }
    }
    // The type mapping: a hash is bytea, a time in milliseconds bigint, a flag boolean.
    const types = await sql<{ t: string }[]>`
    SELECT table_name || '.' || column_name || ' ' || data_type AS t FROM information_schema.columns
    WHERE (table_schema, table_name, column_name) IN ((${engineSchema}, 'waiting_requests', 'secret_hash'),
      (${engineSchema}, 'rooms', 'ephemeral'), (${compatSchema}, 'compat_meetings', 'create_time'))
    ORDER BY 1`;
    t.same(
      types.map((r) => r.t),
      ['compat_meetings.create_time bigint', 'rooms.ephemeral boolean', 'waiting_requests.secret_hash bytea'],
    );
  },
);

postgresTest(
  'several migrators starting at once against one database: one migrates, the others find it done',
  async (t) => {
    const database = await freshDatabase(t);
    const steps = engineMigrationSteps();
    // Each its own pool, as separate daemons would have.
    const pools = Array.from({ length: 5 }, () => connect(t, database));
    const results = await Promise.all(pools.map((sql) => migratePostgres(sql, engineSchema, steps)));
    const migrated = results.filter((r) => r.steps.length > 0);
    t.equal(migrated.length, 1, 'exactly one migrator applied steps');
    t.equal(migrated[0]?.steps.length, steps.length, 'all of them');
    t.same(
      results.filter((r) => r.steps.length === 0).map((r) => r.from),
      [steps.length, steps.length, steps.length, steps.length],
      'the others found the schema at the last version',
    );
    const [sql] = pools;
    const applied = await sql!.unsafe(`SELECT version FROM ${engineSchema}.schema_migrations ORDER BY version`);
    t.same(
      applied.map((r) => r.version),
      steps.map((s) => s.version),
      'each step recorded once',
    );
  },
);

postgresTest('a schema newer than the code is refused, nothing written; a dry run writes nothing', async (t) => {
  const database = await freshDatabase(t);
  const sql = connect(t, database);
  const steps = compatMigrationSteps();
  const planned = await migratePostgres(sql, compatSchema, steps, { dryRun: true });
  t.same(planned, { from: 0, steps: steps.map((s) => ({ version: s.version, name: s.name })) }, 'what would run');
  const [afterDry] =
    await sql`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = ${compatSchema}`;
  t.equal(afterDry?.n, 0, 'the dry run created nothing');

  t.same(
    (await migratePostgres(sql, compatSchema, steps.slice(0, 1))).steps.length,
    1,
    'an older release migrates to 1',
  );
  t.same(await migratePostgres(sql, compatSchema, steps, { dryRun: true }), {
    from: 1,
    steps: [{ version: 2, name: steps[1]!.name }],
  });
  await migratePostgres(sql, compatSchema, steps);
  t.same((await migratePostgres(sql, compatSchema, steps)).steps, [], 'nothing left');

  await sql.unsafe(
    `INSERT INTO ${compatSchema}.schema_migrations (version, name) VALUES (${steps.length + 1}, '003-later')`,
  );
  const refusal = await migratePostgres(sql, compatSchema, steps).then(
    () => null,
    (err: unknown) => err,
  );
  t.type(refusal, SchemaTooNewError);
  t.match((refusal as Error).message, `PostgreSQL schema ${compatSchema} has schema version ${steps.length + 1}`);
  t.match((refusal as Error).message, `up to ${steps.length}`);
  await t.rejects(migratePostgres(sql, compatSchema, steps, { dryRun: true }), SchemaTooNewError, 'a dry run too');
});
