import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { packagedDefaultsFile } from '../config/load.js';
import { InvalidValue } from '../config/parsers.js';
import { settings, type Config } from '../config/settings.js';
import type { EnvFileState } from '../ops/doctor/check.js';
import { readEnvFile } from '../ops/doctor/env-file.js';
import { inRoomDefaults } from '../ops/given-values.js';
import { readIfExists } from '../platform/atomic-file.js';
import { attributeOf, configFromOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';

/**
 * The one way every meetctl command (serve included) finds the service's configuration, so a
 * command never works on other files or ports than the daemon systemd starts from the same
 * env file. In rising precedence:
 *
 *   built-in defaults < room-defaults.toml < the env file < the environment < the flags
 *
 * room-defaults.toml: --config, else SERVICE_CONFIG_FILE (env file or environment), else
 * `<config dir>/room-defaults.toml` when it exists, else the packaged one. The env file:
 * --env-file, else `<config dir>/meet.env` when it exists. The config directory: --config-dir,
 * else SERVICE_CONFIG_DIR, else /etc/meet.
 */

export const envFileName = 'meet.env';
export const roomDefaultsFileName = 'room-defaults.toml';

/** Where the configuration came from, before it is validated (doctor reports on these even when it is invalid). */
export interface ServiceSources {
  readonly configDir: string;
  readonly envFile: EnvFileState;
  /** The env file's values (empty when absent or unreadable). */
  readonly envFileValues: Readonly<Record<string, string>>;
  /** The env file's values beneath this process's environment: what the daemon sees under systemd. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The defaults file read, or null for the packaged one. */
  readonly configFile: string | null;
}

export interface ServiceConfig extends ServiceSources {
  readonly config: Config;
}

export interface SourceRules {
  /**
   * What to do when the default env file exists but cannot be read: `fail` (the command would
   * otherwise act on other data or ports than the service) or `ignore` (doctor reports it;
   * serve under systemd already has the file's values in its environment).
   */
  readonly unreadableDefault?: 'fail' | 'ignore';
  /** Never refuse an env file, even a named one that is missing: the caller reports `envFile`'s state itself (doctor). */
  readonly reportOnly?: boolean;
  /** Values beneath the env file (install's /var/lib/meet for a data directory nothing names). */
  readonly beneath?: Readonly<Record<string, string>>;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** Adds --env-file and --config-dir, each unless the command has it already. */
export function addServiceConfigOptions(command: Command): Command {
  if (!command.options.some((o) => o.long === settings.configDir.flag)) {
    command.addOption(
      new Option(
        `${settings.configDir.flag} <dir>`,
        `where meet.env and room-defaults.toml are [${settings.configDir.env}] (default /etc/meet)`,
      ),
    );
  }
  if (command.options.some((o) => o.long === '--env-file')) return command;
  return command.addOption(
    new Option(
      '--env-file <path>',
      'environment file of the service, read beneath this environment (default <config dir>/meet.env, when it exists)',
    ),
  );
}

/** --config-dir, else SERVICE_CONFIG_DIR, else /etc/meet, as an absolute path. */
export function configDirOf(options: Record<string, unknown>, io: CliIo): string {
  // A blank --config-dir is refused by the parser below, not taken for "unset" (it would silently mean /etc/meet).
  const raw =
    typeof options.configDir === 'string'
      ? options.configDir
      : (text(io.env[settings.configDir.env]) ?? settings.configDir.fallback);
  try {
    return resolve(settings.configDir.parse(raw));
  } catch (err) {
    if (err instanceof InvalidValue) throw new CliError('usage', `--config-dir ${err.message}`);
    throw err;
  }
}

/** Finds the config directory, the env file and the defaults file; throws only on a named file that is missing, or as `rules` say. */
export function serviceSources(options: Record<string, unknown>, io: CliIo, rules: SourceRules = {}): ServiceSources {
  const configDir = configDirOf(options, io);
  if (options.envFile !== undefined && text(options.envFile) === null)
    throw new CliError('usage', '--env-file must be a non-empty path');
  const named = text(options.envFile);
  const { state, values } = readEnvFile(resolve(named ?? join(configDir, envFileName)));
  if (named !== null && state.status !== 'read' && rules.reportOnly !== true)
    throw new CliError(
      'config',
      `--env-file ${state.path} cannot be read (${state.error ?? 'it does not exist'})`,
      'name the env file install wrote',
    );
  if (state.status === 'unreadable' && (rules.unreadableDefault ?? 'fail') === 'fail' && rules.reportOnly !== true)
    throw new CliError(
      'environment',
      `cannot read the service's env file ${state.path} (${state.error ?? 'unknown error'}); without it this command would not see the service's settings`,
      "run meetctl as root or as the service's user, or name the file with --env-file (or its directory with --config-dir)",
    );
  const env = { ...rules.beneath, ...values, ...io.env };
  const installed = join(configDir, roomDefaultsFileName);
  const configFile =
    text(options.config) ?? text(env.SERVICE_CONFIG_FILE) ?? (existsSync(installed) ? installed : null);
  return { configDir, envFile: state, envFileValues: values, env, configFile };
}

/** The validated configuration from `serviceSources`; an invalid value is a ConfigError (exit 2) naming the variable. */
export function loadServiceConfig(options: Record<string, unknown>, io: CliIo, rules: SourceRules = {}): ServiceConfig {
  const sources = serviceSources(options, io, rules);
  return { ...sources, config: configOf(sources, options, io) };
}

/** Loads the configuration from sources already found (doctor catches the error itself). */
export function configOf(sources: ServiceSources, options: Record<string, unknown>, io: CliIo): Config {
  return configFromOptions({ ...options, config: sources.configFile ?? undefined }, { ...io, env: sources.env });
}

function readable(file: string): string | null {
  try {
    return readIfExists(file);
  } catch {
    return null; // only a message depends on it
  }
}

/** Which source named a setting's value, for a message the operator can act on. */
export function originOf(
  key: keyof typeof settings,
  sources: ServiceSources,
  options: Record<string, unknown>,
  io: CliIo,
): string {
  const row = settings[key];
  if (row.flag !== null && text(options[attributeOf(row.flag)]) !== null) return row.flag;
  if (text(io.env[row.env]) !== null) return `${row.env} in the environment`;
  if (text(sources.envFileValues[row.env]) !== null) return `${row.env} in ${sources.envFile.path}`;
  const file = sources.configFile ?? packagedDefaultsFile;
  if (inRoomDefaults(readable(file), row.toml)) return `${row.toml.join('.')} in ${file}`;
  return `the built-in default (no ${row.env} in ${sources.envFile.path}, the environment or the flags)`;
}
