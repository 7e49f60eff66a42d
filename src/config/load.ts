import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseToml, TomlError } from 'smol-toml';
import { clusterProblems, type NatsLocation } from './cluster-settings.js';
import { ConfigError } from './config-error.js';
import type { DatabaseLocation } from './database-url.js';
import { iceProblems } from './ice-servers.js';
import { janusProblems } from './janus-settings.js';
import { metricsProblems } from './loopback.js';
import { oidcProblems } from './oidc-settings.js';
import { InvalidValue, type ListenAddress } from './parsers.js';
import { settings, type Config, type SettingKey, type Setting } from './settings.js';

/** The defaults file shipped at the package root, used when it exists and no other is named. */
export const packagedDefaultsFile = fileURLToPath(new URL('../../room-defaults.toml', import.meta.url));

export interface ConfigSources {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Raw flag values keyed by setting, as commander hands them over. */
  readonly flags?: Readonly<Partial<Record<SettingKey, string>>>;
  /** An explicitly named defaults file: it must exist. */
  readonly configFile?: string | null;
}

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function readDefaultsFile(file: string): Table {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseToml(text, { unsafeKeyBehaviour: 'throw' } as Parameters<typeof parseToml>[1]);
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0];
      throw new ConfigError(
        `${file}:${err.line}:${err.column}: malformed TOML at line ${err.line}, column ${err.column}: ${reason}`,
      );
    }
    throw new ConfigError(`${file}: ${(err as Error).message}`);
  }
}

function lookup(table: Table, path: readonly string[]): unknown {
  let node: unknown = table;
  for (const key of path) {
    if (!isTable(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Keys the file holds that no setting reads: almost always a typo the operator wants to hear about. */
function unknownKeys(table: Table, known: readonly (readonly string[])[], prefix: string[] = []): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    const path = [...prefix, key];
    const isKnownLeaf = known.some((k) => k.length === path.length && k.every((part, i) => part === path[i]));
    const isKnownBranch = known.some((k) => k.length > path.length && path.every((part, i) => part === k[i]));
    if (isKnownLeaf) continue;
    if (isKnownBranch && isTable(value)) found.push(...unknownKeys(value, known, path));
    else found.push(path.join('.'));
  }
  return found;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Resolves every setting: built-in default < defaults file < environment < flags.
 * Reports every invalid value at once, each naming its variable, and returns a frozen config.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const flags = sources.flags ?? {};
  const explicitFile = sources.configFile ?? env.SERVICE_CONFIG_FILE ?? null;
  const file = explicitFile ?? (existsSync(packagedDefaultsFile) ? packagedDefaultsFile : null);
  const table = file ? readDefaultsFile(file) : {};

  const rows = Object.entries(settings) as [SettingKey, Setting<unknown>][];
  const problems: string[] = [];
  const unknown = unknownKeys(
    table,
    rows.map(([, row]) => row.toml),
  );
  for (const key of unknown) problems.push(`${file}: unknown key ${key}`);

  const resolved: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, row] of rows) {
    const fromEnv = env[row.env];
    const fromFile = lookup(table, row.toml);
    let raw: unknown;
    let origin: string;
    if (flags[key] !== undefined) {
      [raw, origin] = [flags[key], `flag ${row.flag}`];
    } else if (fromEnv !== undefined && (fromEnv !== '' || row.secret)) {
      [raw, origin] = [fromEnv, 'environment'];
    } else if (fromFile !== undefined) {
      [raw, origin] = [fromFile, `${file} ${row.toml.join('.')}`];
    } else {
      raw = typeof row.fallback === 'function' ? row.fallback(resolved as Partial<Config>) : row.fallback;
      origin = 'default';
    }
    if (raw === null) {
      resolved[key] = null;
      continue;
    }
    try {
      resolved[key] = row.parse(raw);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      problems.push(`${row.env} ${err.message}${origin === 'environment' ? '' : ` [from ${origin}]`}`);
    }
  }
  if (problems.length === 0)
    problems.push(...iceProblems(resolved.iceServers as string[], resolved.turnSecret as string | null));
  if (problems.length === 0)
    problems.push(
      ...metricsProblems(resolved.metricsAddr as ListenAddress | null, resolved.metricsAllowRemote as boolean),
    );
  if (problems.length === 0)
    problems.push(
      ...oidcProblems(
        resolved.oidcIssuer as string | null,
        resolved.oidcClientId as string | null,
        resolved.oidcClientSecret as string | null,
      ),
    );
  if (problems.length === 0)
    problems.push(
      ...clusterProblems(resolved.natsUrl as NatsLocation | null, resolved.databaseUrl as DatabaseLocation),
    );
  if (problems.length === 0)
    problems.push(
      ...janusProblems(
        resolved.janusUrls as string[] | null,
        resolved.janusUrl as string | null,
        resolved.janusApiSecret as string | null,
        resolved.janusRoomAdminKey as string | null,
      ),
    );
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return deepFreeze(resolved as unknown as Config);
}

/** A copy safe to print or log: every secret that is set shows as ***. */
export function maskedConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, row] of Object.entries(settings) as [SettingKey, Setting<unknown>][]) {
    out[row.env] = row.secret && config[key] !== null ? '***' : config[key];
  }
  return out;
}
