import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlDate, TomlError } from 'smol-toml';

// Reading and validating only, no watcher: meetctl's commands (ops/, cli/) import this file, and a
// `meetctl doctor` or `tenant add` must not load chokidar (watch.ts), which only the daemon needs.

/**
 * The tenant registry (SERVICE_TENANTS_FILE), TOML:
 *
 *   [tenants.acme]                 # tenant id: 1-64 of A-Z a-z 0-9 . _ -
 *   api_secret = "…"               # meeting-API (checksum) secret; optional
 *   app_id = "acme-app"            # embed gateway application id (JWT iss); optional
 *   app_secret = "…"               # embed gateway HS256 secret (32 bytes or more); required with app_id
 *   embed_origins = ["https://…"]  # origins that may frame its gateway pages; optional (default: any)
 *   previous_api_secret = "…"      # the secret `meetctl tenant rotate` replaced, still valid until:
 *   previous_api_secret_until = 2026-11-28T09:25:00Z
 *   previous_app_secret = "…"      # the same for the app secret
 *   previous_app_secret_until = 2026-11-28T09:25:00Z
 *   authenticated_guest = true     # meeting API: viewers of ASK_MODERATOR meetings wait (default: COMPAT_AUTHENTICATED_GUEST)
 *
 * The primary tenant (`primary`) is COMPAT_API_SHARED_SECRET and is never listed in the file.
 * A registry is refused as a whole when two tenants (the primary one included) share a
 * meeting-API secret or an app id: a checksum must name exactly one owner; and when one
 * tenant's app id is another's id (`pathClash`): a gateway path must name exactly one owner.
 */
export interface Tenant {
  readonly id: string;
  readonly apiSecret: string | null;
  readonly appId: string | null;
  readonly appSecret: string | null;
  /** Origins that may frame this tenant's gateway pages; absent: any (its token proves the app embeds it). */
  readonly embedOrigins?: readonly string[];
  /** The meeting-API secret a rotation replaced, accepted beside the current one until its end. */
  readonly previousApiSecret?: PreviousSecret;
  /** The app secret a rotation replaced, accepted beside the current one until its end. */
  readonly previousAppSecret?: PreviousSecret;
  /** Its own COMPAT_AUTHENTICATED_GUEST (the file's `authenticated_guest`); absent: the setting's. */
  readonly authenticatedGuest?: boolean;
}

/**
 * A rotated-out secret in its grace: the platform keeps working until someone pastes the new
 * one. The end is a time in the file, not a timer, so it survives restarts and ends without
 * a reload (the registry compares it with its clock on every use).
 */
export interface PreviousSecret {
  readonly secret: string;
  /** Milliseconds since the epoch; accepted while now is before it. */
  readonly until: number;
}

/** An immutable snapshot: replaced as a whole on reload, never edited. */
export interface TenantSnapshot {
  readonly tenants: readonly Tenant[];
  readonly byId: ReadonlyMap<string, Tenant>;
  /** Tenants with a meeting-API secret, the primary tenant first. */
  readonly apiTenants: readonly Tenant[];
  /** Tenants with a gateway pair by app id: a token's `iss` finds its secret in one lookup. */
  readonly byAppId: ReadonlyMap<string, Tenant>;
}

export const primaryTenantId = 'primary';

/** 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit. */
export const tenantIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const knownKeys = new Set([
  'api_secret',
  'app_id',
  'app_secret',
  'embed_origins',
  'previous_api_secret',
  'previous_api_secret_until',
  'previous_app_secret',
  'previous_app_secret_until',
  'authenticated_guest',
]);

/**
 * The one floor for every secret, in bytes: `meetctl tenant add` refuses a shorter one and
 * `meetctl doctor` fails it, so what add accepts doctor passes. 32 bytes is what meetctl
 * generates (256 bits); an HS256 secret shorter than the hash can be brute-forced offline from
 * one captured token (RFC 7518 §3.2), and a checksum secret from one captured call.
 */
export const minSecretBytes = 32;

/** The registry refuses a shorter app secret (HS256) at start and at reload. */
export const minAppSecretBytes = minSecretBytes;

/** A TOML offset date-time (`2026-11-28T09:25:00Z`): a local one would end at another hour on another machine. */
function untilValue(value: unknown, where: string): number {
  if (!(value instanceof TomlDate) || !value.isDateTime() || value.isLocal() || Number.isNaN(value.getTime()))
    throw new RegistryError(`${where} must be a date-time with its offset, such as 2026-11-28T09:25:00Z`);
  return value.getTime();
}

