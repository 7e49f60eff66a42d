import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { describeSchema, openDatabase, type Db } from '../../../src/store/database.js';
import { migrate, readMigrations, SchemaTooNewError } from '../../../src/platform/migrate.js';
import { readPragma } from '../../../src/platform/sqlite.js';
import type { Tap } from '../../helpers/api.js';

const migrationsDir = fileURLToPath(new URL('../../../src/store/migrations', import.meta.url));
/** Regenerate with `UPDATE_GOLDEN=1 npx tap test/unit/store/migrate.test.ts` after adding a migration. */
const goldenFile = fileURLToPath(new URL('../../fixtures/schema.golden.txt', import.meta.url));

/** The versions the migration files lead to, read from their names (NNN-name.sql; NNN-name.pg.sql is the same step on PostgreSQL). */
const versions = readdirSync(migrationsDir)
  .filter((file) => /^\d{3}-[a-z0-9-]+\.sql$/.test(file))
  .map((file) => Number(/^(\d{3})-/.exec(file)?.[1] ?? NaN));
const latest = Math.max(...versions);

function open(t: Tap, dataDir?: string): { db: Db; dataDir: string } {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'meet-store-'));
  if (!dataDir) t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  return { db, dataDir: dir };
}

const userVersion = (db: Db) => readPragma(db, 'user_version');

/** What the golden file holds: the schema version, then SQLite's own listing of the schema. */
const schemaListing = (db: Db) => [`user_version ${String(userVersion(db))}`, ...describeSchema(db)].join('\n') + '\n';

t.test('migration files are numbered 1..N without gaps', async (t) => {
  t.ok(versions.length > 0, 'there is at least one migration');
  t.same(
    [...versions].sort((a, b) => a - b),
    versions.map((_, i) => i + 1),
    `every file is NNN-name.sql: ${readdirSync(migrationsDir).join(', ')}`,
  );
  t.same(
    readMigrations(migrationsDir).map((m) => m.version),
    versions,
    'readMigrations finds every file, in order',
  );
});

t.test('a fresh data directory is migrated to the latest version', async (t) => {
  const { db } = open(t);
  t.equal(userVersion(db), latest, `user_version is ${latest}`);
  const tables = describeSchema(db)
    .filter((line) => line.startsWith('table '))
    .map((line) => line.split(':')[0]);
  for (const table of ['rooms', 'access_tokens', 'instance_meta'])
    t.ok(tables.includes(`table ${table}`), `table ${table} exists`);
  t.equal(readPragma(db, 'journal_mode'), 'wal');
  t.equal(readPragma(db, 'foreign_keys'), 1);
  t.equal(readPragma(db, 'synchronous'), 2, 'synchronous=FULL');
});

t.test('migrating again is a no-op', async (t) => {
  const { db, dataDir } = open(t);
  const schema = describeSchema(db);
  t.same(migrate(db, readMigrations(migrationsDir)), [], 'nothing is applied the second time');
  t.same(describeSchema(db), schema, 'schema unchanged');
  t.equal(userVersion(db), latest);

  db.close();
  const { db: reopened } = open(t, dataDir);
  t.same(describeSchema(reopened), schema, 'reopening leaves the schema as it was');
  t.equal(userVersion(reopened), latest);
  t.same(migrate(reopened, readMigrations(migrationsDir)), []);
});

// Issue 29, point 9: a downgraded service migrated nothing and ran on tables it did not know.
t.test('a schema newer than the code is refused, nothing written', async (t) => {
  const { db } = open(t);
  const schema = describeSchema(db);
  db.exec(`PRAGMA user_version = ${latest + 3}`);
  const err = t.throws(() => migrate(db, readMigrations(migrationsDir))) as unknown;
  t.ok(err instanceof SchemaTooNewError, 'a SchemaTooNewError');
  t.match(err, {
    file: 'meet.sqlite',
    found: latest + 3,
    known: latest,
    message: `schema version ${latest + 3}, newer than this version of the service knows (up to ${latest})`,
  });
  t.equal(userVersion(db), latest + 3, 'user_version untouched');
  t.same(describeSchema(db), schema, 'schema untouched');
});

t.test('a failing migration leaves the previous schema whole', async (t) => {
  const { db } = open(t);
  const schema = describeSchema(db);
  const broken = {
    version: latest + 1,
    name: 'broken.sql',
    sql: 'CREATE TABLE half_done (a TEXT); CREATE TABLE rooms (b TEXT);',
  };
  const good = { version: latest + 2, name: 'good.sql', sql: 'CREATE TABLE never_reached (c TEXT);' };
  t.throws(() => migrate(db, [...readMigrations(migrationsDir), broken, good]), /already exists/);
  t.equal(userVersion(db), latest, 'user_version unchanged');
  t.same(describeSchema(db), schema, 'no table of the failed run remains');
});

t.test('the schema matches the golden listing', async (t) => {
  const { db } = open(t);
  const actual = schemaListing(db);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(goldenFile, actual);
    t.comment(`rewrote ${goldenFile}`);
  }
  t.equal(
    actual,
    readFileSync(goldenFile, 'utf8'),
    'schema differs from test/fixtures/schema.golden.txt; if intended, rerun with UPDATE_GOLDEN=1',
  );
});
