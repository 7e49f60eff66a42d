// The whole daemon (startDaemon of src/daemon/run.ts: engine and, when licensed, the compat
// listener, both on real sockets) started in this process, its log kept in memory. For tests
// of what the daemon decides and logs at start; what only a process shows (signals, exit
// codes, stdout) stays with the spawned daemon of daemon.ts. It runs the built modules
// (dist/, what `meetctl serve` runs), typed by their sources: loading them costs less than
// transpiling the daemon's sources in the test process.
import { pino } from 'pino';
import type { loadConfig as LoadConfig } from '../../src/config/load.js';
import type { loggerOptions as LoggerOptions } from '../../src/daemon/logger.js';
import type { DaemonOptions, RunningDaemon, startDaemon as StartDaemon } from '../../src/daemon/run.js';
import type { Tap } from './api.js';
import { memoryLog } from './memory-log.js';

const built = (path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href);

export interface InProcessDaemon {
  readonly url: string;
  readonly dataDir: string;
  /** Every line the daemon logged so far (JSON), as its stdout would hold them. */
  readonly lines: string[];
  readonly running: RunningDaemon;
  /** What SIGTERM does before the exit: stop accepting, finish, close. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts the daemon on 127.0.0.1:0 with `env` as its whole environment (beside the data directory); stopped at teardown. */
export async function inProcessDaemonFor(t: Tap, dataDir: string, env: Record<string, string> = {}, options: DaemonOptions = {}): Promise<InProcessDaemon> {
  const [{ loadConfig }, { loggerOptions }, { startDaemon }] = (await Promise.all([
    built('config/load.js'),
    built('daemon/logger.js'),
    built('daemon/run.js'),
  ])) as [{ loadConfig: typeof LoadConfig }, { loggerOptions: typeof LoggerOptions }, { startDaemon: typeof StartDaemon }];
  const config = loadConfig({ env: { SERVICE_DATA_DIR: dataDir, SERVICE_HTTP_ADDR: '127.0.0.1:0', ...env } });
  const { lines, sink } = memoryLog();
  const running = await startDaemon(config, pino(loggerOptions(config.logLevel, false), sink), options);
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= running.stop());
  t.teardown(stop);
  return { url: running.url, dataDir, lines, running, stop };
}
