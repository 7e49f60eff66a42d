import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const meetctl = fileURLToPath(new URL('../../bin/meetctl.js', import.meta.url));

export interface Daemon {
  readonly url: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Every line the daemon logged so far. */
  readonly lines: string[];
  readonly adminToken: string;
  api(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
}

/**
 * The environment every child Node a test starts inherits: PATH, and the CI's V8 compile cache
 * when the run has one (NODE_COMPILE_CACHE, Node 22.1+; Node 20 ignores it). A daemon start is
 * mostly compiling its modules, and the Node 24 leg starts a hundred or so; the cache is a speed
 * knob only, so what a test asserts of the child is the same with it or without it.
 */
function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH ?? '', ...(cache ? { NODE_COMPILE_CACHE: cache } : {}), ...env };
}

export function tempDataDir(prefix = 'meet-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts the built daemon (`meetctl serve`) on 127.0.0.1:0 with its own data directory and
 * resolves once it logs where it listens. The caller stops it (SIGTERM or SIGKILL).
 */
export async function startDaemon(
  options: {
    dataDir?: string;
    env?: Record<string, string>;
    args?: string[];
    /** Runs the daemon through another program (e.g. unshare) that ends by exec-ing `command`. */
    launcher?: (command: readonly string[]) => readonly string[];
  } = {},
): Promise<Daemon> {
  const dataDir = options.dataDir ?? tempDataDir();
  const command = [process.execPath, meetctl, 'serve', ...(options.args ?? [])];
  const [file, ...argv] = options.launcher ? options.launcher(command) : command;
  const child = spawn(file!, argv, {
    // The mesh unless a test asks for Janus: the default (auto) would start a Janus per daemon,
    // and pages in a loopback-only namespace get no media from it (Janus gathers no loopback candidates).
    env: childEnv({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      SERVICE_MEDIA: 'mesh',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`daemon did not start in 120 s:\n${lines.join('\n')}\n${stderr}`)),
      120_000,
    );
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        const listening = /"url":"(http:[^"]+)","msg":"engine listening/.exec(line);
        if (listening) {
          clearTimeout(timer);
          resolve(listening[1]!);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited (${code}) before listening:\n${lines.join('\n')}\n${stderr}`));
    });
  });
  const adminToken = initialAdminToken(dataDir);
  return { url, dataDir, child, lines, adminToken, api: apiOf(url, adminToken), exited };
}

/** The admin token a first start wrote into the data directory ('' on a restart, which writes none). */
export function initialAdminToken(dataDir: string): string {
  try {
    return readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  } catch {
    return '';
  }
}

/** Daemon['api'] for a daemon listening at `url`: the admin token unless `token` says otherwise, JSON for string bodies. */
export function apiOf(url: string, adminToken: string): Daemon['api'] {
  return (path, init = {}) => {
    const { token, ...rest } = init;
    const headers = new Headers(rest.headers);
    const bearer = token === undefined ? adminToken : token;
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    if (typeof rest.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${url}${path}`, { ...rest, headers });
  };
}

export async function stopDaemon(daemon: Daemon, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill(signal);
  return daemon.exited;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `meetctl ARGS` to completion (60 s at most: the suite runs files in parallel on small machines) with only PATH and `env` in its environment.
 * `realBin` runs bin/meetctl itself, without tap's loader (so without coverage).
 */
export function runMeetctl(
  args: readonly string[],
  env: Record<string, string> = {},
  realBin = false,
): Promise<CliResult> {
  const [file, argv] = realBin
    ? ['env', ['-u', 'NODE_OPTIONS', process.execPath, '--', meetctl, ...args]]
    : [process.execPath, ['--', meetctl, ...args]];
  return new Promise((resolve) => {
    execFile(file, argv, { env: childEnv(env), timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
