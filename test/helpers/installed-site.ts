import type { Tap } from './api.js';
import { daemonFor } from './api.js';
import { runCli } from './cli.js';
import { logMatch } from './compat.js';
import type { Daemon } from './daemon.js';
import { world, type World } from './install-world.js';
import { testServerKey } from './licence.js';
import { freePort, freePorts, nginxPrefixFor, type TestNginx } from './nginx.js';

/** The operator's path in a temporary root: install, the daemon from its env file, `meetctl nginx` from the same file, nginx. */
export interface InstalledSite {
  readonly world: World;
  /** The env file install wrote (what systemd's EnvironmentFile= hands the daemon). */
  readonly env: Record<string, string>;
  readonly daemon: Daemon;
  readonly nginx: TestNginx;
  /** Where nginx answers (http-only unless `flags` say otherwise: then `start` is up to the test). */
  readonly url: string;
  readonly port: number;
}

/**
 * `meetctl install compat` (public address https://meet.test, fixed free loopback ports, as
 * nginx needs them), a daemon started from the env file alone, `meetctl nginx --out` reading
 * that env file (so `server_name` and the upstreams are install's), then a test nginx with the
 * site. `flags` replace the default `--http-only --listen 127.0.0.1:<port>`; with `start: false`
 * nginx is left for the test to start.
 */
export async function installedSite(
  t: Tap,
  options: { flags?: (port: number, nginx: TestNginx) => string[]; start?: boolean } = {},
): Promise<InstalledSite> {
  const w = world(t);
  const [enginePort, compatPort] = await freePorts(2);
  const installed = await w.install([
    '--key',
    await testServerKey(),
    '--no-open-rooms',
    '--yes',
    '--public-url',
    'https://meet.test',
    '--http-addr',
    `127.0.0.1:${enginePort}`,
    '--compat-http-addr',
    `127.0.0.1:${compatPort}`,
  ]);
  if (installed.code !== 0) throw new Error(`meetctl install compat failed (${installed.code}): ${installed.stderr}`);
  const env = w.envFile();
  const daemon = await daemonFor(t, { dataDir: w.data, env });
  await logMatch(daemon, /"msg":"compat listening/, 20_000);
  const nginx = nginxPrefixFor(t);
  const port = await freePort();
  const flags = options.flags?.(port, nginx) ?? ['--http-only', '--listen', `127.0.0.1:${port}`];
  const site = await runCli(['nginx', ...flags, '--site-access-log', nginx.accessLog, '--out', nginx.site], {
    SERVICE_CONFIG_DIR: w.etc,
  });
  if (site.code !== 0) throw new Error(`meetctl nginx failed (${site.code}): ${site.stderr}`);
  if (options.start !== false) await nginx.start(port);
  return { world: w, env, daemon, nginx, url: `http://127.0.0.1:${port}`, port };
}
