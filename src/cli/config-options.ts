import { Option, type Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { settings, type Config, type SettingKey } from '../config/settings.js';
import type { CliIo } from './io.js';

type Row = (typeof settings)[SettingKey];

/** commander's camel-cased attribute name for a flag such as --compat-http-addr. */
export function attributeOf(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Adds --config and one flag per setting of the table (secrets excepted), help naming the variable. */
export function addConfigOptions(
  command: Command,
  keys: readonly SettingKey[] = Object.keys(settings) as SettingKey[],
): Command {
  command.addOption(
    new Option(
      '--config <file>',
      'defaults file (TOML) to read instead of the packaged room-defaults.toml [SERVICE_CONFIG_FILE]',
    ),
  );
  for (const key of keys) {
    const row: Row = settings[key];
    if (row.flag === null) continue;
    const fallback = typeof row.fallback === 'string' && row.fallback !== '' ? ` (default ${row.fallback})` : '';
    command.addOption(new Option(`${row.flag} <value>`, `${row.description} [${row.env}]${fallback}`));
  }
  return command;
}

/** Loads the config the way the daemon will: defaults < file < environment < these flags. */
export function configFromOptions(options: Record<string, unknown>, io: CliIo): Config {
  const flags: Partial<Record<SettingKey, string>> = {};
  for (const [key, row] of Object.entries(settings) as [SettingKey, Row][]) {
    const value = row.flag ? options[attributeOf(row.flag)] : undefined;
    if (typeof value === 'string') flags[key] = value;
  }
  const configFile = typeof options.config === 'string' ? options.config : null;
  return loadConfig({ env: io.env, flags, configFile });
}
