import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { compatActive, startCompat, type CompatModule } from '../compat/module.js';
import { buildEngineApp } from '../http/app.js';
import { licensedAtStart, watchLicence } from './licence-gate.js';
import { loggerOptions } from './logger.js';
import { RequestSummary, summarizeEvery } from './request-summary.js';
import { openServices, systemClock, type Services } from './services.js';
import { shutdownBackstopSecs } from './shutdown.js';

export const initialTokenFileName = 'initial-admin-token';

/** While stopping, how often keep-alive connections that finished their request are closed. */
const idleSweepMs = 100;

export interface RunningDaemon {
  readonly url: string;
  readonly log: Logger;
  /** SERVICE_SHUTDOWN_GRACE_SECS: how long stop() lets requests in flight finish. */
  readonly shutdownGraceSecs: number;
  /** Stops accepting, gives requests in flight the grace, cuts what remains, closes the database. */
  stop(): Promise<void>;
}

function writeInitialToken(dataDir: string, token: string): string {
  const file = join(dataDir, initialTokenFileName);
  try {
    unlinkSync(file);
  } catch {
    // absent, as it should be on a first start
  }
  // 'wx' with mode: the file is born readable by the owner only, never briefly wider.
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

function displayUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Opens the store, starts the engine listener and returns a handle that stops it gracefully. */
export async function startDaemon(config: Config, log: Logger = pino(loggerOptions(config.logLevel, process.stdout.isTTY === true))): Promise<RunningDaemon> {
  const services: Services = openServices(config);
  const initial = services.accessTokens.issueInitialToken((issued) => writeInitialToken(config.dataDir, issued.token));
  if (initial) {
    const file = join(config.dataDir, initialTokenFileName);
    log.info({ file }, `first admin access token written to ${file}`);
  }
  // The compat listener counts for readiness once the daemon means to run it; until it
  // listens (or when it was not started after all) /readyz says so.
  const compatExpected = compatActive(config);
  let compat: CompatModule | null | 'starting' = 'starting';
  // Both listeners count into one summary; a line per request only where access-log.ts says.
  const summary = new RequestSummary(systemClock);
  const accessLog = { policy: config.accessLog, slowMs: config.slowRequestMs, recorder: summary };
  const stopSummary = summarizeEvery(summary, config.requestSummarySecs * 1000, (line) => log.info(line, 'requests'));
  // A meeting's end is a state change however it came (end call, last one out, sweep): ids only.
  services.meetings.onEnded((meeting) => log.info({ event: 'end', room: meeting.roomId, meeting: meeting.meetingId }, 'end'));
  const compatCheck = () => (compat === 'starting' ? (compatExpected ? false : null) : compat ? compat.listening() : null);
  const app = await buildEngineApp(services, {
    loggerInstance: log,
    web: config,
    trustedProxies: config.trustedProxies,
    readinessChecks: [{ name: 'compat_listener', check: compatCheck }],
    accessLog,
  });
  services.startSweeping((err) => log.error({ err }, 'sweep failed'));
  try {
    await app.listen({ host: config.httpAddr.host, port: config.httpAddr.port });
    // The compat module (meeting API, later the embed gateway) runs in this process on its own listener, only when
    // installed with a valid server key (checked at start; see licence-gate.ts).
    const licensed = compatExpected && (await licensedAtStart('compat', config, log, new Date()));
    compat = licensed ? await startCompat(config, services, log, { accessLog }) : null;
  } catch (err) {
    stopSummary();
    await app.close();
    services.close();
    throw err;
  }
  const running = compat;
  const stopWatching = running ? watchLicence('compat', config, log, () => new Date()) : () => undefined;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.httpAddr.port;
  const url = displayUrl(config.httpAddr.host, port);
  log.info({ url }, `engine listening on ${url}`);
  const graceSecs = config.shutdownGraceSecs;
  const stop = async () => {
    stopWatching();
    // A connection that answered its last request while we stop would otherwise idle (keep-alive) until the grace ends.
    const idle = setInterval(() => {
      app.server.closeIdleConnections();
      running?.closeConnections('idle');
    }, idleSweepMs);
    const cut = setTimeout(() => {
      log.warn({ graceSecs }, 'shutdown grace over: closing the connections still open');
      app.server.closeAllConnections();
      // Upgraded sockets are no longer the HTTP server's; a peer that never answers the close frame would hold the stop.
      for (const client of app.websocketServer.clients) client.terminate();
      running?.closeConnections('all');
    }, graceSecs * 1000);
    try {
      // Both listeners stop accepting at once; the services they share close after both.
      await Promise.all([running?.stop(), app.close()]);
    } finally {
      clearInterval(idle);
      clearTimeout(cut);
      stopSummary();
      services.close();
    }
  };
  return { url, log, shutdownGraceSecs: graceSecs, stop };
}

/**
 * Stops accepting, lets in-flight requests finish within the shutdown grace, closes the
 * database, then exits 0. A stop that hangs past the grace and the backstop exits 0 anyway:
 * the supervisor's timeout (rendered from the same grace) must never be what ends it.
 */
export function stopOnSignals(daemon: RunningDaemon): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    daemon.log.info({ signal, graceSecs: daemon.shutdownGraceSecs }, 'stopping');
    setTimeout(() => {
      daemon.log.warn('stop still unfinished after the grace and the backstop: exiting');
      daemon.log.flush?.();
      process.exit(0);
    }, (daemon.shutdownGraceSecs + shutdownBackstopSecs) * 1000).unref();
    daemon.stop().then(
      () => {
        daemon.log.info('stopped');
        daemon.log.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        daemon.log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // `systemctl reload` sends SIGHUP (the tenants watch re-reads on it); without a listener
  // Node would die of it, and systemd counts SIGHUP as a clean exit, so nothing restarts it.
  process.on('SIGHUP', () => daemon.log.info('SIGHUP: the tenants file, when configured, is read again'));
}
