import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import type { Clock } from '../engine/clock.js';
import { buildEngineApp, type EngineAppOptions } from '../http/app.js';
import { iceCredentials } from '../http/room/ice-servers.js';
import { openServices, type Services, type ServicesOptions } from './services.js';
import { openStoreBundle, type StoreBundle } from './store-bundle.js';

/** The engine's services and its listener's app, built from the config but not listening. */
export interface Engine {
  readonly services: Services;
  readonly app: Awaited<ReturnType<typeof buildEngineApp>>;
}

/**
 * Wires the engine as `meetctl serve` runs it: the services over the configured store (the data
 * directory's SQLite file, or SERVICE_DATABASE_URL's PostgreSQL, migrated at open), the app with the config's web and proxy settings, logging through `log`. The daemon
 * adds the initial token, the sweep and the listeners; tests build the same engine in-process
 * with their own clock and inject requests into it (test/helpers/app.ts).
 */
export async function openEngine(
  config: Config,
  clock: Clock,
  log: Logger,
  options: Pick<EngineAppOptions, 'readinessChecks' | 'accessLog' | 'clusterView'> &
    Pick<ServicesOptions, 'media' | 'scheduler' | 'counting' | 'passwordCost'> & {
      /** The meeting-API tenant whose meeting a room holds, for the `end` line (the compat module starts after the engine). */
      readonly tenantOf?: (roomId: string) => string | null;
      /** An opened store (a test's); the config's otherwise. The services own it either way. */
      readonly stores?: StoreBundle;
    } = {},
): Promise<Engine> {
  const { media, scheduler, counting, tenantOf, passwordCost, stores, ...appOptions } = options;
  const ice = iceCredentials(config, clock);
  const services = await openServices(config, stores ?? (await openStoreBundle(config)), clock, {
    log,
    ice,
    ...(media ? { media } : {}),
    ...(scheduler ? { scheduler } : {}),
    ...(counting ? { counting } : {}),
    ...(passwordCost ? { passwordCost } : {}),
  });
  // A meeting's end is a state change however it came (end call, last one out, sweep): ids only.
  // Asked before the compat module closes its meeting: the engine tells of the end first.
  services.meetings.onEnded((meeting) => {
    const tenant = tenantOf?.(meeting.roomId) ?? null;
    log.info(
      { event: 'end', room: meeting.roomId, meeting: meeting.meetingId, ...(tenant !== null ? { tenant } : {}) },
      'end',
    );
  });
  try {
    const app = await buildEngineApp(services, {
      loggerInstance: log,
      web: config,
      ice: config,
      site: { publicUrl: config.publicUrl },
      oidc:
        config.oidcIssuer === null
          ? null
          : {
              issuer: config.oidcIssuer,
              clientId: config.oidcClientId ?? '',
              clientSecret: config.oidcClientSecret ?? '',
              allowedDomains: config.oidcAllowedDomains,
              createAccounts: config.oidcCreateAccounts,
            },
      trustedProxies: config.trustedProxies,
      ...appOptions,
    });
    return { services, app };
  } catch (err) {
    await services.close();
    throw err;
  }
}