/** A rotated-out secret and its end, which go together and only beside a current secret of the same kind. */
function previousValue(
  entry: Record<string, unknown>,
  id: string,
  kind: 'api' | 'app',
  current: string | null,
): PreviousSecret | null {
  const key = `previous_${kind}_secret`;
  const where = `tenants.${id}.${key}`;
  if (entry[key] === undefined && entry[`${key}_until`] === undefined) return null;
  if (entry[key] === undefined || entry[`${key}_until`] === undefined)
    throw new RegistryError(`tenants.${id}: ${key} and ${key}_until go together`);
  if (current === null) throw new RegistryError(`tenants.${id}: ${key} needs a current ${kind}_secret`);
  const secret = kind === 'app' ? appSecretValue(entry[key], where) : secretValue(entry[key], where);
  if (secret === current) throw new RegistryError(`${where} is the current ${kind}_secret; a rotation makes a new one`);
  return { secret, until: untilValue(entry[`${key}_until`], `${where}_until`) };
}

/** An http(s) origin, as a frame-ancestors source: no path, nothing that could end the directive. */
const originPattern = /^https?:\/\/[A-Za-z0-9.*-]+(:\d{1,5})?$/;

/** A registry that cannot be used; `line` and `column` are set for a TOML syntax error. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    message: string,
    readonly line: number | null = null,
    readonly column: number | null = null,
  ) {
    super(message);
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function secretValue(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new RegistryError(`${where} must be a non-empty string`);
  if (value !== value.trim()) throw new RegistryError(`${where} must not start or end with white space`);
  return value;
}

function appSecretValue(value: unknown, where: string): string {
  const secret = secretValue(value, where);
  if (Buffer.byteLength(secret, 'utf8') < minAppSecretBytes) {
    throw new RegistryError(
      `${where} must hold at least ${minAppSecretBytes} bytes (HS256 with a shorter secret can be guessed offline)`,
    );
  }
  return secret;
}

function originsValue(value: unknown, where: string): readonly string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 32)
    throw new RegistryError(`${where} must be a list of 1 to 32 origins such as ["https://app.example.org"]`);
  for (const origin of value) {
    if (typeof origin !== 'string' || !originPattern.test(origin)) {
      throw new RegistryError(
        `${where} must list origins such as "https://app.example.org" (got ${JSON.stringify(origin)})`,
      );
    }
  }
  return Object.freeze([...(value as string[])]);
}

/**
 * Why a gateway path prefix (`/{prefix}/videoconf/{room}`) would name two tenants, or null. A
 * prefix is looked up as an app id first (the primary one, then the registry's) and as a
 * tenant id second, so an app id equal to another tenant's id hands that tenant's rooms to
 * the app id's owner. A tenant whose app id is its own id names itself, which is harmless.
 */
export function pathClash(
  tenants: readonly Pick<Tenant, 'id' | 'appId'>[],
  primaryAppId: string | null,
): string | null {
  const ids = new Set(tenants.map((t) => t.id));
  for (const tenant of tenants) {
    if (tenant.id !== primaryTenantId && tenant.id === primaryAppId) {
      return `tenant id ${tenant.id} is the primary app id (COMPAT_JITSI_APP_ID), which would take its /${tenant.id}/videoconf/ path`;
    }
    if (tenant.appId !== null && tenant.appId !== tenant.id && ids.has(tenant.appId)) {
      return `tenants.${tenant.id}.app_id ${JSON.stringify(tenant.appId)} is the id of tenant ${tenant.appId}, whose /${tenant.appId}/videoconf/ path it would take`;
    }
  }
  return null;
}

export function snapshotOf(tenants: readonly Tenant[]): TenantSnapshot {
  const frozen = Object.freeze(tenants.map((t) => Object.freeze({ ...t })));
  return Object.freeze({
    tenants: frozen,
    byId: new Map(frozen.map((t) => [t.id, t])),
    apiTenants: Object.freeze(frozen.filter((t) => t.apiSecret !== null)),
    byAppId: new Map(
      frozen.flatMap((t): [string, Tenant][] => (t.appId !== null && t.appSecret !== null ? [[t.appId, t]] : [])),
    ),
  });
}

/** The primary tenant alone: the registry when SERVICE_TENANTS_FILE is unset. */
export function primaryOnly(primarySecret: string | null): TenantSnapshot {
  return snapshotOf(
    primarySecret === null ? [] : [{ id: primaryTenantId, apiSecret: primarySecret, appId: null, appSecret: null }],
  );
}

/**
 * Parses and validates a registry file's text into a snapshot that starts with the primary
 * tenant. Throws RegistryError naming the tenant and key, or the line and column of a
 * TOML error; nothing is half-applied.
 */
