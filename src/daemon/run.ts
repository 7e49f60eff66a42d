import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { localFrontendUrl, type Config } from '../config/settings.js';
import { serviceVersion } from '../config/version.js';
import { giveToDirectoryOwner } from '../platform/file-owner.js';
import { SchemaTooNewError } from '../platform/migrate.js';
import { compatActive, startCompat, type CompatModule } from '../compat/module.js';
import { accountLinkUrl, listeningUrl } from '../platform/listening-url.js';
import { licensedAtStart, watchLicence } from './licence-gate.js';
import { closeCodes } from '../protocol/live.js';
import { endLog, loggerOptions } from './logger.js';
import { countOpenWork } from './open-work.js';
import { RequestSummary, summarizeEvery } from './request-summary.js';
import { listenMetrics, type MetricsListener } from './metrics-listener.js';
import { openEngine } from './engine.js';
import { narrowDataModes } from './private-data.js';
import { startMedia } from './media-choice.js';
import { systemClock, systemScheduler } from './services.js';
import { joinCluster, stampNode } from './cluster.js';
import type { Scheduler } from '../engine/clock.js';
import type { Licence } from '../licence/server-key.js';

export const initialTokenFileName = 'initial-admin-token';
/** The first admin account's one-time link (to set its password), written on the first start beside the token. */
export const initialAccountLinkFileName = 'initial-admin-link';

/** While stopping, how often keep-alive connections that finished their request are closed. */
const idleSweepMs = 100;

/** How long an exit waits for the log's last lines: a clean stop (within the grace), a forced one. */
const cleanLogWithinMs = 1000;
const forcedLogWithinMs = 250;

/** What a forced exit logs as still open: counts only, nothing a client sent. */
export interface OpenWork {
  readonly engine: { readonly connections: number; readonly requests: number; readonly liveSockets: number };
  readonly compat?: { readonly connections: number; readonly requests: number };
}

export interface RunningDaemon {
  readonly url: string;
  readonly log: Logger;
  /** SERVICE_SHUTDOWN_GRACE_SECS: how long a signal lets stop() take before the process exits anyway. */
  readonly shutdownGraceSecs: number;
  /** Stops accepting, closes live sockets (4503), waits for requests in flight, commits queued writes, closes the database. */
  stop(): Promise<void>;
  /** Connections, requests in flight and live sockets still open, per listener. */
  openWork(): OpenWork;
  /** For an exit that cannot wait: every connection cut, queued writes committed, the database closed. Synchronous. */
  abort(): void;
}

function writeInitialToken(dataDir: string, token: string, fileName = initialTokenFileName): string {
  const file = join(dataDir, fileName);
  try {
    unlinkSync(file);
  } catch {
    // absent, as it should be on a first start
  }
  // 'wx' with mode: the file is born readable by the owner only, never briefly wider.
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  giveToDirectoryOwner(file);
  return file;
}

/** A database newer than this code is the operator's to fix (a downgrade): exit 2, naming both versions, as a bad setting does. */
function refusingNewerSchema(err: unknown): unknown {
  return err instanceof SchemaTooNewError
    ? new ConfigError(`${err.message} (this is meeting-service ${serviceVersion})`)
    : err;
}

/**
 * Where a person reaches the rooms: the public base the operator set (COMPAT_FRONTEND_URL, where
 * join links lead), else the engine listener, a wildcard host shown as localhost (a browser
 * cannot open 0.0.0.0).
 */
export function urlToOpen(config: Pick<Config, 'compatFrontendUrl'>, listening: string): string {
  // COMPAT_FRONTEND_URL is SERVICE_PUBLIC_URL unless set apart; only the built-in fallback says nothing of this machine.
  if (config.compatFrontendUrl !== localFrontendUrl) return config.compatFrontendUrl.replace(/\/+$/, '');
  return listening.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://localhost');
}

