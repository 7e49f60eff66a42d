import { execFileSync } from 'node:child_process';

/** Root with unshare: a daemon can get a small private tmpfs as its data directory (to fill its disk). */
export function canMountPrivateTmpfs(): boolean {
  try {
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
