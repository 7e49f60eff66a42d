import type { Command } from 'commander';
import type { StoreMigration } from '../daemon/migrate-stores.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';

/** One line per store: where it is, the version found and what ran (or would run). */
function describe(report: StoreMigration, dryRun: boolean): string {
  const head = `${report.store} (${report.where})`;
  if (report.absent) return `${head}: not created yet (the service creates it when first used)`;
  const names = report.steps.map((s) => s.name).join(', ');
  if (report.steps.length === 0) return `${head}: up to date (version ${report.from})`;
  return dryRun
    ? `${head}: at version ${report.from} of ${report.latest}; would run ${names}`
    : `${head}: ran ${names} (now at version ${report.latest})`;
}

/** Errors the database gives that are the machine's (unreachable, refused, no such role). */
const reachCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ENOENT', 'CONNECT_TIMEOUT']);

/**
 * The CLI's failure for a database that cannot be used (a reach code above, or PostgreSQL's class
 * 28, authorisation, or 3D, no such database): the machine's problem (69). Null for any other error.
 */
export function unusableDatabase(err: unknown): CliError | null {
  const code = (err as { code?: string }).code;
  if (code === undefined || !(reachCodes.has(code) || /^28|^3D/.test(code))) return null;
  return new CliError('environment', `the database cannot be used: ${(err as Error).message} (${code})`);
}

export function migrateCommand(program: Command, io: CliIo): void {
  const command = program
    .command('migrate')
    .description(
      "bring both databases (the engine's and the meeting API's) to this release's schema, on SQLite or on the PostgreSQL of SERVICE_DATABASE_URL; the daemon does the same at start",
    )
    .option('--dry-run', 'only say which steps would run; change nothing')
    .action(async (options: Record<string, unknown>) => {
      const { config } = loadServiceConfig(options, io);
      const dryRun = options.dryRun === true;
      const { migrateStores } = await import('../daemon/migrate-stores.js');
      const { SchemaTooNewError } = await import('../platform/migrate.js');
      let reports: StoreMigration[];
      try {
        reports = await migrateStores(config, dryRun);
      } catch (err) {
        if (err instanceof SchemaTooNewError)
          throw new CliError('refused', err.message, 'run the release that wrote it; nothing was changed');
        throw unusableDatabase(err) ?? err;
      }
      for (const report of reports) io.out(`${describe(report, dryRun)}\n`);
    });
  addConfigOptions(command, ['dataDir', 'compatApiDataDir', 'databaseUrl']);
  addServiceConfigOptions(command);
}
