// `meetctl db copy --from sqlite: --to postgres://…` (issue 34 point 6): moves a stopped
// installation's SQLite databases (the engine's and the meeting API's) into PostgreSQL. The target
// is migrated to this release's schema first (both files must be at that version too), must hold
// no rows, and receives every table in one transaction: a failure leaves it as empty as it was.
// Types follow the `.pg.sql` twins: blobs stay bytes (bytea), 0/1 become booleans, an `ordinal`
// the SQLite table lacks is its rowid (the order the stores read in), and identity sequences are
// set past the copied values. Row counts are compared per table before the commit.
// The signing key file of the data directory, when there is one, becomes the row of
// meet_engine.signing_key (migration 021) in the same transaction, so tokens signed before the
// move still verify; the key itself is never printed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compatDatabaseFileName } from '../compat/store/compat-store.js';
import { compatMigrationSteps, compatSchema } from '../compat/store/postgres-schema.js';
import type { PostgresLocation } from '../config/database-url.js';
import { migratePostgres, type MigrationStep } from '../platform/pg-migrate.js';
import { openPostgres, type Sql, type TransactionSql } from '../platform/postgres.js';
import { openSqlite, readPragma } from '../platform/sqlite.js';
import { databaseInUse } from '../store/backup.js';
import { databaseFileName } from '../store/database.js';
import { engineMigrationSteps, engineSchema } from '../store/postgres/schema.js';
import { readSigningKeyFile, signingKeyFileName } from './signing-key.js';

type Db = ReturnType<typeof openSqlite>;

