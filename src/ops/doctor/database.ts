// The database checks of `meetctl doctor` (issue 34 point 8), when SERVICE_DATABASE_URL names a
// PostgreSQL: reachable, server version 13 or newer, both schemas at this release's migration
// version (not behind, not ahead), and the role's rights (create in and write its schemas;
// has_table_privilege with several privileges is true when ANY is held, so each is asked alone).
// One connection answers all four; on SQLite they are skipped (the data-directory check covers it).
import type { PostgresLocation } from '../../config/database-url.js';
import { openPostgres } from '../../platform/postgres.js';
import { check, configMissing, fail, ok, skip, warn, type DoctorContext, type Outcome } from './check.js';

/** The oldest PostgreSQL the service runs on. */
const minimumMajor = 13;

interface SchemaState {
  readonly store: string;
  readonly schema: string;
  readonly latest: number;
  /** Null: the schema (or its schema_migrations) is not there yet. */
  readonly version: number | null;
  /** CREATE and USAGE on the schema, or (absent) CREATE on the database to make it. */
  readonly canCreate: boolean;
  /** Tables of the schema the role cannot insert into, update or delete from. */
  readonly unwritable: readonly string[];
}

type Probe =
  | { readonly reached: false; readonly where: string; readonly error: string }
  | {
      readonly reached: true;
      readonly where: string;
      readonly user: string;
      readonly versionNum: number;
      readonly version: string;
      readonly schemas: readonly SchemaState[];
    };

const probes = new WeakMap<DoctorContext, Promise<Probe>>();

