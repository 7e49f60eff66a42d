import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuntimeSettings } from '../../src/ops/runtime-files.js';

/** The checkout's root: it holds bin/meetctl.js, so systemd-analyze finds what ExecStart runs. */
export const checkoutRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** Whether the generated unit can name this checkout: ProtectHome=yes hides /home, /root and /run/user. */
export const checkoutVisibleToUnit = !['/home', '/root', '/run/user'].some(
  (dir) => checkoutRoot === dir || checkoutRoot.startsWith(`${dir}/`),
);

let linked: string | null = null;

/**
 * A path to the checkout that a unit may name: the checkout itself, or (for a clone under a
 * home directory) a link to it from the temporary directory, made once per test process.
 */
export function packageRootForUnit(): string {
  if (checkoutVisibleToUnit) return checkoutRoot;
  linked ??= (() => {
    const link = join(mkdtempSync(join(tmpdir(), 'meet-pkg-')), 'meet');
    symlinkSync(checkoutRoot, link);
    return link;
  })();
  return linked;
}

export const hasSystemdAnalyze = existsSync('/usr/bin/systemd-analyze') || existsSync('/bin/systemd-analyze');

/** `systemd-analyze verify FILE`: its exit code and the output lines that name our unit (it may talk about the host's units too). */
export function verifyUnit(file: string): Promise<{ code: number; ours: string[]; all: string }> {
  return new Promise((resolve) => {
    // Console logging forced: by default its warnings (unknown keys...) may go to the journal instead.
    const env = { ...process.env, SYSTEMD_LOG_TARGET: 'console', SYSTEMD_LOG_LEVEL: 'info' };
    execFile(
      'systemd-analyze',
      ['verify', file],
      { encoding: 'utf8', timeout: 60_000, env },
      (error, stdout, stderr) => {
        const all = `${stdout}${stderr}`;
        const ours = all.split('\n').filter((line) => line.includes(file) || line.includes(basename(file)));
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, ours, all });
      },
    );
  });
}

/** The settings of an ordinary install (native unless overridden), for the runtime renderers. */
export function runtimeSettings(overrides: Partial<RuntimeSettings> = {}): RuntimeSettings {
  return {
    runtime: 'native',
    configDir: '/etc/meet',
    envFile: '/etc/meet/meet.env',
    dataDir: '/var/lib/meet',
    engineAddr: { host: '127.0.0.1', port: 3000 },
    compatAddr: { host: '127.0.0.1', port: 8088 },
    installDir: packageRootForUnit(),
    node: process.execPath,
    user: 'meet',
    ...overrides,
  };
}
