import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { settings, type Config, type SettingKey } from '../config/settings.js';
import { readIfExists } from '../platform/atomic-file.js';
import { defaultPaths, type InstallPaths } from '../ops/compat-install.js';
import { parseEnvFile } from '../ops/env-file.js';
import { configFromOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { configDirOf } from './service-config.js';

/**
 * Where install, uninstall and `license show` look: the config directory, the env file the
 * daemon will be started with, and the data directory that env file (or the flags) names.
 * The config is loaded the way the daemon will see it under systemd or compose: the env
 * file's values, then this process's environment, then the flags.
 */

/** Under systemd the data lives in the unit's StateDirectory; install uses it when nothing else names one. */
export const installDataDirDefault = '/var/lib/meet';

export interface InstallContext {
  readonly paths: InstallPaths;
  readonly config: Config;
  readonly existingEnv: string | null;
  readonly existingEnvValues: Readonly<Record<string, string>>;
  readonly existingRoomDefaults: string | null;
}

/** Adds the flag of a settings row (its description and variable from the table). */
export function addSettingOption(command: Command, key: SettingKey): Command {
  const row = settings[key];
  if (row.flag === null) throw new Error(`${key} has no flag`);
  const fallback = typeof row.fallback === 'string' && row.fallback !== '' ? ` (default ${row.fallback})` : '';
  return command.addOption(new Option(`${row.flag} <value>`, `${row.description} [${row.env}]${fallback}`));
}

/** Adds --data-dir, --config-dir and --env-file. */
export function addLocationOptions(command: Command): Command {
  command.addOption(
    new Option(
      `${settings.dataDir.flag} <value>`,
      `${settings.dataDir.description} [${settings.dataDir.env}] (default: the env file's ${settings.dataDir.env}, else ${installDataDirDefault})`,
    ),
  );
  addSettingOption(command, 'configDir');
  return command.option('--env-file <path>', 'environment file of the service (default <config dir>/meet.env)');
}

/** A file meetctl reads, or null when absent; a directory or an unreadable file names its flag. */
function readOperatorFile(file: string, flag: string): string | null {
  try {
    if (statSync(file).isDirectory()) throw new CliError('config', `${flag} ${file} is a directory, not a file`);
  } catch (err) {
    if (err instanceof CliError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(
      'environment',
      `${flag} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  try {
    return readIfExists(file);
  } catch (err) {
    throw new CliError(
      'environment',
      `${flag} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

export function installContext(options: Record<string, unknown>, io: CliIo): InstallContext {
  // The same directory every other command reads the service's files from (service-config.ts).
  const configDir = configDirOf(options, io);
  const envFileFlag = typeof options.envFile === 'string' ? options.envFile : null;
  if (envFileFlag !== null && envFileFlag.trim() === '')
    throw new CliError('usage', '--env-file must be a non-empty path');
  const envFile = resolve(envFileFlag ?? join(configDir, 'meet.env'));
  const existingEnv = readOperatorFile(envFile, '--env-file');
  const existingEnvValues = existingEnv === null ? {} : parseEnvFile(existingEnv);
  const roomDefaultsFile = join(configDir, 'room-defaults.toml');
  const existingRoomDefaults = readOperatorFile(roomDefaultsFile, 'room-defaults.toml in --config-dir');

  const env: Record<string, string | undefined> = {
    [settings.dataDir.env]: installDataDirDefault,
    ...existingEnvValues,
    ...io.env,
  };
  // The file install edits is the one the daemon reads; another named elsewhere would be ignored by it.
  delete env.SERVICE_CONFIG_FILE;
  const config = configFromOptions(
    { ...options, config: existingRoomDefaults !== null ? roomDefaultsFile : undefined },
    { ...io, env },
  );
  const paths = defaultPaths(
    configDir,
    resolve(config.dataDir),
    envFile,
    config.tenantsFile === null ? null : resolve(config.tenantsFile),
  );
  return { paths, config, existingEnv, existingEnvValues, existingRoomDefaults };
}
