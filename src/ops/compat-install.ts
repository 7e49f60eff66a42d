import { statSync } from 'node:fs';
import { join } from 'node:path';
import { settings, type Config, type InstallSpec, type SettingKey } from '../config/settings.js';
import { installationFile, installationText } from '../licence/installation.js';
import type { Licence } from '../licence/server-key.js';
import { setEnvValues, unsetEnvValues } from './env-edit.js';
import type { PlannedFile } from './planned-files.js';
import { renderTemplate } from './template.js';
import { removeSectionKeys, setSectionKeys, type TomlScalar } from './toml-section.js';

/**
 * What `meetctl install compat` and `uninstall compat` leave on disk, computed from what is
 * there now and the answers, before anything is written. The settings table says which
 * settings are the module's (their `install` descriptor), where each goes, which are
 * generated and which are asked.
 */

export const compatModule = 'compat';
export const compatSection = ['modules', 'compat'] as const;
/** A comment after each line install writes in room-defaults.toml, so the operator sees who set it. */
export const roomDefaultsMarker = '# set by meetctl install compat';

export interface InstallRow {
  readonly key: SettingKey;
  readonly env: string;
  readonly tomlKey: string;
  readonly flag: string | null;
  readonly install: InstallSpec;
}

/** The module's rows of the settings table, in table order. */
export function installRows(module: string): InstallRow[] {
  return (Object.entries(settings) as [SettingKey, (typeof settings)[SettingKey]][]).flatMap(([key, row]) => {
    const install = (row as { install?: InstallSpec }).install;
    return install && install.module === module
      ? [{ key, env: row.env, tomlKey: row.toml[row.toml.length - 1]!, flag: row.flag, install }]
      : [];
  });
}

export interface InstallPaths {
  readonly configDir: string;
  readonly envFile: string;
  readonly roomDefaultsFile: string;
  readonly tenantsFile: string;
  readonly dataDir: string;
}

export type ValueSource = 'generated' | 'kept' | 'environment' | 'answered';

export interface ResolvedValue {
  readonly value: string;
  readonly source: ValueSource;
}

/**
 * The env-file value of each generated setting: given in the environment, else kept from
 * the existing env file (a second install keeps the same bytes), else generated.
 */
export function resolveGenerated(
  rows: readonly InstallRow[],
  given: Readonly<Record<string, string | undefined>>,
  existing: Readonly<Record<string, string>>,
  random: (bytes: number) => string,
): Map<string, ResolvedValue> {
  const values = new Map<string, ResolvedValue>();
  for (const row of rows) {
    const bytes = row.install.generateBytes;
    if (row.install.file !== 'env' || bytes === undefined) continue;
    const fromEnv = given[row.env];
    const kept = existing[row.env];
    if (fromEnv !== undefined && fromEnv !== '') values.set(row.env, { value: fromEnv, source: 'environment' });
    else if (kept !== undefined && kept !== '') values.set(row.env, { value: kept, source: 'kept' });
    else values.set(row.env, { value: random(bytes), source: 'generated' });
  }
  return values;
}

/** The paths the daemon must find under systemd or compose, which no setting flag gives it there. */
function pathValues(paths: InstallPaths): Record<string, string> {
  return {
    [settings.dataDir.env]: paths.dataDir,
    SERVICE_CONFIG_FILE: paths.roomDefaultsFile,
    [settings.tenantsFile.env]: paths.tenantsFile,
  };
}

/**
 * The env file: rendered from the template the first time, edited in place afterwards.
 * `listeners` (the listen addresses install decided) fill the template's empty examples, so
 * they are set where the operator looks for them and need no placeholder when not written.
 */
export function envFileText(
  existing: string | null,
  template: string,
  values: Readonly<Record<string, string>>,
  paths: InstallPaths,
  listeners: Readonly<Record<string, string>> = {},
): string {
  const all = { ...pathValues(paths), ...values };
  if (existing === null) {
    const placeholders = Object.fromEntries(Object.entries(all).map(([name, value]) => [name.toLowerCase(), value]));
    // The template's own check (every placeholder filled) does not see what setEnvValues refuses; run both.
    setEnvValues('', all);
    return setEnvValues(renderTemplate(template, placeholders, 'templates/meet.env'), listeners);
  }
  return setEnvValues(existing, { ...all, ...listeners });
}

