import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { minSecretBytes, type TenantSnapshot } from '../../compat/tenants/parse.js';
import { holderOf, valueProblem, type PrimaryCredentials } from '../../ops/tenants-file.js';
import { ownerToKeep, type TenantsFile } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { loadServiceConfig } from '../service-config.js';

/**
 * Where `meetctl tenant` finds the tenants file and the primary tenant's credentials, the way
 * the installed service will (service-config.ts: room-defaults.toml < the env file install
 * wrote < environment < flags), then `<config dir>/tenants.toml`.
 */
export interface TenantContext extends TenantsFile {
  readonly envFile: string;
  /** The file is only the default: the service, which reads an explicitly set SERVICE_TENANTS_FILE only, does not read it. */
  readonly unnamed: boolean;
}

const defaultLockWaitMs = 10_000;

function lockWait(io: CliIo): number {
  const raw = io.env.MEET_LOCK_WAIT_MS;
  if (raw === undefined || raw === '') return defaultLockWaitMs;
  if (!/^\d{1,7}$/.test(raw))
    throw new CliError(
      'config',
      `MEET_LOCK_WAIT_MS must be a whole number of milliseconds (0 to 9999999), got ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

const nonEmpty = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim() === '' ? null : value.trim();

export function tenantContext(options: Record<string, unknown>, io: CliIo): TenantContext {
  // Without the env file the primary tenant's secret cannot be compared: an unreadable one is refused, never skipped.
  const { config, configDir, envFile: envState, envFileValues: values } = loadServiceConfig(options, io);
  const envFile = envState.path;
  const primary: PrimaryCredentials = {
    apiSecret: config.compatApiSharedSecret ?? nonEmpty(values.COMPAT_API_SHARED_SECRET),
    appId: nonEmpty(config.jitsiAppId) ?? nonEmpty(values.COMPAT_JITSI_APP_ID),
    appSecret: config.jitsiAppSecret ?? nonEmpty(values.COMPAT_JITSI_APP_SECRET),
  };
  const named = config.tenantsFile ?? nonEmpty(values.SERVICE_TENANTS_FILE);
  const file = resolve(named ?? join(configDir, 'tenants.toml'));
  return {
    file,
    primary,
    envFile,
    unnamed: named === null,
    lockWaitMs: lockWait(io),
    owner: ownerToKeep(file, envFile),
  };
}

/** 32 random bytes, base64url: a meeting-API or app secret. */
export function generatedSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** `<id>-<8 hex>`: readable, and not one any tenant (the primary one included) uses, as a credential or as its id. */
export function generatedAppId(id: string, snapshot: TenantSnapshot, primary: PrimaryCredentials): string {
  for (;;) {
    const candidate = `${id}-${randomBytes(4).toString('hex')}`;
    if (holderOf(candidate, snapshot, primary) === null && !snapshot.byId.has(candidate)) return candidate;
  }
}

/** A value given on the command line or in a file, checked; the message names the flag, never the value. */
export function checkedValue(value: string, flag: string): string {
  const problem = valueProblem(value);
  if (problem !== null)
    throw new CliError(
      'usage',
      `${flag} ${problem}`,
      'secrets are written as TOML strings: use printable characters without quotes or backslashes (or let --generate make one)',
    );
  return value;
}

/** The content of --api-secret-file / --app-secret-file (`-` is standard input), its final newline dropped. */
export function secretFromFile(path: string, flag: string): string {
  let text: string;
  try {
    if (path !== '-' && statSync(path).size > 65_536)
      throw new CliError('usage', `${flag} ${path} is larger than 64 KiB; it should hold one secret`);
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(
      'config',
      `${flag} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  return text.replace(/\r?\n$/, '');
}

/**
 * A given secret, refused under the floor `meetctl doctor` fails (one number for both, so what
 * add accepts doctor passes); the message names the flag and the length, never the value.
 */
export function longEnough(value: string, flag: string): string {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes < minSecretBytes)
    throw new CliError(
      'usage',
      `${flag} holds ${bytes} bytes; a secret needs at least ${minSecretBytes} (meetctl doctor fails a shorter one)`,
      `let meetctl generate one (--generate, --generate-app), or give at least ${minSecretBytes} random bytes, e.g. openssl rand -base64 32`,
    );
  return value;
}

/** How long a rotated-out secret keeps working by default: a working day for someone to paste the new one. */
export const defaultGraceMs = 24 * 3_600_000;
/** The longest grace: a leaked secret that was rotated out must not go on working for months. */
export const maxGraceMs = 30 * 24 * 3_600_000;
const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 24 * 3_600_000 };

/** `--grace`: `0`, or whole amounts with units such as `90s`, `30m`, `24h`, `7d`, `1h30m`; at most 30 days. */
export function graceMs(raw: string): number {
  const text = raw.trim();
  if (text === '0') return 0;
  if (!/^(\d{1,6}[smhd])+$/.test(text))
    throw new CliError(
      'usage',
      `--grace must be 0 or a duration such as 90s, 30m, 24h or 7d (got ${JSON.stringify(raw.slice(0, 40))})`,
    );
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([smhd])/g)) ms += Number(amount) * unitMs[unit!]!;
  if (ms > maxGraceMs)
    throw new CliError('usage', `--grace is at most 30d (a rotated-out secret must not work for months), got ${text}`);
  return ms;
}

/** Characters a tenant id may hold that some platforms or host names change (case, dots, dashes, underscores). */
export function idWarning(id: string): string {
  if (/^[a-z0-9]+$/.test(id)) return '';
  return `warning: tenant id ${id} holds characters other than a-z and 0-9; some platforms lower-case or strip them in the /confapi/${id}/ path, and a host name (COMPAT_TENANT_HOST_SUFFIX) is lower-case: an id of a-z and 0-9 only is safest\n`;
}

/** Said after a change to a file the service is not told to read. */
export function unnamedWarning(context: TenantContext): string {
  return context.unnamed
    ? `warning: SERVICE_TENANTS_FILE is set neither in the environment nor in ${context.envFile}, and the service reads a tenants file only when it is; add SERVICE_TENANTS_FILE=${context.file} to ${context.envFile} (\`meetctl install\` does) and restart the service once\n`
    : '';
}
