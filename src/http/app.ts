import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { EngineServices } from '../engine/services.js';
import { apiAuth, ownerScope } from './api/bearer-auth.js';
import type { AccountSite } from './api/account-cookie.js';
import { accountRoutes } from './api/account-routes.js';
import { ApiRouteTable, openApiRoute } from './api/openapi.js';
import { roomsRoutes } from './api/rooms-routes.js';
import { waitingApiRoutes } from './api/waiting-routes.js';
import type { IceSettings } from './room/ice-servers.js';
import type { RoomGate } from './room/room-owner.js';
import { trustRule } from './room/forward-message.js';
import { roomRoutes } from './room/room-routes.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { healthRoutes } from './health/health-routes.js';
import { Readiness, type ReadinessCheck } from '../engine/health/readiness.js';
import type { LiveHub } from '../engine/live/live-hub.js';
import { liveRoutes, maxFrameBytes, type LiveRelayRoute } from './live/live-routes.js';
import { webRoutes, type WebOptions } from './web/web-routes.js';
import { accountPageRoutes } from './web/account-pages.js';
import { oidcRoutes } from './auth/oidc-routes.js';
import type { OidcSettings } from './auth/oidc-client.js';
import { engineFamily, installAccessLog, type AccessLogOptions } from '../platform/access-log.js';
import { lazyRequestLogger, withoutRequestLines } from '../platform/request-logger.js';
import { validatorOptions } from './validation.js';
import { LazySchemas } from './lazy-schemas.js';

export const bodyLimitBytes = 64 * 1024;

/** How long a database write probe answers /readyz before the next one runs. */
export const readinessProbeReuseMs = 1000;

/** Builds the engine listener without listening, so tests can drive it over a real socket or inject. */
export interface EngineAppOptions extends Pick<FastifyServerOptions, 'loggerInstance'> {
  readonly web?: WebOptions;
  /** Proxies whose X-Forwarded-For is believed (request.ip is then the client they name). */
  readonly trustedProxies?: readonly string[];
  /** Checks /readyz adds to the database write probe and this listener (the compat listener). */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** The request log policy and where requests are counted (absent: no request lines at all). */
  readonly accessLog?: AccessLogOptions;
  /** The STUN/TURN servers admitted pages are handed (absent: none). */
  readonly ice?: IceSettings;
  /** The service's public address: the organisers' cookie and CSRF origin (absent: the request's own). */
  readonly site?: AccountSite;
  /** Single sign-on (OpenID Connect); absent: off, its routes answer 404. */
  readonly oidc?: OidcSettings | null;
  /** A clustered node's view for /readyz (node id, nodes alive: no addresses, no secrets); absent on a single node. */
  readonly clusterView?: () => Promise<Record<string, unknown>>;
  /** A clustered node's rooms (issue 35 stage 2): room addresses served by their owner only; absent on a single node. */
  readonly roomGate?: RoomGate;
  /** A clustered node's relay of live sockets to their room's owner (issue 35 point 3); absent on a single node. */
  readonly liveRelay?: LiveRelayRoute;
  /** Compiles the routes' schemas on first use (absent: a new one); a test passes its own to compile them all. */
  readonly schemas?: LazySchemas;
}

export async function buildEngineApp(
  services: EngineServices<LiveHub>,
  options: EngineAppOptions = {},
): Promise<FastifyInstance> {
  const {
    web,
    trustedProxies,
    readinessChecks,
    accessLog,
    ice,
    site = { publicUrl: null },
    oidc = null,
    clusterView,
    roomGate,
    liveRelay,
    schemas = new LazySchemas(),
    ...fastifyOptions
  } = options;
  const app = Fastify({
    ...fastifyOptions,
    // Two lines per request (every waiting poll) halved throughput; access-log.ts decides instead.
    logController: withoutRequestLines(),
    // The request's child logger is made only when it writes a line (nearly never at the default access log).
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: bodyLimitBytes,
    // The configured proxies, and the inter-node path of a request another node forwarded (cluster).
    trustProxy: trustRule(trustedProxies ?? ['127.0.0.1', '::1']),
    return503OnClosing: true,
    // Routes declare their bodies and queries as schemas; a value is taken as sent or refused (validation.ts).
    ajv: validatorOptions,
    schemaController: { compilersFactory: schemas.compilersFactory },
    forceCloseConnections: 'idle',
    // A URL that cannot be decoded: Fastify's own answer echoes the URL and skips the hooks.
    frameworkErrors: (error, request, reply) => {
      errorHandler(error, request, reply.header('x-content-type-options', 'nosniff'));
    },
  });
  // Only JSON bodies are part of the API; anything else is answered with 415.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Every answer, JSON and errors included: a browser must never sniff a body into HTML or script.
  // A callback hook, not async: no promise per request.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  app.decorateRequest('actor', null);
  app.decorateRequest('account', null);
  if (roomGate) app.addHook('onRequest', roomGate.check);
  if (accessLog) installAccessLog(app, accessLog, engineFamily);
  // Before any route: it wraps every route so that only the live route accepts an upgrade.
  await app.register(websocket, { options: { maxPayload: maxFrameBytes } });

  const apiRoutes = new ApiRouteTable();
  await app.register(
    async (api) => {
      apiRoutes.watch(api);
      // The organiser's own routes need no access token; the rooms API takes a token or her session cookie.
      await api.register(accountRoutes(services.accounts, site, oidc !== null));
      await api.register(async (rooms) => {
        rooms.addHook('onRequest', apiAuth(services.accessTokens, services.accounts, site));
        rooms.addHook(
          'preHandler',
          ownerScope((roomId) => services.rooms.find(roomId)),
        );
        // After the token and the organiser's scope: only who may see the room learns where it is served.
        if (roomGate) rooms.addHook('preHandler', roomGate.checkApi);
        await rooms.register(roomsRoutes(services.rooms, services.accounts, roomGate?.placement));
        await rooms.register(waitingApiRoutes(services));
      });
    },
    { prefix: '/api' },
  );
  // Outside the token's scope: the document of the API is public, made from the routes above.
  await app.register(openApiRoute(apiRoutes));
  const readiness = new Readiness(
    [
      // At most one probe write a second, however often /readyz is asked.
      {
        name: 'database',
        check: () => services.database.probeWrite().then(() => true),
        reuseMs: readinessProbeReuseMs,
      },
      { name: 'engine_listener', check: () => app.server.listening },
      ...(readinessChecks ?? []),
    ],
    services.clock,
    (name, err) => app.log.warn({ err, check: name }, `readiness check ${name} failing`),
  );
  await app.register(healthRoutes(() => readiness.report(), clusterView));
  await app.register(roomRoutes(services, ice));
  const { tokens, meetings, live } = services;
  await app.register(liveRoutes({ tokens, meetings, live, ...(liveRelay ? { relay: liveRelay } : {}) }));
  await app.register(webRoutes(web ?? { waitingRoom: 'optional', embedAncestors: [] }, services.tokens));
  await app.register(accountPageRoutes());
  if (oidc) await app.register(oidcRoutes(services.accounts, services.clock, oidc, site));
  return app;
}
