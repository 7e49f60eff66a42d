// The compat listener built in this process, like the engine's appFor (app.ts): the engine and
// the compat module wired as `meetctl serve` wires them (openEngine, then buildCompat on its
// services, licence installed and checked first), on one store for both (SQLite's files in a
// fresh data directory by default, or a PostgreSQL database: service-stores.ts), answering through `inject` with no socket and no child process.
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import type * as Build from '../../src/compat/build.js';
import type { BuiltCompat, CompatOptions } from '../../src/compat/build.js';
import type * as Module from '../../src/compat/module.js';
import type * as Load from '../../src/config/load.js';
import type { Config } from '../../src/config/settings.js';
import type { Clock } from '../../src/engine/clock.js';
import type * as EngineModule from '../../src/daemon/engine.js';
import type { Engine } from '../../src/daemon/engine.js';
import type * as LicenceGate from '../../src/daemon/licence-gate.js';
import type * as LoggerModule from '../../src/daemon/logger.js';
import type * as Summary from '../../src/daemon/request-summary.js';
import type * as ServicesModule from '../../src/daemon/services.js';
import type * as OwnershipModule from '../../src/engine/cluster/ownership.js';
import type * as ChannelModule from '../../src/engine/cluster/node-channel.js';
import type { ClusterBus } from '../../src/engine/cluster/bus.js';
import type { NodeChannel } from '../../src/engine/cluster/node-channel.js';
import type { RoomOwnership } from '../../src/engine/cluster/ownership.js';
import { FakeScheduler, type FakeClock } from './fake-clock.js';
import type { Tap } from './api.js';
import type { CompatServer } from './compat.js';
import { tempDataDir, type Daemon } from './daemon.js';
import { injectFetch, mount } from './inject-fetch.js';
import { installTestLicence } from './licence.js';
import { memoryLog } from './memory-log.js';
import { sqliteStore, type ServiceStore } from './service-stores.js';

// The built modules (dist/, what `meetctl serve` runs), typed by their sources, as
// in-process-daemon.ts loads them: cheaper than transpiling the daemon's sources in each test.
// An error a test matches by class (ConfigError) must come from dist/ too: see builtModule.
const built = <T>(path: string): Promise<T> =>
  import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;

/** A module of dist/ (for a class to compare thrown errors with: `(await builtModule('config/config-error.js')).ConfigError`). */
export const builtModule = built;

async function modules() {
  const [build, module, load, engine, gate, logger, summary, services, ownership, channel] = await Promise.all([
    built<typeof Build>('compat/build.js'),
    built<typeof Module>('compat/module.js'),
    built<typeof Load>('config/load.js'),
    built<typeof EngineModule>('daemon/engine.js'),
    built<typeof LicenceGate>('daemon/licence-gate.js'),
    built<typeof LoggerModule>('daemon/logger.js'),
    built<typeof Summary>('daemon/request-summary.js'),
    built<typeof ServicesModule>('daemon/services.js'),
    built<typeof OwnershipModule>('engine/cluster/ownership.js'),
    built<typeof ChannelModule>('engine/cluster/node-channel.js'),
  ]);
  return {
    ...build,
    ...module,
    ...load,
    ...engine,
    ...gate,
    ...logger,
    ...summary,
    ...services,
    ...ownership,
    ...channel,
  };
}

/** Both apps in this process: `url` (engine) and `compatUrl` answer through injectFetch, as a daemon's URLs answer fetch. */
export interface CompatApp extends CompatServer {
  readonly config: Config;
  /** The store both run on: given again with `dataDir`, a new app restarts on the same data. */
  readonly store: ServiceStore;
  readonly services: Engine['services'];
  readonly engineApp: Engine['app'];
  readonly compatApp: FastifyInstance;
  readonly compat: BuiltCompat;
  /** One pass of the compat sweep (ends emptied, overdue and unused meetings), as the daemon's timer runs it every second. */
  sweep(): Promise<void>;
  /** fetch that reaches `url` and `compatUrl` without a socket (and anything else over the network). */
  readonly fetch: typeof injectFetch;
  /** Closes both apps, then the services (what teardown does; once): a test restarts on the same data after it. */
  close(): Promise<void>;
  /** A node of a cluster (the `cluster` option): its rooms' ownership and its signed channel. */
  readonly node?: { readonly ownership: RoomOwnership; readonly channel: NodeChannel };
}

export interface CompatAppOptions {
  /** The environment beside the data directory (COMPAT_API_SHARED_SECRET, COMPAT_JITSI_*, …). */
  readonly env?: Record<string, string>;
  /**
   * A FakeClock for tests of time: the daemon's timers (engine and compat sweeps) then do not run;
   * the test moves the clock and calls `sweep()` / `await services.waiting.sweep()`. Without one, the
   * system clock and both sweeps run as in the daemon.
   */
  readonly clock?: Clock;
  /** Kept by the caller (not removed at teardown), e.g. to build again on the same files; SERVICE_DATA_DIR in `env` counts as given. */
  readonly dataDir?: string;
  /**
   * SQLite (the default) or PostgreSQL, opened as the daemon opens SERVICE_DATABASE_URL: the
   * engine's and the meeting API's stores from the one bundle, as `meetctl serve` wires them.
   */
  readonly store?: ServiceStore;
  readonly compat?: CompatOptions;
  /**
   * Also opens both listeners on 127.0.0.1 (port 0) and gives their real URLs, for what needs a
   * socket: live sockets, a client library with its own HTTP stack. Still no child process.
   */
  readonly listen?: boolean;
  /**
   * A node of a cluster on a PostgreSQL `store` (issue 35), as test/helpers/cluster-engines.ts
   * makes one: its rooms' ownership over the leases (beats never run: a lease lasts until the fake
   * clock passes it), `alive` the nodes' view of who lives, and its signed channel over `bus`.
   */
  readonly cluster?: {
    readonly nodeId: string;
    readonly bus: ClusterBus;
    readonly clock: FakeClock;
    readonly alive: () => readonly string[];
  };
}

