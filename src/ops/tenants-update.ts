import { lstatSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseRegistry, RegistryError, type Tenant, type TenantSnapshot } from '../compat/tenants/parse.js';
import { LockTimeout, withFileLock, writeFileAtomic } from '../platform/atomic-file.js';
import { checkEdit, type PrimaryCredentials } from './tenants-file.js';

/**
 * The tenant registry file on disk: read it (refusing what meetctl must not replace by a
 * rename), and change it under its lock file so two `meetctl tenant` invocations never lose
 * each other's change.
 */

/** A problem with the file or the machine; `kind` says which exit code it deserves. */
export class TenantsFileProblem extends Error {
  override readonly name = 'TenantsFileProblem';
  constructor(
    readonly kind: 'config' | 'environment' | 'refused',
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export interface TenantsFile {
  readonly file: string;
  readonly primary: PrimaryCredentials;
  /** How long to wait for another invocation's lock. */
  readonly lockWaitMs: number;
  /** Owner the rewritten file keeps (root rewriting the service user's file), or null. */
  readonly owner: { uid: number; gid: number } | null;
}

export interface TenantsText {
  /** The file's text, '' when it does not exist yet. */
  readonly text: string;
  readonly exists: boolean;
  readonly snapshot: TenantSnapshot;
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** The file's text, null when it does not exist; a link, a directory or an unreadable file is refused. */
export function readTenantsText(file: string): string | null {
  let kind;
  try {
    kind = lstatSync(file);
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw new TenantsFileProblem('environment', `cannot read the tenants file ${file}: ${errno(err)}`);
  }
  if (kind.isSymbolicLink()) {
    throw new TenantsFileProblem(
      'config',
      `the tenants file ${file} is a symbolic link; meetctl replaces the file by a rename, which would replace the link and leave its target unchanged`,
      'point SERVICE_TENANTS_FILE (or --tenants-file) at the file itself',
    );
  }
  if (kind.isDirectory())
    throw new TenantsFileProblem(
      'config',
      `the tenants file ${file} is a directory`,
      'point SERVICE_TENANTS_FILE (or --tenants-file) at a file, e.g. tenants.toml in that directory',
    );
  if (!kind.isFile())
    throw new TenantsFileProblem(
      'config',
      `the tenants file ${file} is not a regular file`,
      'point SERVICE_TENANTS_FILE (or --tenants-file) at a regular file',
    );
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new TenantsFileProblem(
      'environment',
      `cannot read the tenants file ${file}: ${errno(err)}`,
      'run meetctl as root or as the service user',
    );
  }
}

/** A registry error as the operator reads it: the file, and the line and column when TOML is broken. */
export function brokenFile(file: string, err: RegistryError, what = 'is not valid'): TenantsFileProblem {
  const at = err.line !== null ? `${file}:${err.line}:${err.column ?? 1}` : file;
  return new TenantsFileProblem(
    'config',
    `the tenants file ${at} ${what}: ${err.message}`,
    `fix ${file} by hand; meetctl did not change it`,
  );
}

/** Reads and validates the file the way the daemon does. */
export function loadTenants(file: string, primary: PrimaryCredentials): TenantsText {
  const text = readTenantsText(file);
  try {
    return {
      text: text ?? '',
      exists: text !== null,
      snapshot: parseRegistry(text ?? '', primary.apiSecret, primary.appId),
    };
  } catch (err) {
    if (err instanceof RegistryError) throw brokenFile(file, err);
    throw err;
  }
}

/** The owner to keep when root rewrites the file: the file's own, else that of `fallback` (the env file). */
export function ownerToKeep(file: string, fallback: string | null): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const candidate of [file, fallback]) {
    if (candidate === null) continue;
    try {
      const stat = statSync(candidate);
      return { uid: stat.uid, gid: stat.gid };
    } catch {
      // absent: try the next one
    }
  }
  return null;
}

export interface Edit {
  readonly text: string;
  /** The file's tenants, in order, that the new text must hold. */
  readonly expected: readonly Tenant[];
}

/**
 * Read, edit, check, write, all under `<file>.lock`: the second of two invocations waits for
 * the first and then edits the first's result. The new text is written (atomically, 0600)
 * only when the daemon's parser accepts it and it holds exactly the intended tenants.
 */
export async function editTenants(target: TenantsFile, edit: (current: TenantsText) => Edit): Promise<TenantSnapshot> {
  const { file, primary } = target;
  const lockFile = `${file}.lock`;
  try {
    return await withFileLock(
      lockFile,
      () => {
        const current = loadTenants(file, primary);
        const next = edit(current);
        let snapshot: TenantSnapshot;
        try {
          snapshot = checkEdit(next.text, primary, next.expected, file);
        } catch (err) {
          if (err instanceof RegistryError) throw brokenFile(file, err, 'would not be valid after this change');
          throw err;
        }
        writeFileAtomic(file, next.text, 0o600, target.owner);
        return snapshot;
      },
      target.lockWaitMs,
    );
  } catch (err) {
    if (err instanceof LockTimeout) {
      throw new TenantsFileProblem(
        'environment',
        `the tenants file ${file} is locked by ${err.holder !== null ? `process ${err.holder}` : 'another process'} (lock file ${lockFile}); waited ${target.lockWaitMs} ms`,
        `another meetctl tenant command is running; try again when it is done (a lock left by a process that has ended is taken over by itself)`,
      );
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !(err instanceof TenantsFileProblem)) {
      throw new TenantsFileProblem(
        'environment',
        `the directory ${dirname(file)} of the tenants file does not exist`,
        'run `meetctl install` first, or name another file with --tenants-file',
      );
    }
    if ((code === 'EACCES' || code === 'EPERM' || code === 'EROFS') && !(err instanceof TenantsFileProblem)) {
      throw new TenantsFileProblem(
        'environment',
        `cannot write the tenants file ${file} or its lock file: ${code}`,
        'run meetctl as root or as the service user',
      );
    }
    throw err;
  }
}
