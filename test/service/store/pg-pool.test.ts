// Issue 34 points 1 and 3: the pool opened from SERVICE_DATABASE_URL's parts applies the settings:
// a statement over SERVICE_DATABASE_STATEMENT_TIMEOUT_MS is cancelled (migrations are exempt),
// commits are synchronous (an acknowledged write is durable), the schema is the pool's search path.
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres } from '../../../src/platform/postgres.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

postgresTest('statement timeout, synchronous commit and search path come from the settings', async (t) => {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const sql = openPostgres(target, { max: 2, statementTimeoutMs: 300, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  const [settings] = await sql`SELECT current_setting('statement_timeout') AS timeout,
    current_setting('synchronous_commit') AS sync, current_setting('search_path') AS path,
    current_setting('application_name') AS app`;
  t.same(settings, { timeout: '300ms', sync: 'on', path: engineSchema, app: 'meet-test' });
  await t.rejects(sql`SELECT pg_sleep(2)`, { code: '57014' }, 'a long statement is cancelled');
  // A migration may take longer than a request's statement: exempt (its own SET LOCAL).
  const slowStep = {
    version: 1,
    name: '001-slow',
    sqlite: '',
    postgres: 'SELECT pg_sleep(0.6); CREATE TABLE slow (x int);',
  };
  t.same((await migratePostgres(sql, 'meet_slow', [slowStep])).steps, [{ version: 1, name: '001-slow' }]);
  t.equal((await migratePostgres(sql, engineSchema, engineMigrationSteps())).from, 0);
  t.same(await sql`SELECT count(*)::int AS n FROM rooms`, [{ n: 0 }], 'tables found through the search path');
});