async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`compatAppFor: unexpected listening address ${String(address)}`);
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Builds the engine and the compat module of `meetctl serve` in this process (closed, and a data
 * directory it made removed, at teardown). A configuration the daemon refuses rejects with the
 * daemon's error (a ConfigError is what `meetctl serve` exits 2 with).
 */
export async function compatAppFor(t: Tap, options: CompatAppOptions = {}): Promise<CompatApp> {
  const {
    buildCompat,
    compatActive,
    loadConfig,
    openEngine,
    licensedAtStart,
    loggerOptions,
    RequestSummary,
    systemClock,
    RoomOwnership: Ownership,
    NodeChannel: Channel,
    channelKey,
  } = await modules();
  const given = options.dataDir ?? options.env?.SERVICE_DATA_DIR;
  const dataDir = given ?? tempDataDir('meet-compat-app-');
  if (given === undefined) t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const licence = await installTestLicence(dataDir);
  const store = options.store ?? sqliteStore;
  const config = loadConfig({
    env: {
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_HTTP_ADDR: '127.0.0.1:0',
      SERVICE_MEDIA: 'mesh',
      ...licence,
      ...store.env,
      ...options.env,
    },
  });
  if (!compatActive(config))
    throw new Error('compatAppFor: neither the meeting API nor the embed gateway is configured');
  const { lines, sink } = memoryLog();
  const log = pino(loggerOptions(config.logLevel, false), sink);
  let compat: BuiltCompat | null = null;
  // One request log for both listeners, as the daemon's (run.ts): lines per SERVICE_ACCESS_LOG.
  const accessLog = {
    policy: config.accessLog,
    slowMs: config.slowRequestMs,
    recorder: new RequestSummary(systemClock),
  };
  const cluster = options.cluster;
  let ownership: RoomOwnership | null = null;
  const { services, app: engineApp } = await openEngine(config, cluster?.clock ?? options.clock ?? systemClock, log, {
    accessLog,
    tenantOf: (roomId) => compat?.meetingIn(roomId)?.tenantId ?? null,
    ...(cluster
      ? {
          ownRooms: (stores) => {
            const made = new Ownership({
              leases: stores.leases,
              nodeId: cluster.nodeId,
              clock: cluster.clock,
              scheduler: new FakeScheduler(cluster.clock),
              aliveNodes: async () => [...cluster.alive()],
            });
            stores.fenceWith(made);
            return (ownership = made);
          },
        }
      : {}),
  });
  const node =
    cluster && ownership
      ? {
          ownership: ownership as RoomOwnership,
          channel: new Channel(cluster.bus, channelKey(services.signingKey), cluster.nodeId, cluster.clock),
        }
      : undefined;
  // Torn down in the daemon's order: listeners' apps, then the services they share.
  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      await Promise.all([compat?.stop(), engineApp.close()]);
      await services.close();
    })());
  t.teardown(close);
  let adminToken = '';
  await services.accessTokens.issueInitialToken((issued) => (adminToken = issued.token));
  await engineApp.ready();
  // The licence is real (the test authority's key): its gate decides with the real date, as the daemon's does.
  if (!(await licensedAtStart('compat', config, log, new Date())))
    throw new Error(`compatAppFor: the licence gate refused the module:\n${lines.join('\n')}`);
  // The meeting API's store from the engine's bundle where it has one (PostgreSQL), as run.ts passes it.
  const bundled = services.compatStore ? { store: services.compatStore } : {};
  compat = await buildCompat(config, services, log.child({ module: 'compat' }), {
    accessLog,
    ...bundled,
    ...(node ? { cluster: node } : {}),
    ...options.compat,
  });
  await compat.app.ready();
  if (!options.clock && !cluster) {
    compat.run();
    services.startSweeping((err) => log.error({ err }, 'sweep failed'));
  }
  const engine = mount('engine', engineApp);
  const compatMount = mount('compat', compat.app);
  t.teardown(() => {
    engine.unmount();
    compatMount.unmount();
  });
  const url = options.listen ? await listenOnLoopback(engineApp) : engine.origin;
  const compatUrl = options.listen ? await listenOnLoopback(compat.app) : compatMount.origin;

  const api: Daemon['api'] = (path, init = {}) => {
    const { token, ...rest } = init;
    const headers = new Headers(rest.headers);
    const bearer = token === undefined ? adminToken : token;
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    if (typeof rest.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return injectFetch(`${url}${path}`, { ...rest, headers });
  };
  const built = compat;
  return {
    url,
    compatUrl,
    dataDir,
    store,
    lines,
    adminToken,
    api,
    config,
    services,
    engineApp,
    compatApp: built.app,
    compat: built,
    sweep: () => built.sweep(),
    fetch: injectFetch,
    close,
    ...(node ? { node } : {}),
  };
}
