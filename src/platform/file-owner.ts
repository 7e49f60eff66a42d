import { chownSync, fchownSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Owners of the files meetctl and the daemon write. An operator runs `meetctl install`, a
 * licence renewal or, by mistake, `meetctl serve` as root in directories that belong to the
 * service's user; a file root creates there would be root's, and the service (or `sudo -u meet
 * meetctl …`) could no longer read or replace it. So what root writes keeps the owner of the file
 * it replaces, and a new file or directory takes the owner of the directory it is made in. A
 * process that is not root can only create its own files, and has nothing to do here.
 */

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/**
 * Sets `owner` on a path or an open file. Root in a user namespace (a container) may not give a
 * file to an id the namespace does not map (EINVAL, EPERM): the file then stays as before this
 * rule, rather than the write failing.
 */
export function keepOwner(target: string | number, owner: Owner): void {
  try {
    if (typeof target === 'number') fchownSync(target, owner.uid, owner.gid);
    else chownSync(target, owner.uid, owner.gid);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM') throw err;
  }
}

function ownerOf(path: string): Owner | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? null : { uid: stat.uid, gid: stat.gid };
}

/** The owner a file written at `path` keeps: the file's own, else its directory's; null when this process is not root. */
export function ownerToKeep(path: string): Owner | null {
  if (!isRoot()) return null;
  return ownerOf(path) ?? ownerOf(dirname(resolve(path)));
}

/** Gives `path`, just created by root, to the owner of its directory. */
export function giveToDirectoryOwner(path: string): void {
  if (!isRoot()) return;
  const owner = ownerOf(dirname(resolve(path)));
  if (owner !== null) keepOwner(path, owner);
}

/**
 * `mkdir -p dir` with `mode`; every directory it makes is given to the owner of the directory
 * it was made in (the nearest one that existed), so `data/modules` made by root for a data
 * directory of the service's user is the service's.
 */
export function makeDirectory(dir: string, mode: number): void {
  const made = mkdirSync(dir, { recursive: true, mode });
  if (made === undefined || !isRoot()) return;
  // mkdirSync names the first directory it made (relative when `dir` is); the rest lie below it.
  const first = resolve(made);
  const owner = ownerOf(dirname(first));
  if (owner === null) return;
  let path = first;
  keepOwner(path, owner);
  for (const part of relative(first, resolve(dir))
    .split(sep)
    .filter((p) => p !== '')) {
    path = join(path, part);
    keepOwner(path, owner);
  }
}