/** The TOML value of a room-defaults setting as the config resolved it (flag, environment, the file, the default). */
export function roomDefaultsValues(rows: readonly InstallRow[], config: Config): Record<string, TomlScalar> {
  const values: Record<string, TomlScalar> = {};
  for (const row of rows) {
    if (row.install.file !== 'room-defaults') continue;
    const value = config[row.key];
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number')
      throw new Error(`${row.env}: install writes scalars only`);
    values[row.tomlKey] = value;
  }
  return values;
}

function modeOr(file: string, fallback: number): number {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return fallback;
  }
}

export interface CompatInstallInput {
  readonly paths: InstallPaths;
  readonly key: string;
  readonly licence: Licence;
  /** Env-file values of the module's rows (secrets and answers), by variable. */
  readonly envValues: Readonly<Record<string, string>>;
  /** Values install decided that fill the template's empty examples (listen addresses, public address, licence key), by variable. */
  readonly listenerValues: Readonly<Record<string, string>>;
  readonly roomDefaults: Readonly<Record<string, TomlScalar>>;
  readonly existingEnv: string | null;
  readonly existingRoomDefaults: string | null;
  readonly envTemplate: string;
  readonly packagedRoomDefaults: string;
}

/**
 * The files of an installation, the record last: a failure part way leaves the module
 * uninstalled (serve checks the record), never installed with half its configuration.
 */
export function compatInstallFiles(input: CompatInstallInput): PlannedFile[] {
  const { paths } = input;
  const roomDefaults = setSectionKeys(
    input.existingRoomDefaults ?? input.packagedRoomDefaults,
    compatSection,
    input.roomDefaults,
    paths.roomDefaultsFile,
    roomDefaultsMarker,
  );
  return [
    { path: paths.roomDefaultsFile, content: roomDefaults, mode: modeOr(paths.roomDefaultsFile, 0o644) },
    {
      path: paths.envFile,
      content: envFileText(input.existingEnv, input.envTemplate, input.envValues, paths, input.listenerValues),
      mode: 0o600,
      enforceMode: true,
    },
    {
      path: installationFile(paths.dataDir, compatModule),
      content: installationText(compatModule, input.key, input.licence),
      mode: 0o600,
      enforceMode: true,
      dirMode: 0o700,
    },
  ];
}

export interface CompatUninstallInput {
  readonly paths: InstallPaths;
  readonly existingEnv: string | null;
  readonly existingRoomDefaults: string | null;
}

/**
 * The reverse: the record goes first (serve stops starting the module even if what follows
 * fails), then the module's env lines become empty examples and its room-defaults keys go.
 * The data (databases, compat-api directory) and the engine's lines stay.
 */
export function compatUninstallFiles(input: CompatUninstallInput): PlannedFile[] {
  const rows = installRows(compatModule);
  const { paths } = input;
  const files: PlannedFile[] = [{ path: installationFile(paths.dataDir, compatModule), content: null, mode: 0o600 }];
  if (input.existingEnv !== null) {
    // The public address and the licence authority's key are the service's, not the module's: they stay.
    const names = rows
      .filter((row) => row.install.file === 'env' && !row.install.ask && !row.install.recordInForce)
      .map((row) => row.env);
    files.push({
      path: paths.envFile,
      content: unsetEnvValues(input.existingEnv, names),
      mode: 0o600,
      enforceMode: true,
    });
  }
  if (input.existingRoomDefaults !== null) {
    const keys = rows.filter((row) => row.install.file === 'room-defaults').map((row) => row.tomlKey);
    files.push({
      path: paths.roomDefaultsFile,
      content: removeSectionKeys(input.existingRoomDefaults, compatSection, keys, paths.roomDefaultsFile),
      mode: modeOr(paths.roomDefaultsFile, 0o644),
    });
  }
  return files;
}

export function defaultPaths(
  configDir: string,
  dataDir: string,
  envFile: string | null,
  tenantsFile: string | null,
): InstallPaths {
  return {
    configDir,
    dataDir,
    envFile: envFile ?? join(configDir, 'meet.env'),
    roomDefaultsFile: join(configDir, 'room-defaults.toml'),
    tenantsFile: tenantsFile ?? join(configDir, 'tenants.toml'),
  };
}
