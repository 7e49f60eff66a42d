// Shared by the `meetctl tenant` tests: a temp config directory with a tenants file, the
// command run in this process or as its own process, and the masking check.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tap } from './api.js';
import { runCli } from './cli.js';
import { runMeetctl, type CliResult } from './daemon.js';

export const primary = 'PRI-4b9e27c1d05f83a6e2b7c9d14f60a8e3';
export const moodleSecret = 'MDL-8d3f61a09c2e74b5f1a8d60c3e97b2f4';
export const schoolAppSecret = 'SAS-1c7a94e3b08f52d6c9e1a7b34f0d86c2';

export const sample = [
  '# Tenants of this instance (meetctl keeps this comment).',
  '',
  '[tenants.moodle]   # the LMS',
  `api_secret = "${moodleSecret}"   # from Moodle's settings`,
  '',
  '# the embedding app',
  '[tenants.school]',
  'app_id = "school-app"',
  `app_secret = "${schoolAppSecret}"`,
  '',
].join('\n');

export interface Setup {
  readonly dir: string;
  readonly file: string;
  readonly env: Record<string, string>;
  /** Every secret the test has seen; none may appear in output that is not meant to show it. */
  readonly secrets: Set<string>;
}

export function setup(t: Tap, text: string | null = sample, env: Record<string, string> = {}): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tenant-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  if (text !== null) writeFileSync(file, text, { mode: 0o600 });
  return {
    dir,
    file,
    env: { SERVICE_CONFIG_DIR: dir, ...env },
    secrets: new Set([primary, moodleSecret, schoolAppSecret]),
  };
}

/** `meetctl tenant ARGS` in this process (runCli): the same code the binary runs, without a node start per call. */
export function tenant(s: Setup, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['tenant', ...args], { ...s.env, ...env });
}

/** The same through the built binary, in its own process (for locks held by another pid, stdin, the daemon). */
export function tenantProcess(s: Setup, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runMeetctl(['tenant', ...args], { ...s.env, ...env });
}

/** No secret, nor any 8 characters of one, in `text`. */
export function assertNoSecret(t: Tap, s: Setup, text: string, what: string): void {
  for (const secret of s.secrets) {
    for (let i = 0; i + 8 <= secret.length; i++) {
      if (text.includes(secret.slice(i, i + 8))) {
        t.fail(`${what}: shows a piece of a secret (${secret.slice(0, 4)}…)`);
        return;
      }
    }
  }
  t.pass(`${what}: no secret and no piece of one`);
}

export function generated(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

export function assertMode(t: Tap, file: string, what: string): void {
  t.equal(statSync(file).mode & 0o777, 0o600, `${what}: the file is 0600`);
}

export async function eventually(t: Tap, what: string, check: () => Promise<boolean>, withinMs = 2000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) {
      t.pass(`${what} within ${Date.now() - started} ms`);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  t.fail(`${what} within ${withinMs} ms`);
}
