import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keepOwner, ownerToKeep, type Owner } from './file-owner.js';

export { makeDirectory } from './file-owner.js';

/**
 * Replaces a file so that a reader (or a crash) sees the old bytes or the new ones, never a
 * mix: a temp file in the same directory, fsync, rename over the target, fsync of the
 * directory so the rename itself is durable. The file is born with `mode` (never briefly wider).
 * `owner` is set on the temp file before the rename, so a file that root rewrites for a service
 * user is never briefly unreadable to that user; by default (see file-owner.ts) the file
 * keeps the owner of the file it replaces, or takes its directory's when new.
 */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  mode = 0o600,
  owner: Owner | null = ownerToKeep(file),
): void {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (owner !== null) keepOwner(fd, owner);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The file's text, or null when it does not exist. */
export function readIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class LockTimeout extends Error {
  override readonly name = 'LockTimeout';
  constructor(
    readonly lockFile: string,
    readonly holder: number | null,
  ) {
    super(`${lockFile} is held${holder ? ` by process ${holder}` : ''}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(lockText: string | null): number | null {
  const pid = Number.parseInt(lockText ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Removes a lock whose holder has ended (true), or leaves that to the waiter already doing
 * it (false). It holds `<lock>.break` meanwhile and removes the lock only if it still holds
 * what was seen: two waiters that both saw the dead holder must not both remove "the" lock,
 * or the slower one would remove the lock the faster one just took and both would run.
 * A `.break` file older than 5 s was left by a waiter that died in between.
 */
function breakStaleLock(lockFile: string, seen: string): boolean {
  const breaker = `${lockFile}.break`;
  try {
    closeSync(openSync(breaker, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (statSync(breaker).mtimeMs < Date.now() - 5000) rmSync(breaker, { force: true });
    } catch {
      // gone meanwhile: the other waiter finished
    }
    return false;
  }
  try {
    if (readIfExists(lockFile) === seen) rmSync(lockFile, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
  return true;
}

/**
 * Runs `work` while holding `lockFile` (created with O_EXCL, holding our pid). A second
 * invocation waits for the first up to `waitMs`, then throws LockTimeout; a lock left by a
 * process that no longer exists is taken over. Read-modify-write of a shared file under
 * this lock never loses the other writer's change.
 */
export async function withFileLock<T>(lockFile: string, work: () => T | Promise<T>, waitMs = 10_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const seen = readIfExists(lockFile);
      const holder = holderOf(seen);
      // Another waiter breaking the same stale lock: wait for it like for a live holder.
      if (holder !== null && !alive(holder) && breakStaleLock(lockFile, seen!)) continue;
      if (Date.now() >= deadline) throw new LockTimeout(lockFile, holderOf(readIfExists(lockFile)));
      await sleep(25);
    }
  }
  try {
    return await work();
  } finally {
    try {
      unlinkSync(lockFile);
    } catch {
      // already gone: nothing to release
    }
  }
}
