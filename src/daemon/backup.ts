import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { compatDatabaseFileName } from '../compat/store/compat-store.js';
import { serviceVersion } from '../config/version.js';
import { installationFile } from '../licence/installation.js';
import { copyDatabaseOnline, schemaVersionOfFile } from '../store/backup.js';
import { databaseFileName } from '../store/database.js';
import { privateDirMode, privateFileMode } from '../platform/private-files.js';
import {
  BackupError,
  backupFormat,
  backupFormatVersion,
  databaseRoles,
  digestOf,
  manifestFileName,
  syncDirectory,
  writeNewFile,
  type BackupRole,
  type Manifest,
  type ManifestEntry,
} from './backup-files.js';
import { initialTokenFileName } from './run.js';
import { signingKeyFileName } from './signing-key.js';

/** Where the service keeps what a backup takes; null (or a file not there): nothing to take. */
export interface ServiceFiles {
  readonly dataDir: string;
  readonly compatApiDataDir: string;
  readonly envFile: string | null;
  readonly roomDefaults: string | null;
  readonly tenantsFile: string | null;
  readonly licencePublicKey: string | null;
}

interface Taken {
  readonly role: BackupRole;
  readonly path: string;
  readonly source: string;
}

const exists = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/** The output directory: created 0700, or an empty one narrowed to 0700; a non-empty one is refused (two backups never mix). */
function prepareOut(out: string): void {
  const stat = statSync(out, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isDirectory())
    throw new BackupError('refused', `${out} exists and is not a directory`);
  if (stat !== undefined && readdirSync(out).length > 0)
    throw new BackupError('refused', `${out} is not empty`, 'give --out a new directory (each backup gets its own)');
  mkdirSync(out, { recursive: true, mode: privateDirMode });
  // It holds secrets (the signing key, the env file's secrets, the tenants' secrets): the owner's alone, whatever the umask.
  chmodSync(out, privateDirMode);
  mkdirSync(join(out, 'data', 'modules'), { recursive: true, mode: privateDirMode });
  mkdirSync(join(out, 'compat-api'), { mode: privateDirMode });
  mkdirSync(join(out, 'config'), { mode: privateDirMode });
}

/** The plain files of the data directory: the signing key (tokens issued before verify after a restore), the first admin token, installation records. */
function dataFiles(dataDir: string): Taken[] {
  const taken: Taken[] = [];
  const plain = [
    ['signing-key', signingKeyFileName],
    ['initial-admin-token', initialTokenFileName],
  ] as const;
  for (const [role, name] of plain)
    if (exists(join(dataDir, name))) taken.push({ role, path: `data/${name}`, source: join(dataDir, name) });
  const modulesDir = dirname(installationFile(dataDir, 'compat'));
  const modules = statSync(modulesDir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(modulesDir) : [];
  for (const name of modules.filter((n) => /^[a-z0-9-]+\.json$/.test(n)).sort()) {
    const source = installationFile(dataDir, name.slice(0, -'.json'.length));
    if (exists(source)) taken.push({ role: 'installation', path: `data/modules/${name}`, source });
  }
  return taken;
}

/** The operator's files, under their own names in config/; two of one name could not both go back into one directory. */
function configFiles(files: ServiceFiles): Taken[] {
  const roles: [BackupRole, string | null][] = [
    ['env-file', files.envFile],
    ['room-defaults', files.roomDefaults],
    ['tenants-file', files.tenantsFile],
    ['licence-public-key', files.licencePublicKey],
  ];
  const taken: Taken[] = [];
  for (const [role, source] of roles) {
    // Named but not made yet (install names tenants.toml before the first `tenant add`): nothing to keep.
    const stat = source === null ? undefined : statSync(source, { throwIfNoEntry: false });
    if (source === null || stat === undefined) continue;
    if (!stat.isFile()) throw new BackupError('refused', `${source} (${role}) is not a file`);
    const path = `config/${basename(source)}`;
    const clash = taken.find((t) => t.path === path);
    if (clash)
      throw new BackupError(
        'refused',
        `${source} and ${clash.source} have the same name; one backup directory cannot hold both`,
      );
    taken.push({ role, path, source });
  }
  return taken;
}

/**
 * Backs up a running (or stopped) service into `out`: both databases as consistent snapshots
 * (`VACUUM INTO`), the data directory's keys and records, and the operator's configuration files,
 * then manifest.json (sizes, SHA-256, schema versions) last: a directory without a manifest is
 * an unfinished backup, and restore refuses it. Files are 0600, directories 0700.
 */
export function takeBackup(files: ServiceFiles, out: string, now: Date): Manifest {
  const engineDb = join(files.dataDir, databaseFileName);
  if (!exists(engineDb))
    throw new BackupError(
      'refused',
      `${engineDb} does not exist: no service data in ${files.dataDir}`,
      'name the data directory with --data-dir or the env file with --env-file',
    );
  const compatDb = join(files.compatApiDataDir, compatDatabaseFileName);
  const plain = [...dataFiles(files.dataDir), ...configFiles(files)];
  prepareOut(out);
  const taken: Taken[] = [];
  try {
    // The meeting API's database first: its meetings name engine rooms, so the engine's copy,
    // taken after, holds every room the meeting API's copy refers to.
    if (exists(compatDb)) {
      copyDatabaseOnline(compatDb, join(out, 'compat-api', compatDatabaseFileName));
      taken.push({ role: 'compat-database', path: `compat-api/${compatDatabaseFileName}`, source: compatDb });
    }
    copyDatabaseOnline(engineDb, join(out, 'data', databaseFileName));
    taken.push({ role: 'engine-database', path: `data/${databaseFileName}`, source: engineDb });
    for (const file of plain) {
      writeNewFile(join(out, file.path), readFileSync(file.source), privateFileMode);
      taken.push(file);
    }
    const entries: ManifestEntry[] = taken.map((file) => ({
      path: file.path,
      role: file.role,
      ...digestOf(join(out, file.path)),
      mode: (statSync(file.source).mode & 0o777).toString(8).padStart(3, '0'),
      source: file.source,
    }));
    const schemas: Record<string, number> = {};
    for (const entry of entries.filter((e) => databaseRoles.includes(e.role)))
      schemas[entry.path] = schemaVersionOfFile(join(out, entry.path)) ?? 0;
    const manifest: Manifest = {
      format: backupFormat,
      format_version: backupFormatVersion,
      product_version: serviceVersion,
      created_at: now.toISOString(),
      schemas,
      files: entries,
    };
    for (const dir of ['data/modules', 'data', 'compat-api', 'config']) syncDirectory(join(out, dir));
    writeNewFile(join(out, manifestFileName), `${JSON.stringify(manifest, null, 2)}\n`, privateFileMode);
    syncDirectory(out);
    return manifest;
  } catch (err) {
    // Nothing half-made stays behind to be mistaken for a backup; the directory was empty before.
    for (const entry of readdirSync(out)) rmSync(join(out, entry), { recursive: true, force: true });
    throw err;
  }
}
