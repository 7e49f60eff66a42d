import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { check, configMissing, fail, ok, reason, warn } from './check.js';

const mib = 1024 * 1024;
/**
 * SQLite needs room for its WAL and a checkpoint, and a full disk turns every knock into an
 * error while /healthz still answers: below the failure floor the service cannot be trusted
 * to keep what it acknowledges, below the warning floor it will soon not.
 */
export const defaultFreeSpace = { warnBytes: 1024 * mib, failBytes: 200 * mib };

const shownSize = (bytes: number) =>
  bytes >= 1024 * mib ? `${(bytes / (1024 * mib)).toFixed(1)} GiB` : `${Math.floor(bytes / mib)} MiB`;

/** The directory itself, or (before install created it) the nearest existing one above it: the filesystem it will be on. */
function statfsOfNearest(path: string) {
  let at = resolve(path);
  for (;;) {
    try {
      return { at, stat: statfsSync(at) };
    } catch (err) {
      const parent = dirname(at);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw err;
      at = parent;
    }
  }
}

export const diskSpaceCheck = check('disk-space', 'Free disk space', (ctx) => {
  if (ctx.config === null) return configMissing;
  const floors = ctx.freeSpace ?? defaultFreeSpace;
  let found;
  try {
    found = statfsOfNearest(ctx.config.dataDir);
  } catch (err) {
    // The data-dir check names a directory it cannot reach; this one only measures.
    return warn(
      `cannot measure the filesystem of ${ctx.config.dataDir}: ${reason(err)}`,
      'run meetctl doctor as root or as the service user',
    );
  }
  const { at, stat } = found;
  // bavail, not bfree: the blocks reserved for root are not the service user's.
  const free = Number(stat.bavail) * Number(stat.bsize);
  const where = at === resolve(ctx.config.dataDir) ? at : `${at} (where ${ctx.config.dataDir} will be)`;
  const detail = `${shownSize(free)} free on the filesystem of ${where}`;
  const hint = `free space on that filesystem (old logs, journalctl --vacuum-size, package caches), or move SERVICE_DATA_DIR to a larger disk`;
  if (Number(stat.files) > 0 && Number(stat.ffree) === 0)
    return fail(`no free inodes on the filesystem of ${where}: no file can be created`, hint);
  if (free < floors.failBytes)
    return fail(`${detail}, under ${shownSize(floors.failBytes)}: the database cannot grow or checkpoint`, hint);
  if (free < floors.warnBytes) return warn(`${detail}, under ${shownSize(floors.warnBytes)}`, hint);
  return ok(detail);
});
