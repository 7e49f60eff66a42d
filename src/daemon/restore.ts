import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { compatDatabaseFileName, compatSchemaVersion } from '../compat/store/compat-store.js';
import { databaseInUse, schemaVersionOfFile } from '../store/backup.js';
import { engineSchemaVersion } from '../store/database.js';
import { databaseFiles, privateDirectory, privateFileMode } from '../platform/private-files.js';
import {
  BackupError,
  backupFormat,
  backupFormatVersion,
  databaseRoles,
  digestOf,
  manifestFileName,
  rolePaths,
  syncDirectory,
  writeNewFile,
  type Manifest,
  type ManifestEntry,
} from './backup-files.js';

export interface RestoreTarget {
  readonly dataDir: string;
  readonly compatApiDataDir: string;
  /** Where the operator's files go back; null: they are not restored (they are listed as skipped). */
  readonly configDir: string | null;
  /** Restore into a non-empty data directory, over existing files. */
  readonly force: boolean;
}

export interface Restored {
  readonly manifest: Manifest;
  readonly written: readonly string[];
  readonly skipped: readonly ManifestEntry[];
}

const corrupt = (what: string) =>
  new BackupError(
    'refused',
    `the backup is damaged: ${what}; nothing was restored`,
    'restore another backup, or take a new one with meetctl backup',
  );

