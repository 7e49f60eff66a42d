import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from './http.js';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const baselineServer = join(repoRoot, 'bench', 'baseline-server.mjs');

/** A server process the bench started: the bare Fastify baseline or a `meetctl serve` daemon. */
export interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  readonly logFile: string;
  /** When it was spawned and when it exited (epoch ms): the span of its CPU profile. */
  readonly life: { readonly spawnedAtMs: number; exitedAtMs: number | null };
  /** Resolves with the exit code or signal once the process is gone. */
  readonly exited: Promise<number | string>;
  /** SIGTERM (graceful; the daemon closes its database) or SIGKILL; resolves once it is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface Daemon extends Server {
  readonly dataDir: string;
  readonly compatUrl: string | null;
  readonly adminToken: string;
}

export interface ProcessSettings {
  /**
   * SERVICE_LOG_LEVEL of the daemons when --log-level is given; null: not set, so the daemon
   * runs at its default (info, with the default access log). The baseline has no logger either way.
   */
  readonly logLevel: string | null;
  /** When set, both servers run with --cpu-prof and write their profiles here. */
  readonly cpuProfDir: string | null;
  /** The launcher to serve with (default bin/meetctl.js of this tree; another tree's for an A/B comparison). */
  readonly meetctl: string;
}

/** A port free on loopback now (the servers are told it; the race with other programs is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function nodeArgs(settings: ProcessSettings, name: string): string[] {
  return settings.cpuProfDir
    ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`, `--cpu-prof-name=${name}.cpuprofile`]
    : [];
}

interface Launched {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  readonly life: { readonly spawnedAtMs: number; exitedAtMs: number | null };
}

function launch(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  settings: ProcessSettings,
  logFile: string,
): Launched {
  const log = openSync(logFile, 'a');
  const life: Launched['life'] = { spawnedAtMs: Date.now(), exitedAtMs: null };
  // Same node binary, same flags and the same small environment for the baseline and the daemons.
  const child = spawn(process.execPath, [...nodeArgs(settings, name), script, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      life.exitedAtMs = Date.now();
      resolve(code ?? signal ?? -1);
    }),
  );
  return { child, exited, life };
}

async function waitUntil(
  name: string,
  exited: Promise<number | string>,
  logFile: string,
  ready: () => Promise<boolean>,
): Promise<void> {
  // A holder, not a local: the callback's write is invisible to the narrowing of a local.
  const gone: { code: number | string | null } = { code: null };
  void exited.then((code) => (gone.code = code));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone.code !== null)
      throw new Error(`${name} exited (${gone.code}) before it was ready; its log (${logFile}):\n${tail(logFile)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${name} was not ready in 30 s; its log (${logFile}):\n${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

function stopper(child: ChildProcess, exited: Promise<number | string>) {
  return async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
}

/** The bare Fastify server of the baseline scenario (bench/baseline-server.mjs): no logger, no options. */
export async function startBaseline(settings: ProcessSettings, workDir: string): Promise<Server> {
  const port = await freePort();
  const logFile = join(workDir, 'baseline.log');
  const { child, exited, life } = launch(
    'baseline',
    baselineServer,
    [],
    { BASELINE_ADDR: `127.0.0.1:${port}` },
    settings,
    logFile,
  );
  const url = `http://127.0.0.1:${port}`;
  const client = new Client(url, 1);
  await waitUntil(
    'baseline server',
    exited,
    logFile,
    async () => (await client.request('GET', '/baseline')).status === 200,
  );
  client.close();
  return { name: 'baseline', child, pid: child.pid!, url, logFile, life, exited, stop: stopper(child, exited) };
}

interface LicenceApi {
  licenceKeyPair(): { privateKeyPem: string; publicKeyPem: string };
  issueServerKey(
    privatePem: string,
    grant: { customer: string; modules: string[]; days: number },
    now: Date,
  ): Promise<string>;
  verifyServerKey(key: string, publicKey: unknown, module: string, now: Date): Promise<unknown>;
  licencePublicKey(pem: string): unknown;
}