/** What a test may put in place of the real thing: the licence gate's clock and how often it re-checks (daily), the live meeting's timers. */
export interface DaemonOptions {
  readonly now?: () => Date;
  readonly licenceCheckMs?: number;
  readonly scheduler?: Scheduler;
}

/** Opens the store, starts the engine listener and returns a handle that stops it gracefully. */
export async function startDaemon(
  config: Config,
  log: Logger = pino(loggerOptions(config.logLevel, process.stdout.isTTY === true)),
  options: DaemonOptions = {},
): Promise<RunningDaemon> {
  const now = options.now ?? (() => new Date());
  // First, so that even a start refused below says which release refused it.
  log.info({ version: serviceVersion }, `meeting-service ${serviceVersion} starting`);
  // Before Janus, the stores or the signing key open anything in the data directory.
  narrowDataModes(config, log);
  // The compat listener counts for readiness once the daemon means to run it; until it
  // listens (or when it was not started after all) /readyz says so.
  const compatExpected = compatActive(config);
  let compat: CompatModule | null | 'starting' = 'starting';
  // Both listeners count into one summary; a line per request only where access-log.ts says.
  const summary = new RequestSummary(systemClock);
  // SERVICE_METRICS_ADDR unset: no registry (prom-client is not even loaded), and a request costs
  // what it did without metrics.
  const metrics = config.metricsAddr ? new (await import('./metrics.js')).ServiceMetrics() : null;
  const accessLog = {
    policy: config.accessLog,
    slowMs: config.slowRequestMs,
    recorder: metrics ? metrics.recorderWith(summary) : summary,
  };
  const compatCheck = () =>
    compat === 'starting' ? (compatExpected ? false : null) : compat ? compat.listening() : null;
  // A configured module the licence gate refused (absent, expired or forged key, unreadable
  // record) leaves the platforms with 502 while the engine is fine: monitoring must see it.
  const compatModuleCheck = () => (compatExpected ? compat !== null : null);
  // SERVICE_NATS_URL: a node of a cluster; NATS out of reach stops the start (69) before Janus runs.
  const cluster = await joinCluster(config, systemClock, options.scheduler ?? systemScheduler, log);
  // Janus (SERVICE_MEDIA) starts first: auto falls back to the mesh, janus refuses to start without it.
  const media = await startMedia(config, log).catch(async (err: unknown) => {
    await cluster?.leave();
    throw err;
  });
  let opened: Awaited<ReturnType<typeof openEngine>>;
  try {
    opened = await openEngine(config, systemClock, log, {
      readinessChecks: [
        { name: 'compat_listener', check: compatCheck },
        { name: 'compat_module', check: compatModuleCheck },
        ...(media.readiness ? [media.readiness] : []),
        ...(cluster ? [cluster.readiness] : []),
      ],
      ...(cluster
        ? {
            clusterView: () => cluster.view(),
            ownRooms: (stores) => cluster.own(stores),
            nodeChannel: (signingKey) => cluster.channel(signingKey),
          }
        : {}),
      accessLog,
      media: media.factory,
      tenantOf: (roomId) =>
        compat !== null && compat !== 'starting' ? (compat.meetingIn(roomId)?.tenantId ?? null) : null,
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      ...(metrics
        ? {
            counting: {
              groupCommit: (group: 'knocks' | 'stats') => metrics.groupCommit(group),
              waiting: metrics.waiting,
            },
          }
        : {}),
    });
  } catch (err) {
    await media.close();
    await cluster?.leave();
    throw refusingNewerSchema(err);
  }
  const { services, app } = opened;
  log.info(
    { store: services.storeKind },
    `serving from ${services.storeKind === 'postgres' ? 'PostgreSQL' : 'SQLite'}`,
  );
  const initial = await services.accessTokens.issueInitialToken((issued) =>
    writeInitialToken(config.dataDir, issued.token),
  );
  if (initial) {
    const file = join(config.dataDir, initialTokenFileName);
    log.info({ file }, `first admin access token written to ${file}`);
  }
  const stopSummary = summarizeEvery(summary, config.requestSummarySecs * 1000, (line) => log.info(line, 'requests'));
  services.startSweeping((err) => log.error({ err }, 'sweep failed'));
  const ownJanus = media.process;
  metrics?.attach({
    waitingRequests: () => services.waiting.waitingCount(),
    liveConnections: () => app.websocketServer.clients.size,
    meetingsRunning: () => services.meetings.openMeetings().length,
    now,
    ...(media.readiness
      ? { janus: { up: () => media.readiness?.check() === true, restarts: () => ownJanus?.restarts ?? 0 } }
      : {}),
  });
  const licenceSeen = metrics ? (licence: Licence) => metrics.licence('compat', licence) : undefined;
  let metricsListener: MetricsListener | null = null;
  if (cluster) stampNode(app.server, cluster.nodeId);
  try {
    await app.listen({ host: config.httpAddr.host, port: config.httpAddr.port });
    // Before the compat module: a live node under this id refuses the start (exit 1).
    if (cluster && services.nodes)
      await cluster.register(services.nodes, listeningUrl(app.server, config.httpAddr), () => ({
        openRooms: services.meetings.openMeetings().length,
        liveSockets: app.websocketServer.clients.size,
      }));
    if (metrics && config.metricsAddr) {
      metricsListener = await listenMetrics(config.metricsAddr, metrics, log);
      log.info({ url: metricsListener.url }, `metrics listening on ${metricsListener.url}`);
    }
    // The compat module (meeting API, later the embed gateway) runs in this process on its own listener, only when
    // installed with a valid server key (checked at start; see licence-gate.ts).
    const licensed = compatExpected && (await licensedAtStart('compat', config, log, now(), licenceSeen));
    // On PostgreSQL the meeting API's store is the engine's database (schema meet_compat), its writes in the engine's units.
    const compatStore = services.compatStore ? { store: services.compatStore } : {};
    compat = licensed ? await startCompat(config, services, log, { accessLog, ...compatStore }) : null;
    if (cluster && compat) stampNode(compat.server, cluster.nodeId);
  } catch (err) {
    await cluster?.leave();
    stopSummary();
    await metricsListener?.close();
    await app.close();
    await services.close();
    await media.close();
    throw refusingNewerSchema(err);
  }
  const running = compat;
  const stopWatching = running
    ? watchLicence('compat', config, log, now, options.licenceCheckMs, licenceSeen)
    : () => undefined;
  const url = listeningUrl(app.server, config.httpAddr);
  log.info({ url }, `engine listening on ${url}`);
  const openUrl = urlToOpen(config, url);
  log.info(
    { version: serviceVersion, openUrl },
    `meeting-service ${serviceVersion} ready: rooms open at ${openUrl}/room/<room id>`,
  );
  // The first start (no account yet) makes an admin account; its one-time link goes to a private file, as the token does.
  const firstAdmin = await services.accounts.addFirstAdmin(`admin@${new URL(openUrl).hostname}`);
  if (firstAdmin) {
    const link = accountLinkUrl(openUrl, firstAdmin.token);
    const file = writeInitialToken(config.dataDir, link, initialAccountLinkFileName);
    log.info(
      { file, account: firstAdmin.account.email },
      `first admin account ${firstAdmin.account.email}: its one-time link to set the password (valid 72 h) is in ${file}`,
    );
  }
  const graceSecs = config.shutdownGraceSecs;
  const engineWork = countOpenWork(app.server);
  const compatWork = running ? countOpenWork(running.server) : null;
  const stop = async () => {
    stopWatching();
    // Live sockets first, with the code the page reads as "the service restarts" (it comes back by itself);
    // @fastify/websocket would close them with no code at all.
    for (const client of app.websocketServer.clients) client.close(closeCodes.restarting, 'service restarting');
    // A connection that answered its last request while we stop would otherwise idle (keep-alive) until the deadline.
    const idle = setInterval(() => {
      app.server.closeIdleConnections();
      engineWork.closeUnused();
      running?.closeConnections('idle');
      compatWork?.closeUnused();
    }, idleSweepMs);
    try {
      // Both listeners stop accepting at once and wait for their requests in flight; the services they share close after both.
      await Promise.all([running?.stop(), app.close(), metricsListener?.close()]);
    } finally {
      clearInterval(idle);
      stopSummary();
      // Gone in the others' view at once, while the database is still open.
      await cluster?.leave().catch((err: unknown) => log.warn({ err }, 'leaving the cluster failed'));
      // Knocks queued for the group commit are written, then the database closes.
      await services.close();
      await media.close();
    }
  };
  const openWork = (): OpenWork => ({
    engine: {
      connections: engineWork.connections(),
      requests: engineWork.requests(),
      liveSockets: app.websocketServer.clients.size,
    },
    ...(compatWork ? { compat: { connections: compatWork.connections(), requests: compatWork.requests() } } : {}),
  });
  const abort = () => {
    app.server.closeAllConnections();
    // Upgraded sockets are no longer the HTTP server's.
    for (const client of app.websocketServer.clients) client.terminate();
    running?.closeConnections('all');
    metricsListener?.closeNow();
    // A forced exit: the queued writes get what time the exit leaves them; the others see this node dead after the beat timeout.
    void cluster?.leave().catch(() => undefined);
    services.close().catch(() => undefined);
    // No time to wait: Janus gets its signal and dies with its configuration on the next start.
    media.process?.kill();
  };
  return { url, log, shutdownGraceSecs: graceSecs, stop, openWork, abort };
}

