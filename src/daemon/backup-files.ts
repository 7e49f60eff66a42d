import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * What `meetctl backup` writes and `meetctl restore` reads: the files of one backup directory
 * and its manifest.json. Paths in the manifest are relative to the backup directory and say
 * where each file goes back: `data/…` into the data directory, `compat-api/…` into the meeting
 * API's directory, `config/…` into the configuration directory (only when restore is given one).
 */

export const manifestFileName = 'manifest.json';
export const backupFormat = 'meeting-service-backup';
export const backupFormatVersion = 1;

export type BackupRole =
  | 'engine-database'
  | 'compat-database'
  | 'signing-key'
  | 'installation'
  | 'initial-admin-token'
  | 'env-file'
  | 'room-defaults'
  | 'tenants-file'
  | 'licence-public-key';

export interface ManifestEntry {
  readonly path: string;
  readonly role: BackupRole;
  readonly bytes: number;
  readonly sha256: string;
  /** The source's permission bits (octal text); config files are restored with them, never wider than 0644. */
  readonly mode: string;
  /** Where the file was taken from, for the operator reading the manifest. */
  readonly source: string;
}

export interface Manifest {
  readonly format: typeof backupFormat;
  readonly format_version: typeof backupFormatVersion;
  readonly product_version: string;
  readonly created_at: string;
  /** PRAGMA user_version of each database, by its path in the backup. */
  readonly schemas: Readonly<Record<string, number>>;
  readonly files: readonly ManifestEntry[];
}

/** The path pattern of each role; restore refuses any other path, so a manifest cannot aim a write outside its targets. */
export const rolePaths: Readonly<Record<BackupRole, RegExp>> = {
  'engine-database': /^data\/meet\.sqlite$/,
  'compat-database': /^compat-api\/confapi\.sqlite$/,
  'signing-key': /^data\/signing-key$/,
  installation: /^data\/modules\/[a-z0-9-]+\.json$/,
  'initial-admin-token': /^data\/initial-admin-token$/,
  'env-file': /^config\/(?!\.\.?$)[A-Za-z0-9._-]+$/,
  'room-defaults': /^config\/(?!\.\.?$)[A-Za-z0-9._-]+$/,
  'tenants-file': /^config\/(?!\.\.?$)[A-Za-z0-9._-]+$/,
  'licence-public-key': /^config\/(?!\.\.?$)[A-Za-z0-9._-]+$/,
};

export const databaseRoles: readonly BackupRole[] = ['engine-database', 'compat-database'];

/** A backup or restore that cannot go on; `kind` is the CLI's failure kind (its exit code). */
export class BackupError extends Error {
  override readonly name = 'BackupError';
  constructor(
    readonly kind: 'refused' | 'config',
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** SHA-256 (hex) and size of a file, read in chunks: a database may be larger than memory should hold. */
export function digestOf(file: string): { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  let bytes = 0;
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Writes a new file (never over an existing one) born with `mode`, whatever the umask, and on disk before it returns. */
export function writeNewFile(file: string, data: Uint8Array | string, mode: number): void {
  const fd = openSync(file, 'wx', mode);
  try {
    fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a directory, so the names of the files just written in it survive a power cut. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