/** A refusal of the copy; `kind` is the CLI's error kind (refused: 1, environment: 69). */
export class DbCopyError extends Error {
  constructor(
    readonly kind: 'refused' | 'environment',
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export interface CopiedTable {
  /** schema.table on PostgreSQL. */
  readonly table: string;
  readonly rows: number;
}

interface Source {
  readonly store: string;
  readonly file: string;
  readonly schema: string;
  readonly steps: MigrationStep[];
}

const latestOf = (steps: readonly MigrationStep[]) => steps.reduce((n, s) => Math.max(n, s.version), 0);
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables of a SQLite database, parents before the tables whose foreign keys name them. */
function tablesInOrder(db: Db): string[] {
  const names = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  const out: string[] = [];
  const visit = (name: string, path: readonly string[]) => {
    if (out.includes(name) || path.includes(name)) return;
    const parents = db.prepare(`SELECT "table" AS parent FROM pragma_foreign_key_list(?)`).all(name) as {
      parent: string;
    }[];
    for (const { parent } of parents) if (names.includes(parent)) visit(parent, [...path, name]);
    out.push(name);
  };
  for (const name of names) visit(name, []);
  return out;
}

/** A SQLite value as the PostgreSQL column of `type` takes it. */
function converted(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value !== 0 && value !== 0n && value !== '0';
  if (type === 'bytea')
    return Buffer.isBuffer(value)
      ? value
      : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** How many rows the meet schemas of the target hold (schema_migrations aside); absent schemas hold none. */
async function rowsInTarget(sql: Sql, schemas: readonly string[]): Promise<{ table: string; rows: number }[]> {
  const tables = await sql<{ schema: string; name: string }[]>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_schema IN ${sql(schemas)} AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
    ORDER BY 1, 2`;
  const out: { table: string; rows: number }[] = [];
  for (const t of tables) {
    const [row] = await sql.unsafe(`SELECT count(*)::int AS n FROM ${quoted(t.schema)}.${quoted(t.name)}`);
    const rows = Number(row?.n ?? 0);
    if (rows > 0) out.push({ table: `${t.schema}.${t.name}`, rows });
  }
  return out;
}

async function copyTable(tx: TransactionSql, db: Db, schema: string, table: string): Promise<CopiedTable> {
  const target = `${quoted(schema)}.${quoted(table)}`;
  const columns = await tx<{ name: string; type: string; identity: boolean }[]>`
    SELECT column_name AS name, data_type AS type, is_identity = 'YES' AS identity FROM information_schema.columns
    WHERE table_schema = ${schema} AND table_name = ${table} ORDER BY ordinal_position`;
  if (columns.length === 0)
    throw new DbCopyError(
      'refused',
      `the SQLite table ${table} has no twin in the PostgreSQL schema ${schema}; nothing was copied`,
      'the files and the target must be at the same schema version (run meetctl migrate on the old installation)',
    );
  const sourceColumns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map(
    (c) => c.name,
  );
  const extra = sourceColumns.filter((c) => !columns.some((p) => p.name === c));
  if (extra.length > 0)
    throw new DbCopyError(
      'refused',
      `${table}.${extra[0]} has no column in ${schema}.${table}; nothing was copied`,
      'the files and the target must be at the same schema version',
    );
  const withRowid =
    db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'`).get(table) === undefined;
  // The ordinal of the twins stands in for the rowid: the order the SQLite store read rows in.
  const taken = columns.filter((c) => sourceColumns.includes(c.name) || (c.name === 'ordinal' && withRowid));
  const select = taken.map((c) => (sourceColumns.includes(c.name) ? quoted(c.name) : `rowid AS ordinal`)).join(', ');
  // Read in pages with all(), not iterate(): an unfinished StatementIterator held across awaits is
  // collected later, and its destructor aborts Node 24 (as better-sqlite3's Backup object did).
  const pageSize = 500;
  const readPage = withRowid
    ? db.prepare(
        `SELECT rowid AS "__page_key", ${select} FROM ${quoted(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${pageSize}`,
      )
    : db.prepare(`SELECT ${select} FROM ${quoted(table)} LIMIT ${pageSize} OFFSET ?`);
  const names = taken.map((c) => c.name);
  await tx.unsafe(`SET LOCAL search_path TO ${quoted(schema)}`);
  for (let after = withRowid ? -Number.MAX_SAFE_INTEGER : 0; ;) {
    const rows = readPage.all(after) as Record<string, unknown>[];
    if (rows.length === 0) break;
    const batch = rows.map((row) => Object.fromEntries(taken.map((c) => [c.name, converted(row[c.name], c.type)])));
    await tx`INSERT INTO ${tx(table)} ${tx(batch as never, names as never)}`;
    if (rows.length < pageSize) break;
    after = withRowid ? Number(rows[rows.length - 1]!.__page_key) : after + rows.length;
  }
  for (const c of columns.filter((col) => col.identity))
    await tx.unsafe(
      `SELECT setval(pg_get_serial_sequence($1, $2), greatest(coalesce(max(${quoted(c.name)}), 0), 1), max(${quoted(c.name)}) IS NOT NULL) FROM ${target}`,
      [target, c.name],
    );
  const [copied] = await tx.unsafe(`SELECT count(*)::int AS n FROM ${target}`);
  const expected = (db.prepare(`SELECT count(*) AS n FROM ${quoted(table)}`).get() as { n: number }).n;
  const rowsCopied = Number(copied?.n ?? -1);
  if (rowsCopied !== expected)
    throw new DbCopyError(
      'refused',
      `${schema}.${table} holds ${rowsCopied} rows after the copy, the SQLite table ${expected}; nothing was copied`,
      'this is a bug; please report it with the output above',
    );
  return { table: `${schema}.${table}`, rows: rowsCopied };
}

/**
 * Copies the installation whose SQLite files are in `dataDir` and `compatApiDataDir` into the
 * PostgreSQL of `to`. Refuses a running service, files at another schema version than this
 * release's, and a target holding any row; returns the tables copied with their row counts.
 */
export async function copyToPostgres(
  dirs: { readonly dataDir: string; readonly compatApiDataDir: string },
  to: PostgresLocation,
  statementTimeoutMs: number,
): Promise<CopiedTable[]> {
  const sources: Source[] = [
    {
      store: 'engine',
      file: join(dirs.dataDir, databaseFileName),
      schema: engineSchema,
      steps: engineMigrationSteps(),
    },
    {
      store: 'meeting API',
      file: join(dirs.compatApiDataDir, compatDatabaseFileName),
      schema: compatSchema,
      steps: compatMigrationSteps(),
    },
  ];
  if (!existsSync(sources[0]!.file))
    throw new DbCopyError(
      'refused',
      `${sources[0]!.file} does not exist: there is nothing to copy`,
      'name the installation with --data-dir (or SERVICE_DATA_DIR)',
    );
  const present = sources.filter((s) => existsSync(s.file));
  for (const s of present)
    if (databaseInUse(s.file))
      throw new DbCopyError(
        'refused',
        `${s.file} is open in a running service; nothing was copied`,
        'stop the service first (systemctl stop meet): a copy of a running service would miss what it writes meanwhile',
      );
  const key = readSigningKeyFile(dirs.dataDir);
  if (key !== null && key.length < 32)
    throw new DbCopyError(
      'refused',
      `${join(dirs.dataDir, signingKeyFileName)} does not hold a signing key of 32 bytes or more; nothing was copied`,
      'restore the file from a backup, or delete it to sign with a new key (every session and join link ends)',
    );
  const dbs = present.map((s) => ({ source: s, db: openSqlite(s.file, { readonly: true, fileMustExist: true }) }));
  const sql = openPostgres(to, { max: 1, statementTimeoutMs });
  try {
    for (const { source, db } of dbs) {
      const version = readPragma(db, 'user_version') as number;
      if (version !== latestOf(source.steps))
        throw new DbCopyError(
          'refused',
          `${source.file} is at schema version ${version}, this release's is ${latestOf(source.steps)}; nothing was copied`,
          version < latestOf(source.steps)
            ? 'run meetctl migrate on the SQLite installation first (SERVICE_DATABASE_URL unset)'
            : 'run the release that wrote it',
        );
    }
    const occupied = await rowsInTarget(
      sql,
      sources.map((s) => s.schema),
    );
    if (occupied.length > 0)
      throw new DbCopyError(
        'refused',
        `the target is not empty: ${occupied.map((o) => `${o.table} holds ${o.rows} rows`).join(', ')}; nothing was copied`,
        'copy into a new, empty database (createdb), never over one in use',
      );
    for (const s of sources) await migratePostgres(sql, s.schema, s.steps);
    const copied: CopiedTable[] = [];
    await sql.begin(async (tx) => {
      await tx.unsafe('SET LOCAL statement_timeout = 0');
      for (const { source, db } of dbs)
        for (const table of tablesInOrder(db)) copied.push(await copyTable(tx, db, source.schema, table));
      if (key !== null) {
        await tx`INSERT INTO meet_engine.signing_key (id, key) VALUES (1, ${Buffer.from(key)})`;
        copied.push({ table: `${engineSchema}.signing_key`, rows: 1 });
      }
    });
    return copied;
  } finally {
    for (const { db } of dbs) db.close();
    await sql.end({ timeout: 5 });
  }
}
