import { dirname } from 'node:path';
import { EnvironmentError } from '../config/environment-error.js';
import { advice, probeWritable } from './doctor/data-dir.js';

/** A failure of the machine rather than of meetctl: what to print and what to do about it. */
export interface EnvironmentFault {
  readonly message: string;
  readonly hint: string;
}

const asUser = () => `the user running meetctl (uid ${process.getuid?.() ?? '?'})`;

/** The hint of an errno, about `path` when the error names one. */
function errnoHint(code: string, path: string | null, syscall: string | null): string {
  const where = path ?? 'the path above';
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `${asUser()} may not use ${where}: run the command as the service's user (sudo -u meet meetctl …) or as root, or chown the path to the service's user (meetctl doctor --service-user names what is not)`;
    case 'EROFS':
      return `${where} is on a read-only filesystem: mount it read-write (under systemd, the unit's ReadWritePaths= must name it), or choose a directory on a writable one (SERVICE_DATA_DIR, --config-dir)`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk holding ${where} is full: free space (df -h) and run it again`;
    case 'ENOENT':
      if (syscall?.startsWith('spawn'))
        return `the program ${where} is not installed: install it, or name the right path in its setting`;
      return `${where} does not exist: create it, or name another path (run \`meetctl doctor\`)`;
    case 'EADDRINUSE':
      return 'another process listens on that address: stop it (ss -ltnp shows which), or set SERVICE_HTTP_ADDR / COMPAT_HTTP_ADDR to a free port';
    case 'EADDRNOTAVAIL':
      return 'no interface of this machine has that address: set SERVICE_HTTP_ADDR / COMPAT_HTTP_ADDR to one it has';
    default:
      return 'run `meetctl doctor` to see what the machine lacks';
  }
}

/** SQLite's codes for the machine's faults; the others (SQL errors, constraints, misuse) are bugs. */
const sqliteFaults: readonly [RegExp, string][] = [
  [/^SQLITE_FULL/, 'the disk holding the data directory is full: free space (df -h) and start again'],
  [
    /^SQLITE_(CANTOPEN|READONLY|PERM|IOERR|AUTH)/,
    "the service's user must be able to write the data directory, on a writable disk: run `meetctl doctor`",
  ],
  [
    /^SQLITE_(BUSY|LOCKED)/,
    'another process holds the database locked: is a second daemon running on the same data directory?',
  ],
  [
    /^SQLITE_(CORRUPT|NOTADB)/,
    'the database file is damaged or not a database: restore the data directory from a backup',
  ],
];

/**
 * The machine's fault behind `err`, or null for anything else (a bug). An errno of a system call
 * (permission, read-only or full disk, a missing program, a taken port), SQLite failing to open
 * or write its files, or an EnvironmentError the daemon raised; each with a hint naming its cause.
 */
export function environmentFault(err: unknown): EnvironmentFault | null {
  if (err instanceof EnvironmentError) return { message: err.message, hint: err.hint };
  if (!(err instanceof Error)) return null;
  const { code, path, syscall, file } = err as Error & {
    code?: unknown;
    path?: unknown;
    syscall?: unknown;
    file?: unknown;
  };
  if (typeof code !== 'string') return null;
  if (/^E[A-Z]+$/.test(code))
    return {
      message: err.message,
      hint: errnoHint(code, typeof path === 'string' ? path : null, typeof syscall === 'string' ? syscall : null),
    };
  const known = sqliteFaults.find(([pattern]) => pattern.test(code));
  if (!known) return null;
  // SQLite says "unable to open database file"; what the directory refuses says why.
  const dir = typeof file === 'string' ? dirname(file) : null;
  const problem = dir === null ? null : probeWritable(dir);
  if (dir !== null && problem !== null) {
    const why = `${err.message}; ${dir}: cannot ${problem.step}: ${advice[problem.code] ?? problem.code} (${problem.code})`;
    return { message: why, hint: errnoHint(problem.code, dir, null) };
  }
  return { message: err.message, hint: known[1] };
}