export function parseRegistry(
  text: string,
  primarySecret: string | null,
  primaryAppId: string | null = null,
): TenantSnapshot {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text, { unsafeKeyBehaviour: 'throw' } as Parameters<typeof parseToml>[1]);
  } catch (err) {
    if (err instanceof TomlError) {
      throw new RegistryError(
        `malformed TOML at line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}`,
        err.line,
        err.column,
      );
    }
    throw new RegistryError((err as Error).message);
  }
  for (const key of Object.keys(doc)) {
    if (key !== 'tenants') throw new RegistryError(`unknown key ${key} (the file holds [tenants.<id>] tables)`);
  }
  const table = doc.tenants ?? {};
  if (!isTable(table)) throw new RegistryError('tenants must be a table of [tenants.<id>] tables');
  const tenants: Tenant[] = [];
  const primary = primaryOnly(primarySecret).tenants[0];
  if (primary) tenants.push(primary);
  const secrets = new Map<string, string>(primary?.apiSecret ? [[primary.apiSecret, primary.id]] : []);
  // The primary pair (COMPAT_JITSI_APP_ID) is not listed in the file, but its app id is taken.
  const appIds = new Map<string, string>(primaryAppId ? [[primaryAppId, primaryTenantId]] : []);
  for (const [id, entry] of Object.entries(table)) {
    if (!tenantIdPattern.test(id))
      throw new RegistryError(`tenant id ${JSON.stringify(id)} must be 1 to 64 characters of A-Z a-z 0-9 . _ -`);
    if (id === primaryTenantId)
      throw new RegistryError(`tenant id ${primaryTenantId} is reserved for COMPAT_API_SHARED_SECRET`);
    if (!isTable(entry)) throw new RegistryError(`tenants.${id} must be a table`);
    for (const key of Object.keys(entry)) {
      if (!knownKeys.has(key))
        throw new RegistryError(`tenants.${id}: unknown key ${key} (known: ${[...knownKeys].join(', ')})`);
    }
    const apiSecret = entry.api_secret === undefined ? null : secretValue(entry.api_secret, `tenants.${id}.api_secret`);
    const appId = entry.app_id === undefined ? null : secretValue(entry.app_id, `tenants.${id}.app_id`);
    const appSecret =
      entry.app_secret === undefined ? null : appSecretValue(entry.app_secret, `tenants.${id}.app_secret`);
    const embedOrigins =
      entry.embed_origins === undefined ? null : originsValue(entry.embed_origins, `tenants.${id}.embed_origins`);
    if (embedOrigins !== null && appId === null)
      throw new RegistryError(`tenants.${id}: embed_origins needs app_id and app_secret (it applies to gateway pages)`);
    if ((appId === null) !== (appSecret === null))
      throw new RegistryError(`tenants.${id}: app_id and app_secret go together`);
    if (apiSecret === null && appId === null)
      throw new RegistryError(`tenants.${id} has neither api_secret nor app_id/app_secret`);
    const authenticatedGuest = entry.authenticated_guest;
    if (authenticatedGuest !== undefined && typeof authenticatedGuest !== 'boolean')
      throw new RegistryError(`tenants.${id}.authenticated_guest must be true or false`);
    if (authenticatedGuest !== undefined && apiSecret === null)
      throw new RegistryError(`tenants.${id}: authenticated_guest needs api_secret (it applies to meeting-API joins)`);
    const previousApi = previousValue(entry, id, 'api', apiSecret);
    const previousApp = previousValue(entry, id, 'app', appSecret);
    // A previous secret still signs calls during its grace: it too must name one tenant only.
    for (const secret of [apiSecret, previousApi?.secret ?? null]) {
      if (secret === null) continue;
      const other = secrets.get(secret);
      if (other !== undefined)
        throw new RegistryError(`tenants ${other} and ${id} have the same api_secret; every tenant needs its own`);
      secrets.set(secret, id);
    }
    if (appId !== null) {
      const other = appIds.get(appId);
      if (other !== undefined) throw new RegistryError(`tenants ${other} and ${id} have the same app_id`);
      appIds.set(appId, id);
    }
    tenants.push({
      id,
      apiSecret,
      appId,
      appSecret,
      ...(embedOrigins !== null ? { embedOrigins } : {}),
      ...(previousApi !== null ? { previousApiSecret: previousApi } : {}),
      ...(previousApp !== null ? { previousAppSecret: previousApp } : {}),
      ...(authenticatedGuest !== undefined ? { authenticatedGuest } : {}),
    });
  }
  const clash = pathClash(tenants, primaryAppId);
  if (clash !== null) throw new RegistryError(clash);
  return snapshotOf(tenants);
}

/** Whether a rotated-out secret is still in its grace at `nowMs`. */
export function inGrace(previous: PreviousSecret | undefined, nowMs: number): previous is PreviousSecret {
  return previous !== undefined && nowMs < previous.until;
}

/**
 * Reads the registry file: a missing file is an empty registry (the primary tenant alone),
 * so `meetctl tenant add` may create it later. Throws RegistryError for a file that exists
 * but cannot be used.
 */
export function readRegistryFile(
  file: string,
  primarySecret: string | null,
  primaryAppId: string | null = null,
): TenantSnapshot {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return primaryOnly(primarySecret);
    throw new RegistryError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseRegistry(text, primarySecret, primaryAppId);
}
