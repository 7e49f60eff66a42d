import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** Debian keeps nginx in /usr/sbin, which an unprivileged user's PATH often lacks. */
const sbinDirs = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The program's path: `override` when given (it must exist), else the first `name` on PATH or in the sbin directories. */
export function findProgram(
  name: string,
  override: string | null,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (override !== null && override !== '')
    return isAbsolute(override) || override.includes('/')
      ? executable(override)
        ? override
        : null
      : findProgram(override, null, env);
  const dirs = [...(env.PATH ?? '').split(delimiter).filter((d) => d !== ''), ...sbinDirs];
  for (const dir of dirs) {
    const file = join(dir, name);
    if (executable(file)) return file;
  }
  return null;
}

export interface ProgramResult {
  /** Exit code; null when it was killed (timeout) or could not start. */
  readonly code: number | null;
  /** Standard output and error together, as the operator would see them. */
  readonly output: string;
  readonly error: string | null;
}

/**
 * Runs a program to completion with a plain environment (PATH and the C locale only: it needs
 * none of the service's secrets) and a time limit.
 */
export function runProgram(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 20_000,
): Promise<ProgramResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        env: { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C', SYSTEMD_LOG_COLOR: '0' },
        timeout: timeoutMs,
        maxBuffer: 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim();
        if (!error) return resolve({ code: 0, output, error: null });
        const code = typeof error.code === 'number' ? error.code : null;
        const why = error.killed
          ? `did not finish within ${timeoutMs / 1000} s`
          : code === null
            ? String(error.code ?? error.message)
            : null;
        resolve({ code, output, error: why });
      },
    );
  });
}

/** The first `max` non-empty lines of a program's output. */
export function firstLines(output: string, max = 3): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.slice(0, max).join('; ') + (lines.length > max ? `; … (${lines.length - max} more)` : '');
}
