import { execFile } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { readIfExists, withFileLock, writeFileAtomic } from '../platform/atomic-file.js';

/** How meetctl runs nginx: the binary and the arguments that pick its prefix and main file. */
export interface NginxCommand {
  readonly bin: string;
  /** Put before -t / -s reload, e.g. ['-p', prefix, '-c', conf]; empty for the system's nginx. */
  readonly args: readonly string[];
}

export interface NginxRun {
  readonly ok: boolean;
  /** nginx writes its verdict (and its errors) on standard error. */
  readonly output: string;
  /** The program could not be started at all (ENOENT, EACCES). */
  readonly missing: NodeJS.ErrnoException | null;
}

export function runNginx(nginx: NginxCommand, extra: readonly string[]): Promise<NginxRun> {
  return new Promise((done) => {
    execFile(nginx.bin, [...nginx.args, ...extra], { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      const missing =
        error && typeof (error as NodeJS.ErrnoException).code === 'string' ? (error as NodeJS.ErrnoException) : null;
      done({ ok: error === null, output: `${stdout}${stderr}`.trim(), missing });
    });
  });
}

/** The site file and where nginx is told to read it (a link in sites-enabled, Debian's layout). */
export interface SiteLocation {
  readonly siteFile: string;
  /** The directory nginx includes; the same as the site file's directory means no link. */
  readonly enabledDir: string;
}

export type LinkState = 'none' | 'ours' | 'other';

export function linkPath(location: SiteLocation): string | null {
  const site = resolve(location.siteFile);
  const enabled = resolve(location.enabledDir);
  return enabled === dirname(site) ? null : join(enabled, basename(site));
}

export function linkState(location: SiteLocation): LinkState {
  const link = linkPath(location);
  if (link === null) return 'ours';
  let stat;
  try {
    stat = lstatSync(link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw err;
  }
  if (!stat.isSymbolicLink()) return 'other';
  return resolve(dirname(link), readlinkSync(link)) === resolve(location.siteFile) ? 'ours' : 'other';
}

/** Remembers what is at `path` (a link's target, or a file's bytes and mode) and returns how to put it back. */
function takeAside(path: string): (path: string) => void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(path);
    return (p) => symlinkSync(target, p);
  }
  const bytes = readFileSync(path);
  return (p) => writeFileAtomic(p, bytes, stat.mode & 0o7777);
}

/** What an install did, for the operator and the tests. */
export type InstallOutcome = 'unchanged' | 'installed';

/** Failures the CLI maps to its error table; plain data, so this file needs nothing of the CLI. */
export class InstallFailure extends Error {
  override readonly name = 'InstallFailure';
  constructor(
    readonly reason: 'differs' | 'link-taken' | 'test-failed' | 'reload-failed' | 'no-nginx',
    message: string,
    readonly nginxOutput = '',
  ) {
    super(message);
  }
}

export interface InstallSteps {
  /** Runs one visible step (progress on standard error). */
  readonly step: <T>(title: string, work: () => Promise<T>) => Promise<T>;
}

/**
 * Writes the site file and its link, tests the whole nginx configuration and reloads nginx
 * only when the test passed. A failed test puts back exactly what was there (the old bytes,
 * or no file and no link), so the running nginx and its next restart see the old site.
 * One install at a time per site file (a lock file beside it).
 */
export async function installSite(
  location: SiteLocation,
  content: string,
  force: boolean,
  nginx: NginxCommand,
  steps: InstallSteps,
): Promise<InstallOutcome> {
  const siteFile = resolve(location.siteFile);
  return withFileLock(`${siteFile}.lock`, async () => {
    const before = readIfExists(siteFile);
    const link = linkPath(location);
    const linked = linkState(location);
    if (before !== null && before !== content && !force) {
      throw new InstallFailure('differs', `${siteFile} exists and differs from the generated configuration`);
    }
    if (linked === 'other' && !force) {
      throw new InstallFailure('link-taken', `${link} exists and is not a link to ${siteFile}`);
    }
    if (before === content && linked === 'ours') return 'unchanged';

    // What --force replaces in the enabled directory, kept to be put back if the test fails.
    const replaced = link !== null && linked === 'other' ? takeAside(link) : null;
    writeFileAtomic(siteFile, content, 0o644);
    if (link !== null && linked !== 'ours') {
      rmSync(link, { force: true });
      symlinkSync(siteFile, link);
    }
    const undo = () => {
      if (before === null) rmSync(siteFile, { force: true });
      else writeFileAtomic(siteFile, before, 0o644);
      if (link !== null && linked !== 'ours') rmSync(link, { force: true });
      if (link !== null && replaced) replaced(link);
    };

    // A failure inside a step marks that step failed (✗) before the error is reported.
    await steps.step('testing the nginx configuration (nginx -t)', async () => {
      const test = await runNginx(nginx, ['-t']);
      if (test.missing) {
        undo();
        throw new InstallFailure('no-nginx', `cannot run ${nginx.bin}: ${test.missing.code ?? test.missing.message}`);
      }
      if (!test.ok) {
        undo();
        const restored = before === null ? `${siteFile} removed again` : `${siteFile} restored to its previous content`;
        throw new InstallFailure(
          'test-failed',
          `nginx -t failed; ${restored}, nginx not reloaded:\n${test.output}`,
          test.output,
        );
      }
    });
    await steps.step('reloading nginx (nginx -s reload)', async () => {
      const reload = await runNginx(nginx, ['-s', 'reload']);
      if (!reload.ok) {
        throw new InstallFailure(
          'reload-failed',
          `nginx -t passed and ${siteFile} is in place, but nginx -s reload failed:\n${reload.output}`,
          reload.output,
        );
      }
    });
    return 'installed';
  });
}
