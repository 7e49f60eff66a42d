import { execFileSync } from 'node:child_process';

/** Root with unshare: a daemon can get a small private tmpfs as its data directory (to fill its disk). */
export function canMountPrivateTmpfs(): boolean {
  try {
    execFileSync(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'],
      { stdio: 'pipe' },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * A daemon launcher whose data directory becomes a tmpfs of `size` seen only by the daemon (gone
 * with it); `prepare`, a shell line with the directory as $0, runs on the tmpfs first (to fill it).
 */
export function privateTmpfsLauncher(
  dataDir: string,
  size: string,
  prepare = '',
): (command: readonly string[]) => readonly string[] {
  return (command) => [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    `mount -t tmpfs -o size=${size} tmpfs "$0" && ${prepare ? `${prepare}; ` : ''}exec "$@"`,
    dataDir,
    ...command,
  ];
}

/** Runs `script` inside a daemon's mount namespace (where its private tmpfs is). */
export function inDaemonNamespace(
  daemon: { readonly child: { readonly pid?: number | undefined } },
  script: string,
): string {
  return execFileSync('nsenter', ['-t', String(daemon.child.pid), '-m', 'sh', '-c', script], {
    stdio: 'pipe',
    encoding: 'utf8',
  });
}
