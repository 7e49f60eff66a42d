import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ServiceFiles } from '../daemon/backup.js';
import { parseEnvFile } from '../ops/env-file.js';
import { readIfExists } from '../platform/atomic-file.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';
import { step } from './ui.js';

/**
 * Where the installed service keeps its files, as `serve` under systemd sees them: the env file
 * install wrote (`<config dir>/meet.env`, or --env-file) beneath this process's environment and
 * the flags.
 */
export function serviceFilesOf(options: Record<string, unknown>, io: CliIo): ServiceFiles {
  // The configuration the service runs with (env file beneath the environment, then flags), found as every command finds it.
  const { config, configDir, envFile, env, configFile } = loadServiceConfig(options, io);
  const defaultTenants = join(configDir, 'tenants.toml');
  const tenantsFile = config.tenantsFile ?? (existsSync(defaultTenants) ? defaultTenants : null);
  // A key given inline lives in the env file, backed up with it; only an @path is a file of its own.
  const licenceKey = env.SERVICE_LICENSE_PUBLIC_KEY?.trim();
  return {
    dataDir: resolve(config.dataDir),
    compatApiDataDir: resolve(config.compatApiDataDir),
    envFile: envFile.status === 'read' ? envFile.path : null,
    roomDefaults: configFile === null ? null : resolve(configFile),
    tenantsFile: tenantsFile === null ? null : resolve(tenantsFile),
    licencePublicKey: licenceKey?.startsWith('@') ? resolve(licenceKey.slice(1)) : null,
  };
}

/**
 * A PostgreSQL installation's state is in its database, not in files this command could copy
 * consistently: refused, pointing to PostgreSQL's own tools, rather than a backup without the data.
 */
function refuseOnPostgres(options: Record<string, unknown>, io: CliIo): void {
  const location = loadServiceConfig(options, io).config.databaseUrl;
  if (location.kind !== 'postgres') return;
  throw new CliError(
    'refused',
    `this installation keeps its state in PostgreSQL (SERVICE_DATABASE_URL names ${location.host}:${location.port}/${location.database}); meetctl backup copies SQLite files only`,
    `back the database up with PostgreSQL's tools: pg_dump -Fc -n meet_engine -n meet_compat ${location.database} > meet.dump (or a base backup, pg_basebackup), and keep the env file, tenants file and room-defaults.toml beside it (docs/operating.md)`,
  );
}

/** The daemon's backup modules, loaded when a command runs (they open SQLite); their refusals become the CLI's. */
async function withBackupErrors<T>(
  work: (
    backup: typeof import('../daemon/backup.js'),
    restore: typeof import('../daemon/restore.js'),
  ) => Promise<T> | T,
): Promise<T> {
  const [backup, restore, files] = await Promise.all([
    import('../daemon/backup.js'),
    import('../daemon/restore.js'),
    import('../daemon/backup-files.js'),
  ]);
  try {
    return await work(backup, restore);
  } catch (err) {
    if (err instanceof files.BackupError) throw new CliError(err.kind, err.message, err.hint);
    throw err;
  }
}

/** The restored env file names where the data was; a restore elsewhere must say so, or the service would start on the old place. */
function envFileNotes(written: readonly string[], dataDir: string): string[] {
  const notes: string[] = [];
  for (const file of written.filter((f) => f.endsWith('.env'))) {
    const named = parseEnvFile(readIfExists(file) ?? '').SERVICE_DATA_DIR;
    if (named !== undefined && resolve(named) !== resolve(dataDir))
      notes.push(
        `${file} names SERVICE_DATA_DIR=${named}, but the data went to ${dataDir}: change that line before starting the service`,
      );
  }
  return notes;
}

export function backupCommands(program: Command, io: CliIo): void {
  const backup = program
    .command('backup')
    .description(
      'back up the running service: both databases (consistent SQLite snapshots), signing key, installation record, env file, tenants file, room-defaults.toml, licence key; with a manifest',
    )
    .requiredOption(
      '--out <dir>',
      'a new (or empty) directory to write the backup into; created 0700, files 0600: it holds secrets',
    )
    .action(async (options: Record<string, unknown>) => {
      refuseOnPostgres(options, io);
      const files = serviceFilesOf(options, io);
      const out = resolve(String(options.out));
      const manifest = await withBackupErrors((b) =>
        step(io, `backing up ${files.dataDir} into ${out}`, () => b.takeBackup(files, out, new Date())),
      );
      for (const entry of manifest.files) io.out(`${entry.path}  ${entry.bytes} bytes  (${entry.source})\n`);
      io.out(`backup written to ${out} (${manifest.files.length} files, manifest.json last)\n`);
    });
  addConfigOptions(backup, ['dataDir', 'compatApiDataDir', 'tenantsFile']);
  addServiceConfigOptions(backup);

  program
    .command('restore')
    .description(
      'restore a backup into an empty data directory (the service stopped); checks every file against the manifest first',
    )
    .requiredOption('--from <dir>', 'the directory meetctl backup --out wrote')
    .requiredOption('--data-dir <dir>', 'the data directory to restore into (must be empty unless --force)')
    .option('--compat-api-data-dir <dir>', "the meeting API's directory (default <data dir>/compat-api)")
    .option(
      '--config-dir <dir>',
      'also restore the env file, room-defaults.toml, tenants file and licence key into this directory',
    )
    .option('--force', 'restore into a non-empty data directory, replacing the files the backup holds')
    .action(
      async (options: {
        from: string;
        dataDir: string;
        compatApiDataDir?: string;
        configDir?: string;
        force?: boolean;
      }) => {
        const dataDir = resolve(options.dataDir);
        const target = {
          dataDir,
          compatApiDataDir: resolve(options.compatApiDataDir ?? join(dataDir, 'compat-api')),
          configDir: options.configDir === undefined ? null : resolve(options.configDir),
          force: options.force === true,
        };
        const from = resolve(options.from);
        const restored = await withBackupErrors((_, r) =>
          step(io, `restoring ${from} into ${dataDir}`, () => r.restoreBackup(from, target)),
        );
        for (const file of restored.written) io.out(`restored ${file}\n`);
        if (restored.skipped.length > 0)
          io.err(
            `not restored (pass --config-dir to put them back): ${restored.skipped.map((e) => e.path.slice('config/'.length)).join(', ')}\n`,
          );
        for (const note of envFileNotes(restored.written, dataDir)) io.err(`meetctl: warning: ${note}\n`);
        io.out(
          `restored the backup of ${restored.manifest.created_at} (meeting-service ${restored.manifest.product_version}) into ${dataDir}\n`,
        );
      },
    );
}