async function probe(location: PostgresLocation, ctx: DoctorContext, timeoutMs: number): Promise<Probe> {
  const where = `${location.host}:${location.port}/${location.database}`;
  const sql = openPostgres(location, { max: 1, statementTimeoutMs: timeoutMs }, { ...process.env, ...ctx.env });
  try {
    const [server] = await sql`SELECT current_setting('server_version_num')::int AS num,
      current_setting('server_version') AS text, current_user AS "user",
      has_database_privilege(current_user, current_database(), 'CREATE') AS "createSchema"`;
    const schemas: SchemaState[] = [];
    for (const expected of ctx.databaseSchemas ?? []) {
      const [found] = await sql`SELECT
        to_regnamespace(${expected.schema}) IS NOT NULL AS present,
        to_regclass(${`"${expected.schema}".schema_migrations`}) IS NOT NULL AS versioned`;
      let version: number | null = null;
      let canCreate = Boolean(server?.createSchema);
      let unwritable: string[] = [];
      if (found?.present) {
        const [rights] = await sql`SELECT has_schema_privilege(current_user, ${expected.schema}, 'CREATE')
          AND has_schema_privilege(current_user, ${expected.schema}, 'USAGE') AS ok`;
        canCreate = Boolean(rights?.ok);
        const tables = await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ${expected.schema} AND c.relkind = 'r'
          AND NOT (has_table_privilege(current_user, c.oid, 'SELECT') AND has_table_privilege(current_user, c.oid, 'INSERT')
            AND has_table_privilege(current_user, c.oid, 'UPDATE') AND has_table_privilege(current_user, c.oid, 'DELETE'))
          ORDER BY 1`;
        unwritable = tables.map((t) => t.name);
        if (found.versioned && canCreate) {
          const [row] = await sql.unsafe(
            `SELECT coalesce(max(version), 0)::int AS version FROM "${expected.schema}".schema_migrations`,
          );
          version = Number(row?.version ?? 0);
        } else if (found.versioned) version = -1;
      }
      schemas.push({ ...expected, version, canCreate, unwritable });
    }
    return {
      reached: true,
      where,
      user: String(server?.user),
      versionNum: Number(server?.num),
      version: String(server?.text),
      schemas,
    };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { reached: false, where, error: `${(err as Error).message}${code === undefined ? '' : ` (${code})`}` };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The probe of this run (one connection for the four checks), or the outcome that stands in for it. */
async function probed(ctx: DoctorContext): Promise<Probe | Outcome> {
  if (ctx.config === null) return configMissing;
  const location = ctx.config.databaseUrl;
  if (location.kind !== 'postgres')
    return skip('SQLite in the data directory (SERVICE_DATABASE_URL is not PostgreSQL)');
  let pending = probes.get(ctx);
  if (pending === undefined) {
    pending = probe(location, ctx, ctx.config.databaseStatementTimeoutMs);
    probes.set(ctx, pending);
  }
  return pending;
}

const unreached = skip('the database cannot be reached (see above)');

export const databaseReachableCheck = check('database', 'Database reachable', async (ctx) => {
  const p = await probed(ctx);
  if (!('reached' in p)) return p;
  if (!p.reached)
    return fail(
      `PostgreSQL ${p.where} cannot be used: ${p.error}`,
      'start PostgreSQL (systemctl start postgresql), check SERVICE_DATABASE_URL, and give the password in PGPASSWORD or a passfile',
    );
  return ok(`PostgreSQL ${p.where} as ${p.user}`);
});

export const databaseVersionCheck = check('database-version', 'Database version', async (ctx) => {
  const p = await probed(ctx);
  if (!('reached' in p)) return p;
  if (!p.reached) return unreached;
  const major = Math.floor(p.versionNum / 10000);
  if (major < minimumMajor)
    return fail(
      `PostgreSQL ${p.version}: the service needs ${minimumMajor} or newer`,
      `upgrade the server (pg_upgrade) to PostgreSQL ${minimumMajor} or newer`,
    );
  return ok(`PostgreSQL ${p.version}`);
});

export const databaseMigrationsCheck = check('database-migrations', 'Database schema', async (ctx) => {
  const p = await probed(ctx);
  if (!('reached' in p)) return p;
  if (!p.reached) return unreached;
  const ahead = p.schemas.filter((s) => s.version !== null && s.version > s.latest);
  if (ahead.length > 0)
    return fail(
      ahead.map((s) => `${s.schema} is at version ${s.version}, newer than this release's ${s.latest}`).join('; '),
      'run the release that wrote it (a downgrade would lose what it stores)',
    );
  const unreadable = p.schemas.filter((s) => s.version === -1);
  if (unreadable.length > 0)
    return fail(
      `${unreadable.map((s) => s.schema).join(', ')}: the role cannot read its migrations`,
      'see the rights check below',
    );
  const behind = p.schemas.filter((s) => (s.version ?? 0) < s.latest);
  if (behind.length > 0)
    return warn(
      behind.map((s) => `${s.schema} is at version ${s.version ?? 0} of ${s.latest}`).join('; '),
      'run meetctl migrate (the service also migrates when it starts)',
    );
  return ok(p.schemas.map((s) => `${s.schema} at version ${s.latest}`).join(', '));
});

export const databaseRightsCheck = check('database-rights', 'Database rights', async (ctx) => {
  const p = await probed(ctx);
  if (!('reached' in p)) return p;
  if (!p.reached) return unreached;
  const problems = p.schemas.flatMap((s) => [
    ...(s.canCreate
      ? []
      : [
          s.version === null
            ? `${p.user} cannot create the schema ${s.schema} in the database`
            : `${p.user} cannot create in the schema ${s.schema}`,
        ]),
    ...(s.unwritable.length > 0 ? [`${p.user} cannot write ${s.schema}.${s.unwritable.join(`, ${s.schema}.`)}`] : []),
  ]);
  if (problems.length > 0)
    return fail(
      problems.join('; '),
      `make ${p.user} the owner of the database and its schemas (ALTER DATABASE … OWNER TO ${p.user}; ALTER SCHEMA … OWNER TO ${p.user})`,
    );
  return ok(`${p.user} can create in and write ${p.schemas.map((s) => s.schema).join(' and ')}`);
});