function readManifest(from: string): Manifest {
  let text: string;
  try {
    text = readFileSync(join(from, manifestFileName), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new BackupError(
      'refused',
      `${join(from, manifestFileName)} cannot be read (${code}): not a backup made by meetctl backup, or one that did not finish; nothing was restored`,
      '--from names the directory meetctl backup --out wrote',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw corrupt(`${manifestFileName} is not JSON`);
  }
  const m = parsed as Partial<Manifest> | null;
  if (
    m === null ||
    typeof m !== 'object' ||
    m.format !== backupFormat ||
    m.format_version !== backupFormatVersion ||
    !Array.isArray(m.files)
  )
    throw corrupt(`${manifestFileName} is not a manifest of format ${backupFormat} ${backupFormatVersion}`);
  const seen = new Set<string>();
  for (const entry of m.files as unknown[]) {
    const e = entry as Partial<ManifestEntry> | null;
    // Own keys only: a role such as "constructor" is no role.
    const pattern = e && typeof e.role === 'string' && Object.hasOwn(rolePaths, e.role) ? rolePaths[e.role] : undefined;
    if (!e || !pattern || typeof e.path !== 'string' || !pattern.test(e.path) || seen.has(e.path))
      throw corrupt(`${manifestFileName} lists an entry it should not (${JSON.stringify(e?.path ?? null)})`);
    if (
      typeof e.bytes !== 'number' ||
      typeof e.sha256 !== 'string' ||
      typeof e.mode !== 'string' ||
      !/^[0-7]{3}$/.test(e.mode)
    )
      throw corrupt(`${manifestFileName}'s entry ${e.path} lacks its size, SHA-256 or mode`);
    seen.add(e.path);
  }
  if (!(m.files as readonly ManifestEntry[]).some((e) => e.role === 'engine-database'))
    throw corrupt(`${manifestFileName} lists no service database`);
  return m as Manifest;
}

/** Every file as the manifest describes it (a regular file, its size, its SHA-256), before anything is written. */
function verifyFiles(from: string, manifest: Manifest): void {
  for (const entry of manifest.files) {
    const file = join(from, entry.path);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) throw corrupt(`${entry.path} is missing`);
    const found = digestOf(file);
    if (found.bytes !== entry.bytes || found.sha256 !== entry.sha256)
      throw corrupt(`${entry.path} differs from manifest.json (size or SHA-256)`);
  }
}

/** A database written by a newer release would be refused by this release's daemon at start (exit 2): refused here, before it is put in place. */
function checkSchemas(from: string, manifest: Manifest): void {
  const known: Record<string, number> = {
    'engine-database': engineSchemaVersion(),
    'compat-database': compatSchemaVersion(),
  };
  for (const entry of manifest.files.filter((e) => databaseRoles.includes(e.role))) {
    const found = schemaVersionOfFile(join(from, entry.path));
    if (found === null) throw corrupt(`${entry.path} is not an SQLite database`);
    const highest = known[entry.role]!;
    if (found > highest)
      throw new BackupError(
        'config',
        `${entry.path} has schema version ${found}, newer than this version of the service knows (up to ${highest}): ` +
          `the backup was taken by meeting-service ${manifest.product_version}; nothing was restored`,
        'restore it with that release (or a later one)',
      );
  }
}

function targetOf(entry: ManifestEntry, target: RestoreTarget): string | null {
  const [top, ...rest] = entry.path.split('/');
  if (top === 'data') return join(target.dataDir, ...rest);
  if (top === 'compat-api') return join(target.compatApiDataDir, compatDatabaseFileName);
  return target.configDir === null ? null : join(target.configDir, ...rest);
}

const nonEmpty = (dir: string) =>
  statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true && readdirSync(dir).length > 0;
const inside = (dir: string, parent: string) => !relative(resolve(parent), resolve(dir)).startsWith('..');

function checkTargets(placed: readonly (readonly [ManifestEntry, string])[], target: RestoreTarget): void {
  // Not even --force writes under a running service: it would go on with its own pages in memory and its WAL.
  for (const [entry, file] of placed)
    if (databaseRoles.includes(entry.role) && databaseInUse(file))
      throw new BackupError(
        'refused',
        `${file} is open in a running service; nothing was restored`,
        'stop the service first (systemctl stop meet)',
      );
  if (target.force) return;
  const hint = 'restore into a new, empty directory, or pass --force to write over what is there';
  for (const dir of [
    target.dataDir,
    ...(inside(target.compatApiDataDir, target.dataDir) ? [] : [target.compatApiDataDir]),
  ])
    if (nonEmpty(dir)) throw new BackupError('refused', `${dir} is not empty; nothing was restored`, hint);
  for (const [, file] of placed)
    if (statSync(file, { throwIfNoEntry: false }) !== undefined)
      throw new BackupError('refused', `${file} exists; nothing was restored`, hint);
}

/** Writes beside the target and renames over it: a restore cut short leaves whole files only. */
function put(from: string, entry: ManifestEntry, file: string): void {
  const config = entry.path.startsWith('config/');
  // Config files keep their modes (the env file's 0600), never wider than 0644; the rest is the service's alone.
  const mode = config ? Number.parseInt(entry.mode, 8) & 0o644 : privateFileMode;
  mkdirSync(dirname(file), { recursive: true, mode: config ? 0o755 : 0o700 });
  if (databaseRoles.includes(entry.role)) {
    // A WAL or shm left by the database this one replaces would be replayed onto it.
    for (const sidecar of [...databaseFiles(file).slice(1), `${file}-journal`]) rmSync(sidecar, { force: true });
  }
  const temporary = `${file}.restoring`;
  rmSync(temporary, { force: true });
  writeNewFile(temporary, readFileSync(join(from, entry.path)), mode);
  renameSync(temporary, file);
  syncDirectory(dirname(file));
}

/**
 * Restores the backup in `from` into an empty data directory: the manifest, every file's
 * SHA-256 and the databases' schema versions are checked first, so a damaged backup, or one
 * of a newer release, writes nothing. The operator's files go back only into an explicit
 * configuration directory.
 */
export function restoreBackup(from: string, target: RestoreTarget): Restored {
  const manifest = readManifest(from);
  verifyFiles(from, manifest);
  checkSchemas(from, manifest);
  const placed: (readonly [ManifestEntry, string])[] = [];
  const skipped: ManifestEntry[] = [];
  for (const entry of manifest.files) {
    const file = targetOf(entry, target);
    if (file === null) skipped.push(entry);
    else placed.push([entry, file]);
  }
  checkTargets(placed, target);
  privateDirectory(target.dataDir);
  // The engine's database last: until it is in place the directory cannot be mistaken for a whole data directory.
  const ordered = [...placed].sort(
    ([a], [b]) => Number(a.role === 'engine-database') - Number(b.role === 'engine-database'),
  );
  for (const [entry, file] of ordered) put(from, entry, file);
  return { manifest, written: ordered.map(([, file]) => file), skipped };
}
