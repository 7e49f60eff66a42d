import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, statfsSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { check, configMissing, fail, ok, reason, warn } from './check.js';

/** statfs f_type of filesystems held in memory: what they hold is gone at the next boot. */
const memoryFilesystems: Record<number, string> = { 0x01021994: 'tmpfs', 0x858458f6: 'ramfs' };
const overlayFs = 0x794c7630;

/** What an errno of a write means, in words. */
export const advice: Record<string, string> = {
  EROFS: 'the filesystem is mounted read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  EINVAL: 'the filesystem does not support fsync',
};

/**
 * Does on a probe file what the store and the atomic writes do (create, write, fsync,
 * rename, fsync of the directory, unlink) and returns the step that failed, or null.
 */
export function probeWritable(dir: string): { step: string; code: string } | null {
  const name = `.doctor-probe-${process.pid}-${randomBytes(4).toString('hex')}`;
  const probe = join(dir, name);
  const renamed = `${probe}.renamed`;
  let stepName = 'create a file';
  let created = false;
  let current = probe;
  try {
    const fd = openSync(probe, 'wx', 0o600);
    created = true;
    try {
      stepName = 'write';
      writeSync(fd, 'meetctl doctor probe\n');
      stepName = 'fsync a file';
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    stepName = 'rename';
    renameSync(probe, renamed);
    current = renamed;
    stepName = 'fsync the directory';
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    stepName = 'remove a file';
    unlinkSync(renamed);
    created = false;
    return null;
  } catch (err) {
    return { step: stepName, code: reason(err) };
  } finally {
    if (created) {
      try {
        unlinkSync(current);
      } catch {
        // the probe could not be removed either; the failure above says why
      }
    }
  }
}

export const dataDirCheck = check('data-dir', 'Data directory', (ctx) => {
  if (ctx.config === null) return configMissing;
  // A relative SERVICE_DATA_DIR is the daemon's working directory's business: show where it lands from here.
  const shown = isAbsolute(ctx.config.dataDir)
    ? ctx.config.dataDir
    : `${ctx.config.dataDir} (${resolve(ctx.config.dataDir)})`;
  const path = ctx.config.dataDir;
  let stat;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    return fail(
      `${shown} cannot be read: ${reason(err)}`,
      "run meetctl doctor as the service's user, or fix the permissions of the directories above it",
    );
  }
  if (stat === undefined) {
    return fail(
      `${shown} does not exist (SERVICE_DATA_DIR)`,
      `create it for the service's user (install -d -m 0700 -o meet ${resolve(path)}), or set SERVICE_DATA_DIR to an existing directory`,
    );
  }
  if (!stat.isDirectory())
    return fail(`${shown} is not a directory (SERVICE_DATA_DIR)`, 'set SERVICE_DATA_DIR to a directory');
  const problem = probeWritable(path);
  if (problem) {
    const why = advice[problem.code] ?? problem.code;
    return fail(
      `${shown}: cannot ${problem.step}: ${why} (${problem.code})`,
      `the service's user must be able to write ${resolve(path)} on a writable, disk-backed filesystem (chown, or set SERVICE_DATA_DIR)`,
    );
  }
  const type = Number(statfsSync(path).type);
  const memory = memoryFilesystems[type];
  if (memory) {
    // A failure, not a warning: the service promises that an acknowledged write survives a power
    // cut (synchronous=FULL), and this directory also holds the signing key and the licence record.
    return fail(
      `${shown} is on ${memory}: its contents vanish at the next reboot`,
      'set SERVICE_DATA_DIR to a directory on a disk (e.g. /var/lib/meet)',
    );
  }
  if (type === overlayFs) {
    return warn(
      `${shown} is on a container's overlay filesystem: it is gone with the container`,
      'mount a volume at the data directory',
    );
  }
  return ok(`${shown} is writable and fsync works`);
});
