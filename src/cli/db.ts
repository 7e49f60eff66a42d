// `meetctl db copy --from sqlite: --to postgres://…` (issue 34 point 6): moves a stopped SQLite
// installation into PostgreSQL. The refusals are the CLI's: a running service, a non-empty or
// newer target (1), a password in the URL (2), a database that cannot be reached (69).
import type { Command } from 'commander';
import { databaseUrl, type PostgresLocation } from '../config/database-url.js';
import { InvalidValue } from '../config/parsers.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { unusableDatabase } from './migrate.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';

function target(raw: string): PostgresLocation {
  try {
    const location = databaseUrl(raw);
    if (location.kind === 'postgres') return location;
  } catch (err) {
    if (err instanceof InvalidValue) throw new CliError('config', `--to ${err.message}`);
    throw err;
  }
  throw new CliError(
    'usage',
    '--to must be a postgres:// or postgresql:// URL (the copy goes from SQLite to PostgreSQL)',
  );
}

export function dbCommands(program: Command, io: CliIo): void {
  const db = program.command('db').description('move the durable state between stores');
  const copy = db
    .command('copy')
    .description(
      "copy a stopped installation's SQLite databases (the engine's and the meeting API's) into an empty PostgreSQL database, migrated to this release's schema, in one transaction; refuses a running service and a non-empty target",
    )
    .requiredOption('--from <store>', 'the store to copy from: sqlite: (the files of the data directory)')
    .requiredOption(
      '--to <url>',
      'the PostgreSQL to copy into: postgres://user@host:port/database (the password in PGPASSWORD or a passfile)',
    )
    .action(async (options: Record<string, unknown>) => {
      const from = String(options.from).trim();
      if (from !== 'sqlite:')
        throw new CliError('usage', `--from must be sqlite: (got ${JSON.stringify(from.slice(0, 40))})`);
      const to = target(String(options.to));
      const { config } = loadServiceConfig(options, io);
      const { copyToPostgres, DbCopyError } = await import('../daemon/db-copy.js');
      const { SchemaTooNewError } = await import('../platform/migrate.js');
      let copied;
      try {
        copied = await copyToPostgres(config, to, config.databaseStatementTimeoutMs);
      } catch (err) {
        if (err instanceof DbCopyError) throw new CliError(err.kind, err.message, err.hint);
        if (err instanceof SchemaTooNewError)
          throw new CliError('refused', err.message, 'copy into a new, empty database; nothing was copied');
        throw unusableDatabase(err) ?? err;
      }
      for (const table of copied) io.out(`${table.table}: ${table.rows} rows\n`);
      const rows = copied.reduce((n, t) => n + t.rows, 0);
      const key = copied.some((table) => table.table.endsWith('.signing_key'))
        ? 'the signing key is in the database now, so tokens signed before the move still verify'
        : 'there was no signing key file: the first daemon on PostgreSQL makes the key';
      io.out(
        `copied ${rows} rows in ${copied.length} tables into PostgreSQL ${to.host}:${to.port}/${to.database}; set SERVICE_DATABASE_URL=${to.url} to serve from it (${key})\n`,
      );
    });
  addConfigOptions(copy, ['dataDir', 'compatApiDataDir']);
  addServiceConfigOptions(copy);
}
