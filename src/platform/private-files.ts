import { chmodSync, closeSync, fchmodSync, lstatSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { keepOwner, makeDirectory, ownerToKeep } from './file-owner.js';

/**
 * Modes of what the data directory holds (databases, the signing key, the server key): the
 * owner's alone, whatever the umask of `npm start` or a container (022 gives 0644). The modes
 * are set explicitly rather than by changing the process's umask, which would also change
 * every file other code of the process creates.
 */

export const privateDirMode = 0o700;
export const privateFileMode = 0o600;

/** A path whose mode let others in, and what it was narrowed to; `refused`: the errno when it could not be (another owner). */
export interface Narrowed {
  readonly path: string;
  readonly was: number;
  readonly now: number;
  readonly refused?: string;
}

const loose = (mode: number) => (mode & 0o077) !== 0;

/** Narrows `path` to `mode` when group or others have any access; absent: null. */
export function narrow(path: string, mode: number): Narrowed | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  const was = stat.mode & 0o777;
  if (!loose(was)) return null;
  try {
    chmodSync(path, mode);
  } catch (err) {
    // Owned by another user (root, after a command run as root): reported, not fatal, so the service still starts.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EACCES') throw err;
    return { path, was, now: was, refused: code };
  }
  return { path, was, now: mode };
}

/** Creates `dir` (and missing parents) 0700, owned as its parent is, or narrows it when it exists wider. */
export function privateDirectory(dir: string): Narrowed | null {
  makeDirectory(dir, privateDirMode);
  return narrow(dir, privateDirMode);
}

/** The files SQLite keeps for the database `file` in WAL mode. */
export function databaseFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`];
}

/**
 * Makes the database `file` 0600 before SQLite opens it: created empty when absent (SQLite
 * takes an empty file as a new database, and would create one 0644 itself), else narrowed
 * with its WAL and shared-memory files. SQLite gives the WAL and shm files it creates the
 * main file's mode, so they are born 0600 too, and, when it runs as root, the main file's owner:
 * so a new file made by root takes its directory's owner (a `serve` run once as root must leave
 * files the service's user can open).
 */
export function privateDatabase(file: string): Narrowed[] {
  try {
    const owner = ownerToKeep(file);
    const fd = openSync(file, 'wx', privateFileMode);
    try {
      fchmodSync(fd, privateFileMode);
      if (owner !== null) keepOwner(fd, owner);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return databaseFiles(file).flatMap((path) => narrow(path, privateFileMode) ?? []);
}

/**
 * Everything under `root` (the data directory is the service's alone): directories narrowed
 * to 0700, files to 0600; symbolic links are neither followed nor changed. `root` is created
 * 0700 when absent.
 */
export function narrowTree(root: string): Narrowed[] {
  const found: Narrowed[] = [];
  const dir = privateDirectory(root);
  if (dir) found.push(dir);
  const walk = (path: string) => {
    let entries: string[];
    try {
      entries = readdirSync(path);
    } catch (err) {
      // A directory of another owner that this user cannot list was reported (or is closed) already.
      if ((err as NodeJS.ErrnoException).code === 'EACCES') return;
      throw err;
    }
    for (const entry of entries) {
      const child = join(path, entry);
      const stat = lstatSync(child, { throwIfNoEntry: false });
      if (stat === undefined || stat.isSymbolicLink()) continue;
      const isDir = stat.isDirectory();
      if (!isDir && !stat.isFile()) continue;
      const narrowed = narrow(child, isDir ? privateDirMode : privateFileMode);
      if (narrowed) found.push(narrowed);
      if (isDir) walk(child);
    }
  };
  walk(root);
  return found;
}
