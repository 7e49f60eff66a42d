import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnvFile } from '../../src/ops/env-file.js';
import type { Tap } from './api.js';
import { runCli } from './cli.js';
import { runMeetctl, type CliResult } from './daemon.js';
import { testAuthority } from './licence.js';

/** The generated secrets of the compat module's env lines. */
export const secretNames = ['COMPAT_API_SHARED_SECRET', 'COMPAT_JITSI_APP_ID', 'COMPAT_JITSI_APP_SECRET'];

/** The public address install is given unless a test names its own (--public-url or SERVICE_PUBLIC_URL). */
export const examplePublicUrl = 'https://meet.example.org';

/** A machine in a temporary directory (config dir etc/, data dir data/) and meetctl install run against it; keys live outside it. */
export interface World {
  readonly root: string;
  readonly etc: string;
  readonly data: string;
  readonly keys: string;
  readonly env: Record<string, string>;
  /** `meetctl install compat` against this machine, in this process (runCli). */
  install(args: readonly string[], env?: Record<string, string>): Promise<CliResult>;
  /** The same as its own process (bin/meetctl.js): for installs racing each other across processes. */
  installProcess(args: readonly string[], env?: Record<string, string>): Promise<CliResult>;
  uninstall(args?: readonly string[]): Promise<CliResult>;
  keyFile(key: string): string;
  envFile(): Record<string, string>;
}

export function world(t: Tap): World {
  const base = mkdtempSync(join(tmpdir(), 'meet-install-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'machine');
  const keys = join(base, 'keys');
  mkdirSync(root);
  mkdirSync(keys);
  const etc = join(root, 'etc');
  const data = join(root, 'data');
  const env = { SERVICE_LICENSE_PUBLIC_KEY: testAuthority().publicKeyPem };
  const where = ['--config-dir', etc, '--data-dir', data];
  // Install asks for the public address; tests about something else answer it the way the README does.
  const answered = (args: readonly string[], extra: Record<string, string>) =>
    args.some((a) => a.startsWith('--public-url')) || 'SERVICE_PUBLIC_URL' in extra
      ? args
      : [...args, '--public-url', examplePublicUrl];
  let n = 0;
  return {
    root,
    etc,
    data,
    keys,
    env,
    install: (args, extra = {}) =>
      runCli(['install', 'compat', ...where, ...answered(args, extra)], { ...env, ...extra }),
    installProcess: (args, extra = {}) =>
      runMeetctl(['install', 'compat', ...where, ...answered(args, extra)], { ...env, ...extra }),
    uninstall: (args = []) => runCli(['uninstall', 'compat', ...where, ...args], env),
    keyFile(key) {
      const file = join(keys, `key-${n++}`);
      writeFileSync(file, key);
      return file;
    },
    envFile: () => parseEnvFile(readFileSync(join(etc, 'meet.env'), 'utf8')),
  };
}

export function assertNoSecretPrinted(t: Tap, w: World, ...results: CliResult[]): void {
  const values = secretNames.map((name) => w.envFile()[name]!);
  for (const result of results)
    for (const value of values) t.notOk(`${result.stdout}${result.stderr}`.includes(value), 'no secret printed');
}
