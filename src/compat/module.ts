import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { EngineServices } from '../engine/services.js';
import { listeningUrl } from '../platform/listening-url.js';
import type { CompatConfig, CompatOptions, CompatParts } from './build.js';
import { gatewayActive } from './videoconf/gateway-keys.js';

/** What the rest of the process may ask of the running module. */
export interface CompatModule extends CompatParts {
  readonly url: string;
  /** Whether the listener accepts connections (for /readyz). */
  listening(): boolean;
  /** The listener's server, for counting what it still holds when the daemon must exit. */
  readonly server: Server;
  /** Closes keep-alive connections with no request (`idle`), or every connection (`all`: the shutdown grace is over). */
  closeConnections(which: 'idle' | 'all'): void;
}

/** Whether the compat listener runs: COMPAT_ENABLED=auto starts it when a surface is active. */
export function compatActive(config: CompatConfig): boolean {
  if (config.compatEnabled === 'false') return false;
  if (config.compatEnabled === 'true') return true;
  return config.compatApiSharedSecret !== null || gatewayActive(config);
}

/**
 * Starts the compat module in the daemon's process: builds it (build.ts), starts its sweep and
 * callback queue, and listens on COMPAT_HTTP_ADDR. Returns null when the module is not active.
 */
export async function startCompat(
  config: CompatConfig,
  services: EngineServices,
  log: Logger,
  options: CompatOptions = {},
): Promise<CompatModule | null> {
  if (!compatActive(config)) return null;
  const clog = log.child({ module: 'compat' });
  // Loaded here: a daemon without the module (its default) never reads the meeting API, the
  // gateway, their XML and their tenants' watcher.
  const { buildCompat } = await import('./build.js');
  const built = await buildCompat(config, services, clog, options);
  const { app } = built;
  built.run();
  try {
    await app.listen({ host: config.compatHttpAddr.host, port: config.compatHttpAddr.port });
  } catch (err) {
    await built.stop();
    throw err;
  }
  const url = listeningUrl(app.server, config.compatHttpAddr);
  clog.info({ url, ...built.summary() }, `compat listening on ${url}`);

  return {
    url,
    tenants: built.tenants,
    setLiveView: (view) => built.setLiveView(view),
    locksFor: (roomId) => built.locksFor(roomId),
    meetingIn: (roomId) => built.meetingIn(roomId),
    systemChat: (roomId) => built.systemChat(roomId),
    recordingReady: (internalMeetingId, recording) => built.recordingReady(internalMeetingId, recording),
    listening: () => app.server.listening,
    server: app.server,
    closeConnections: (which) =>
      which === 'all' ? app.server.closeAllConnections() : app.server.closeIdleConnections(),
    stop: () => built.stop(),
  };
}
