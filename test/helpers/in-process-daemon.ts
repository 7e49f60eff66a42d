// The whole daemon (startDaemon of src/daemon/run.ts: engine and, when licensed, the compat
// listener, both on real sockets) started in this process, its log kept in memory. For tests
// of what the daemon decides, answers and logs; what only a process shows (signals, exit
// codes, stdout and stderr, kill -9) stays with the spawned daemon of daemon.ts. It runs the
// built modules (dist/, what `meetctl serve` runs), typed by their sources: loading them costs
// less than transpiling the daemon's sources in the test process.
import { pino } from 'pino';
import type { loadConfig as LoadConfig } from '../../src/config/load.js';
import type { loggerOptions as LoggerOptions } from '../../src/daemon/logger.js';
import type { DaemonOptions, RunningDaemon, startDaemon as StartDaemon } from '../../src/daemon/run.js';
import type { Tap } from './api.js';
import { apiOf, initialAdminToken, type Daemon } from './daemon.js';
import { memoryLog } from './memory-log.js';

const built = (path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href);

/** What the API helpers (api.ts, waiting.ts, live.ts) need of a daemon, as the spawned one offers it. */
export interface InProcessDaemon extends Pick<Daemon, 'url' | 'dataDir' | 'lines' | 'adminToken' | 'api'> {
  readonly running: RunningDaemon;
  /** What SIGTERM does before the exit: stop accepting, finish, close. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the daemon on 127.0.0.1:0 with `env` as its whole environment (beside the data directory;
 * the mesh unless SERVICE_MEDIA says otherwise, as daemon.ts does); stopped at teardown.
 */
export async function inProcessDaemonFor(
  t: Tap,
  dataDir: string,
  env: Record<string, string> = {},
  options: DaemonOptions = {},
): Promise<InProcessDaemon> {
  const [{ loadConfig }, { loggerOptions }, { startDaemon }] = (await Promise.all([
    built('config/load.js'),
    built('daemon/logger.js'),
    built('daemon/run.js'),
  ])) as [
    { loadConfig: typeof LoadConfig },
    { loggerOptions: typeof LoggerOptions },
    { startDaemon: typeof StartDaemon },
  ];
  const config = loadConfig({
    env: { SERVICE_DATA_DIR: dataDir, SERVICE_HTTP_ADDR: '127.0.0.1:0', SERVICE_MEDIA: 'mesh', ...env },
  });
  const { lines, sink } = memoryLog();
  const running = await startDaemon(config, pino(loggerOptions(config.logLevel, false), sink), options);
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= running.stop());
  t.teardown(stop);
  // Written by the start itself (run.ts), as `meetctl serve` writes it.
  const adminToken = initialAdminToken(dataDir);
  return { url: running.url, dataDir, lines, adminToken, api: apiOf(running.url, adminToken), running, stop };
}