/**
 * SIGTERM and SIGINT: stop() (stop accepting, live sockets closed with 4503, requests in flight
 * answered, queued writes committed, database closed), then exit 0. The process never outlives
 * the grace: at SERVICE_SHUTDOWN_GRACE_SECS, or at a second signal, it logs what was still open
 * (counts only), cuts every connection, commits and closes the database and exits 1. Exits go
 * through endLog, never a bare process.exit (see there why).
 */
export function stopOnSignals(daemon: RunningDaemon): void {
  let stopping = false;
  let exiting = false;
  let deadlineAt = 0;
  const exit = (code: number, logWithinMs: number) => {
    exiting = true;
    void endLog(daemon.log, logWithinMs).then(() => process.exit(code));
  };
  const forced = (msg: string, fields: Record<string, unknown>) => {
    if (exiting) return;
    daemon.log.error({ ...fields, open: daemon.openWork() }, msg);
    try {
      daemon.abort();
    } catch (err) {
      daemon.log.error({ err }, 'closing the database failed');
    }
    exit(1, forcedLogWithinMs);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      forced(`${signal} while stopping: exiting now with work still open`, { signal });
      return;
    }
    stopping = true;
    const graceMs = daemon.shutdownGraceSecs * 1000;
    deadlineAt = Date.now() + graceMs;
    daemon.log.info({ signal, graceSecs: daemon.shutdownGraceSecs }, 'stopping');
    // Ref'd on purpose: a stop waiting on something that keeps no handle open must still end here, not vanish.
    const deadline = setTimeout(
      () => forced('shutdown grace over: exiting with work still open', { graceSecs: daemon.shutdownGraceSecs }),
      graceMs,
    );
    const remaining = () => Math.min(cleanLogWithinMs, Math.max(forcedLogWithinMs, deadlineAt - Date.now()));
    daemon.stop().then(
      () => {
        clearTimeout(deadline);
        if (exiting) return;
        daemon.log.info('stopped');
        exit(0, remaining());
      },
      (err: unknown) => {
        clearTimeout(deadline);
        if (exiting) return;
        daemon.log.error({ err }, 'stop failed');
        exit(1, remaining());
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // `systemctl reload` sends SIGHUP (the tenants watch re-reads on it); without a listener
  // Node would die of it, and systemd counts SIGHUP as a clean exit, so nothing restarts it.
  process.on('SIGHUP', () => daemon.log.info('SIGHUP: the tenants file, when configured, is read again'));
}