/**
 * Installs a compat licence of a throw-away authority in `dataDir`, through this tree's built
 * code (the bench builds it first), and returns the environment that makes the daemon trust it.
 */
async function installBenchLicence(dataDir: string): Promise<Record<string, string>> {
  const dist = (file: string) => pathToFileURL(join(repoRoot, 'dist', 'licence', file)).href;
  const keys = (await import(dist('server-key.js'))) as LicenceApi;
  const installation = (await import(dist('installation.js'))) as {
    writeInstallation(dataDir: string, module: string, key: string, licence: unknown): void;
  };
  const pair = keys.licenceKeyPair();
  const now = new Date();
  const key = await keys.issueServerKey(pair.privateKeyPem, { customer: 'bench', modules: ['compat'], days: 365 }, now);
  installation.writeInstallation(
    dataDir,
    'compat',
    key,
    await keys.verifyServerKey(key, keys.licencePublicKey(pair.publicKeyPem), 'compat', now),
  );
  return { SERVICE_LICENSE_PUBLIC_KEY: pair.publicKeyPem };
}

/**
 * `meetctl serve` on loopback with its own data directory, the compat listener on a second
 * port when `compatSecret` is given. Ready once both listeners answer.
 *
 * The daemon runs at its default configuration: it is given only what it cannot do without
 * (its data directory and loopback address; for the meeting API its secret, listener, link base
 * and the bench's licence; the tenants file when there is one), then `options.env` (the
 * scenario's own settings and --daemon-env) and SERVICE_LOG_LEVEL only when --log-level says.
 */
export async function startDaemon(
  name: string,
  settings: ProcessSettings,
  options: {
    dataDir: string;
    workDir: string;
    compatSecret?: string;
    tenantsFile?: string;
    env?: Record<string, string>;
  },
): Promise<Daemon> {
  const port = await freePort();
  const compatPort = options.compatSecret ? await freePort() : null;
  // serve starts the compat module only when it is installed with a valid server key.
  const licence = options.compatSecret ? await installBenchLicence(options.dataDir) : {};
  const env: Record<string, string> = {
    ...licence,
    SERVICE_DATA_DIR: options.dataDir,
    SERVICE_HTTP_ADDR: `127.0.0.1:${port}`,
    ...(settings.logLevel !== null ? { SERVICE_LOG_LEVEL: settings.logLevel } : {}),
    ...(compatPort !== null && options.compatSecret
      ? {
          COMPAT_HTTP_ADDR: `127.0.0.1:${compatPort}`,
          COMPAT_API_SHARED_SECRET: options.compatSecret,
          COMPAT_FRONTEND_URL: `http://127.0.0.1:${port}`,
        }
      : {}),
    ...(options.tenantsFile ? { SERVICE_TENANTS_FILE: options.tenantsFile } : {}),
    ...options.env,
  };
  const logFile = join(options.workDir, `${name}.log`);
  const { child, exited, life } = launch(name, settings.meetctl, ['serve'], env, settings, logFile);
  const url = `http://127.0.0.1:${port}`;
  const compatUrl = compatPort !== null ? `http://127.0.0.1:${compatPort}` : null;
  const engine = new Client(url, 1);
  const compat = compatUrl ? new Client(compatUrl, 1) : null;
  await waitUntil(name, exited, logFile, async () => {
    if ((await engine.request('GET', '/room/bench-ready/exists')).status !== 404) return false;
    return compat === null || (await compat.request('GET', '/confapi/api')).status === 200;
  });
  engine.close();
  compat?.close();
  // A second node of a cluster (one database) finds the first token issued already: none is written.
  const tokenFile = join(options.dataDir, 'initial-admin-token');
  const adminToken = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '';
  return {
    name,
    child,
    pid: child.pid!,
    url,
    compatUrl,
    dataDir: options.dataDir,
    adminToken,
    logFile,
    life,
    exited,
    stop: stopper(child, exited),
  };
}
