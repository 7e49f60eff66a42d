import { statSync } from 'node:fs';
import { readIfExists } from '../../platform/atomic-file.js';
import { parseEnvFile } from '../env-file.js';
import { check, fail, ok, reason, skip, warn, type EnvFileState } from './check.js';

/** An env file larger than this is not read: systemd refuses lines over 1 MiB, and doctor must stay quick. */
export const maxEnvFileBytes = 4 * 1024 * 1024;

/**
 * Reads the environment file the way the daemon gets it under systemd (EnvironmentFile=),
 * noting lines that are not KEY=value: systemd and parseEnvFile skip them, so a setting on
 * such a line is silently not set.
 */
export function readEnvFile(path: string): { state: EnvFileState; values: Record<string, string> } {
  let text: string | null;
  let mode: number | null = null;
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return { state: { path, status: 'absent', ignoredLines: [], mode: null }, values: {} };
    mode = stat.mode & 0o777;
    if (!stat.isFile())
      return { state: { path, status: 'unreadable', error: 'not a regular file', ignoredLines: [], mode }, values: {} };
    if (stat.size > maxEnvFileBytes)
      return {
        state: {
          path,
          status: 'unreadable',
          error: `larger than ${maxEnvFileBytes / 1024 / 1024} MiB`,
          ignoredLines: [],
          mode,
        },
        values: {},
      };
    text = readIfExists(path);
  } catch (err) {
    return { state: { path, status: 'unreadable', error: reason(err), ignoredLines: [], mode }, values: {} };
  }
  if (text === null) return { state: { path, status: 'absent', ignoredLines: [], mode: null }, values: {} };
  const ignoredLines: number[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) ignoredLines.push(i + 1);
  });
  return { state: { path, status: 'read', ignoredLines, mode }, values: parseEnvFile(text) };
}

function lineList(lines: readonly number[]): string {
  const shown = lines.slice(0, 10).join(', ');
  return lines.length > 10 ? `${shown} and ${lines.length - 10} more` : shown;
}

export const envFileCheck = check('env-file', 'Environment file', (ctx) => {
  const env = ctx.envFile;
  if (env.status === 'absent') return skip(`${env.path} does not exist; doctor reads the environment alone`);
  if (env.status === 'unreadable') {
    return fail(
      `cannot read ${env.path}: ${env.error ?? 'unknown error'}; the results below may differ from what the service sees`,
      "run meetctl doctor as root or as the service's user, or pass --env-file PATH",
    );
  }
  if (env.mode !== null && (env.mode & 0o077) !== 0) {
    return fail(
      `${env.path} holds secrets but is mode ${env.mode.toString(8).padStart(4, '0')}: other users can read it`,
      `chmod 600 ${env.path}`,
    );
  }
  if (env.ignoredLines.length > 0) {
    // Line numbers only: the line itself may hold a secret.
    return warn(
      `${env.path}: line ${lineList(env.ignoredLines)} is not KEY=value and is ignored`,
      'each setting goes on its own line as NAME=value, without quotes or "export"',
    );
  }
  return ok(`${env.path} read`);
});
