import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import type { Clock, Scheduler } from '../../src/engine/clock.js';
import type { ScryptCost } from '../../src/engine/accounts/password.js';
import { openEngine, type Engine } from '../../src/daemon/engine.js';
import { loggerOptions } from '../../src/daemon/logger.js';
import { systemClock } from '../../src/daemon/services.js';
import type { LazySchemas } from '../../src/http/lazy-schemas.js';
import { dataDirFor, type Server, type Tap } from './api.js';
import { memoryLog } from './memory-log.js';
import { sqliteStore, type ServiceStore } from './service-stores.js';

type EngineOwnRooms = NonNullable<NonNullable<Parameters<typeof openEngine>[3]>['ownRooms']>;
type EngineChannel = NonNullable<NonNullable<Parameters<typeof openEngine>[3]>['channel']>;

/** The engine built in-process: requests go through `app.inject`, no socket, no child process. */
export interface InProcess extends Server {
  readonly app: Engine['app'];
  readonly services: Engine['services'];
  readonly dataDir: string;
  /** The store it runs on: given again with `dataDir`, a new app restarts on the same data. */
  readonly store: ServiceStore;
  /** Every line the engine logged so far (JSON), as a daemon's stdout would hold them. */
  readonly lines: string[];
  /** Where it listens on 127.0.0.1, when built with `listen` (null otherwise). */
  readonly url: string | null;
  /** Closes the app, then the services (what teardown does; once): a test restarts on the same data directory after it. */
  close(): Promise<void>;
}

/** Statuses whose answer has no body: a fetch Response refuses one. */
const bodiless = new Set([101, 204, 205, 304]);

/**
 * Builds the engine the way `meetctl serve` does (src/daemon/engine.ts: the same config, store,
 * services and app) on a fresh data directory and `store` (SQLite's file there by default, or a
 * PostgreSQL database: service-stores.ts), with `clock` (a FakeClock
 * where time matters) instead of the system's. The periodic sweep does not run: a test that
 * needs it moves its clock and calls `await services.waiting.sweep()`, as the daemon's timer would.
 * `api` answers like fetch against a daemon, so the helpers of api.ts and waiting.ts work on both.
 * `listen` also opens its listener on 127.0.0.1 (for what looks at the socket: /readyz's
 * engine_listener check). Closed (app, then services) at teardown.
 */
export async function appFor(
  t: Tap,
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    scheduler?: Scheduler;
    dataDir?: string;
    /** SQLite (the default) or PostgreSQL, opened as the daemon opens SERVICE_DATABASE_URL. */
    store?: ServiceStore;
    listen?: boolean;
    /** A cheap scrypt cost for tests that set and check many passwords (the service's own otherwise). */
    passwordCost?: ScryptCost;
    /** Compiles the listener's schemas on first use; a test passes its own to see or force the compiles. */
    schemas?: LazySchemas;
    /** A clustered node's rooms (PostgreSQL only), as daemon/cluster.ts `own` makes them. */
    ownRooms?: EngineOwnRooms;
    /** A clustered node's signed channel (a room's requests forwarded, live sockets relayed, to its owner), as daemon/cluster.ts makes it. */
    channel?: EngineChannel;
  } = {},
): Promise<InProcess> {
  const dataDir = options.dataDir ?? dataDirFor(t);
  const store = options.store ?? sqliteStore;
  const config = loadConfig({
    env: { SERVICE_DATA_DIR: dataDir, SERVICE_HTTP_ADDR: '127.0.0.1:0', ...store.env, ...options.env },
  });
  const { lines, sink } = memoryLog();
  const log = pino(loggerOptions(config.logLevel, false), sink);
  const { services, app } = await openEngine(config, options.clock ?? systemClock, log, {
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.passwordCost ? { passwordCost: options.passwordCost } : {}),
    ...(options.schemas ? { schemas: options.schemas } : {}),
    ...(options.ownRooms ? { ownRooms: options.ownRooms } : {}),
    ...(options.channel ? { channel: options.channel } : {}),
  });
  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      await app.close();
      await services.close();
    })());
  t.teardown(close);
  let adminToken = '';
  await services.accessTokens.issueInitialToken((issued) => (adminToken = issued.token));
  await app.ready();
  let url: string | null = null;
  if (options.listen) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string')
      throw new Error(`appFor: unexpected listening address ${String(address)}`);
    url = `http://127.0.0.1:${address.port}`;
  }

  const api: Server['api'] = async (path, init = {}) => {
    const { token, body, method, headers: given } = init;
    const headers: Record<string, string> = {};
    new Headers(given).forEach((value, name) => (headers[name] = value));
    const bearer = token === undefined ? adminToken : token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    if (typeof body === 'string' && !('content-type' in headers)) headers['content-type'] = 'application/json';
    if (body !== undefined && body !== null && typeof body !== 'string')
      throw new Error('appFor: only string bodies are supported');
    const answer = await app.inject({
      method: (method ?? 'GET') as 'GET',
      url: path,
      headers,
      ...(typeof body === 'string' ? { payload: body } : {}),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(one));
    }
    return new Response(bodiless.has(answer.statusCode) ? null : new Uint8Array(answer.rawPayload), {
      status: answer.statusCode,
      headers: responseHeaders,
    });
  };
  return { app, services, dataDir, store, lines, url, adminToken, api, close };
}
