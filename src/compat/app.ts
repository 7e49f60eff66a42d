import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { cachedFamilies, installAccessLog, type AccessLogOptions } from '../platform/access-log.js';
import type { ConfapiDeps } from './confapi/context.js';
import { apiPrefixes, calls, confapiRoutes, maxBodyBytes, tenantApiPrefixes } from './confapi/routes.js';
import { TenantChooser } from './confapi/tenant-choice.js';
import type { TenantRegistry } from './tenants/registry.js';
import { gatewayRoutes, type GatewayDeps } from './videoconf/gateway-routes.js';
import { scriptRoutes } from './videoconf/script-routes.js';
import { lazyRequestLogger, withoutRequestLines } from '../platform/request-logger.js';

/** Fastify's framework errors (a URL that cannot be decoded, an over-long parameter): the client's. */
function badUrl(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  reply.code(400).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send('Bad Request');
}

export interface CompatSurfaces {
  /** The meeting API, when COMPAT_API_SHARED_SECRET is set. */
  readonly confapi: {
    readonly registry: TenantRegistry;
    readonly deps: ConfapiDeps;
    /** COMPAT_TENANT_HOST_SUFFIX: `{tenant}` + this host name names the tenant; '' when hosts name none. */
    readonly tenantHostSuffix?: string;
  } | null;
  /** The embed gateway (/videoconf/{room}), when COMPAT_JITSI_APP_SECRET is set or open rooms are allowed. */
  readonly videoconf?: GatewayDeps | null;
}

/**
 * The compat module's listener (COMPAT_HTTP_ADDR): one Fastify instance for both surfaces.
 * The meeting API is an encapsulated plugin under each of its paths (/confapi/api and the
 * upstream /bigbluebutton/api), with its own body parsing and its own error handler (XML,
 * HTTP 200); the embed gateway registers beside it.
 */
export interface CompatAppOptions extends Pick<FastifyServerOptions, 'loggerInstance'> {
  /** Proxies whose X-Forwarded-For is believed (SERVICE_TRUSTED_PROXIES, the same list as the engine listener's). */
  readonly trustedProxies?: readonly string[];
  /** COMPAT_FRONTEND_URL: where the meeting pages are, written into external_api.js. */
  readonly frontendUrl: string;
  /** The request log policy and where requests are counted, shared with the engine listener. */
  readonly accessLog?: AccessLogOptions;
}

/** One family per implemented call (a fixed set), so an unknown name cannot grow the summary. */
const callFamilies = new Map(Object.keys(calls).map((call) => [call, `confapi.${call}`]));

/** confapi.<call> (confapi.other for calls it does not implement), confapi.version, videoconf, static. */
const compatFamily = cachedFamilies(
  (route) => {
    if (route?.endsWith('/:call')) return null;
    if (route?.endsWith('/external_api.js')) return 'static';
    if (route?.includes('/videoconf/')) return 'videoconf';
    return 'confapi.version';
  },
  (request) => callFamilies.get((request.params as { call?: string }).call ?? '') ?? 'confapi.other',
);

export async function buildCompatApp(surfaces: CompatSurfaces, options: CompatAppOptions): Promise<FastifyInstance> {
  const { trustedProxies, frontendUrl, accessLog, ...fastifyOptions } = options;
  const app = Fastify({
    ...fastifyOptions,
    // Fastify's two lines per request are replaced by the shared access log (platform/access-log.ts).
    logController: withoutRequestLines(),
    // The request's child logger is made only when it writes a line (nearly never at the default access log).
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: maxBodyBytes,
    trustProxy: [...(trustedProxies ?? ['127.0.0.1', '::1'])],
    return503OnClosing: true,
    routerOptions: {
      // The Ruby gem (Greenlight) builds `${endpoint}/${call}`, and an endpoint entered as
      // `…/api/` gives `…/api//create`; upstream's nginx merges the slashes, so do we.
      ignoreDuplicateSlashes: true,
      // Gateway room names are up to 200 characters, percent-encoded in the path (up to 9 bytes each).
      maxParamLength: 2048,
    },
    forceCloseConnections: 'idle',
    // A URL that cannot be decoded: Fastify's own answer echoes the URL and skips the hooks.
    frameworkErrors: badUrl,
  });
  if (accessLog) installAccessLog(app, accessLog, compatFamily);
  // Every answer (XML, redirects, errors): a browser must never sniff a body into HTML or script.
  // A callback hook, not async: no promise per request.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  // The embedding script is public and the same for every surface: served whenever the listener runs.
  await app.register(scriptRoutes(frontendUrl));
  if (surfaces.confapi) {
    const { registry, deps, tenantHostSuffix = '' } = surfaces.confapi;
    // One chooser for every path, so a client's remembered tenant holds whichever path it uses.
    const tenants = new TenantChooser(
      registry,
      (meetingId) => deps.meetings.owners(meetingId),
      tenantHostSuffix.toLowerCase(),
    );
    // One plugin per path: the same pipeline, registry and state, only the URL differs.
    for (const prefix of [...apiPrefixes, ...tenantApiPrefixes]) {
      await app.register(
        async (api) => {
          // Bodies arrive raw: the pipeline decides by call what a body may be (form or XML) and refuses the rest.
          api.removeAllContentTypeParsers();
          api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (_request, body, done) =>
            done(null, body),
          );
          await api.register(confapiRoutes(tenants, deps));
        },
        { prefix },
      );
    }
  }
  if (surfaces.videoconf) await app.register(gatewayRoutes(surfaces.videoconf));
  return app;
}
