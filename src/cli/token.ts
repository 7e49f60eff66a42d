import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/settings.js';
import type { Services } from '../daemon/services.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig, originOf } from './service-config.js';

/**
 * ENOENT only: a data directory under a file (ENOTDIR) or without permission is the machine's
 * problem (exit 69), not a missing database. Not `throwIfNoEntry`: Node 22+ also swallows
 * ENOTDIR there, Node 20 does not.
 */
function databaseExists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/**
 * Opens the service's database, found the way `serve` finds it (the env file included). A
 * database that does not exist is refused unless --init: a token made in a new one would be
 * printed, and then refused by the service, which reads another.
 */
export async function withServices<T>(
  options: Record<string, unknown>,
  io: CliIo,
  work: (services: Services, config: Config) => T | Promise<T>,
): Promise<T> {
  const found = loadServiceConfig(options, io);
  const { config } = found;
  // Loaded here, not at the top: commands that open no database start without SQLite.
  const { databaseFileName, openServices } = await import('../daemon/services.js');
  const { openStoreBundle } = await import('../daemon/store-bundle.js');
  const database = join(resolve(config.dataDir), databaseFileName);
  // On PostgreSQL the database is the configured one; only a SQLite file can be missing by mistake.
  if (config.databaseUrl.kind === 'sqlite' && options.init !== true && !databaseExists(database)) {
    throw new CliError(
      'refused',
      `no database at ${database} (the data directory came from ${originOf('dataDir', found, options, io)})`,
      "name the service's data directory (--data-dir, --env-file or --config-dir, as the service is started), or pass --init to create a new database there",
    );
  }
  const services = await openServices(config, await openStoreBundle(config));
  try {
    return await work(services, config);
  } finally {
    await services.close();
  }
}

export function dataOptions(command: Command): void {
  addConfigOptions(command, ['dataDir']);
  addServiceConfigOptions(command);
  command.option('--init', 'create the database when the data directory has none (a new installation)');
}

export function tokenCommands(program: Command, io: CliIo): void {
  const token = program.command('token').description('manage the access tokens of the rooms API');

  const create = token
    .command('create')
    .description('create a token and print it once; only its hash is kept')
    .requiredOption(
      '--name <name>',
      'name of the token (1-64 of A-Z a-z 0-9 . _ -), recorded as the actor of its calls',
    )
    .action(async (options: Record<string, unknown>) => {
      const issued = await withServices(options, io, (s) => s.accessTokens.create(String(options.name)));
      io.out(`${issued.token}\n`);
      io.err(`Token "${issued.name}" created. It is shown only this once: store it now.\n`);
    });
  dataOptions(create);

  const list = token
    .command('list')
    .description('list tokens: name, creation time, last use (never the token)')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: Record<string, unknown>) => {
      const tokens = await withServices(options, io, (s) => s.accessTokens.list());
      const rows = tokens.map((t) => ({ name: t.name, created_at: t.createdAt, last_used_at: t.lastUsedAt }));
      if (options.json) {
        io.out(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const lines = [
        ['NAME', 'CREATED', 'LAST USED'],
        ...rows.map((r) => [r.name, r.created_at, r.last_used_at ?? 'never']),
      ];
      const widths = [0, 1].map((i) => Math.max(...lines.map((l) => l[i]!.length)));
      io.out(lines.map((l) => `${l[0]!.padEnd(widths[0]!)}  ${l[1]!.padEnd(widths[1]!)}  ${l[2]}`).join('\n') + '\n');
    });
  dataOptions(list);

  const revoke = token
    .command('revoke')
    .description('revoke a token: calls made with it are refused from now on')
    .argument('<name>', 'name of the token')
    .action(async (name: string, options: Record<string, unknown>) => {
      await withServices(options, io, (s) => s.accessTokens.revoke(name));
      io.out(`revoked ${name}\n`);
    });
  dataOptions(revoke);
}
