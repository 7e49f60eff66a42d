import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { makeDirectory, readIfExists, writeFileAtomic } from '../platform/atomic-file.js';
import {
  builtInLicencePublicKey,
  LicenceError,
  licencePublicKey,
  verifyServerKey,
  type Licence,
} from './server-key.js';

/**
 * A module's installation, recorded in the data directory by `meetctl install`: the server
 * key itself (re-verified at every start, so editing the record grants nothing) and, for
 * people reading the file, what it grants.
 */
export interface InstallationRecord {
  readonly module: string;
  readonly key: string;
  readonly customer: string;
  readonly modules: readonly string[];
  readonly issued_at: string;
  readonly expires_at: string;
}

export type InstalledLicence =
  | { readonly status: 'absent' }
  | { readonly status: 'valid'; readonly licence: Licence }
  | { readonly status: 'invalid'; readonly error: LicenceError };

export function installationFile(dataDir: string, module: string): string {
  return join(dataDir, 'modules', `${module}.json`);
}

/** The record as JSON text; the same licence always gives the same bytes (a second install changes nothing). */
export function installationText(module: string, key: string, licence: Licence): string {
  const record: InstallationRecord = {
    module,
    key: key.trim(),
    customer: licence.customer,
    modules: licence.modules,
    issued_at: licence.issuedAt.toISOString(),
    expires_at: licence.expiresAt.toISOString(),
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

export function writeInstallation(dataDir: string, module: string, key: string, licence: Licence): void {
  makeDirectory(join(dataDir, 'modules'), 0o700);
  writeFileAtomic(installationFile(dataDir, module), installationText(module, key, licence), 0o600);
}

/** The public key that verifies server keys: SERVICE_LICENSE_PUBLIC_KEY's PEM, or the built-in one. */
export function publicKeyFor(configuredPem: string | null) {
  return licencePublicKey(configuredPem ?? builtInLicencePublicKey);
}

/** Reads and re-verifies the recorded installation of `module`. */
export async function installedLicence(
  dataDir: string,
  module: string,
  configuredPem: string | null,
  now: Date,
): Promise<InstalledLicence> {
  const text = readIfExists(installationFile(dataDir, module));
  if (text === null) return { status: 'absent' };
  let record: Partial<InstallationRecord> = {};
  try {
    record = (JSON.parse(text) as Partial<InstallationRecord> | null) ?? {};
  } catch {
    record = {};
  }
  const key: unknown = record.key;
  if (typeof key !== 'string') {
    return {
      status: 'invalid',
      error: new LicenceError(
        'malformed',
        `${installationFile(dataDir, module)} holds no server key; run meetctl install ${module} again`,
      ),
    };
  }
  try {
    const licence = await verifyServerKey(key, publicKeyFor(configuredPem), module, now);
    // The record's readable fields must say what its key says: an edited record is refused, not silently corrected.
    if (!isDeepStrictEqual(JSON.parse(installationText(module, key, licence)), { ...record, key: key.trim() })) {
      return {
        status: 'invalid',
        error: new LicenceError(
          'forged',
          `${installationFile(dataDir, module)} was edited: its fields no longer match its server key; run meetctl install ${module} again`,
        ),
      };
    }
    return { status: 'valid', licence };
  } catch (err) {
    if (!(err instanceof LicenceError)) throw err;
    // Without a configured key a private authority's valid key reads as forged: say which key checked it.
    if (err.fault === 'forged' && configuredPem === null)
      return {
        status: 'invalid',
        error: new LicenceError(
          'forged',
          `${err.message} (checked against the built-in public key: SERVICE_LICENSE_PUBLIC_KEY is not set, so a key from a private licence authority reads as forged)`,
        ),
      };
    return { status: 'invalid', error: err };
  }
}
