import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import type { Config } from '../config/settings.js';
import type { LockSettings } from '../engine/live/meeting-locks.js';
import type { EngineServices } from '../engine/services.js';
import { SqliteCompatStore } from './store/compat-store.js';
import { buildCompatApp } from './app.js';
import type { AccessLogOptions } from '../platform/access-log.js';
import { listeningUrl } from '../platform/listening-url.js';
import { MeetingAnswerCache } from './confapi/answer-cache.js';
import { CachedCompatStore } from './confapi/cached-store.js';
import { CallbackQueue, type CallbackOptions } from './confapi/callbacks.js';
import type { ConfapiDeps } from './confapi/context.js';
import { CompatMeetings } from './confapi/meetings.js';
import type { ChatRecord, CompatMeeting, RecordingRecord } from './confapi/model.js';
import { TargetGuard } from './confapi/target-guard.js';
import { meetingLiveView, type MeetingLiveView } from './live-view.js';
import { primaryOnly, RegistryError } from './tenants/parse.js';
import { TenantRegistry } from './tenants/registry.js';
import { watchTenants, type TenantWatch } from './tenants/watch.js';
import { checkGatewayConfig, GatewayKeys, gatewayActive, primaryAppIdOf } from './videoconf/gateway-keys.js';
import { gatewayScope } from './videoconf/gateway-rooms.js';

/** Join tokens made by `join` live this long: the platform sends the browser on at once. */
export const joinTokenTtlSecs = 15 * 60;

/** How often open meetings are compared with the engine (emptied, duration over, unused). */
const sweepIntervalMs = 1000;

export type CompatConfig = Pick<
  Config,
  | 'compatEnabled'
  | 'compatHttpAddr'
  | 'compatFrontendUrl'
  | 'compatApiSharedSecret'
  | 'compatApiDataDir'
  | 'compatDefaultRecord'
  | 'compatDefaultGuestPolicy'
  | 'compatCallbackAllow'
  | 'compatTenantHostSuffix'
  | 'jitsiAppId'
  | 'jitsiAppSecret'
  | 'jitsiAcceptedIssuers'
  | 'jitsiAcceptedAudiences'
  | 'jitsiAllowAnonymous'
  | 'jitsiWaitingRoom'
  | 'jitsiOpenRoomsPerClient'
  | 'tenantsFile'
  | 'waitingRoom'
  | 'waitingRoomMode'
  | 'trustedProxies'
>;

/** What the rest of the process may ask of the running module. */
export interface CompatModule {
  readonly url: string;
  /** The tenant registry (the embed gateway reads app ids and secrets from it). */
  readonly tenants: TenantRegistry | null;
  /** Replaces the view of the live connection (tests give one whose media state they choose). */
  setLiveView(view: MeetingLiveView): void;
  /** The lock settings a meeting-API meeting asked for in this room, or null when none lives there. */
  locksFor(roomId: string): LockSettings | null;
  /** What create said about the room's meeting beyond locks (mute on start, welcome). */
  meetingIn(roomId: string): CompatMeeting | null;
  /** The System chat messages posted through sendChatMessage in the room's current meeting. */
  systemChat(roomId: string): ChatRecord[];
  /** For a recording module: records a recording of a meeting (by internalMeetingID) and queues its recording-ready callback. */
  recordingReady(internalMeetingId: string, recording: Omit<RecordingRecord, 'tenantId' | 'meetingId' | 'internalId'>): Promise<RecordingRecord | null>;
  /** Whether the listener accepts connections (for /readyz). */
  listening(): boolean;
  /** The listener's server, for counting what it still holds when the daemon must exit. */
  readonly server: Server;
  /** Closes keep-alive connections with no request (`idle`), or every connection (`all`: the shutdown grace is over). */
  closeConnections(which: 'idle' | 'all'): void;
  stop(): Promise<void>;
}

export interface CompatOptions {
  readonly callbacks?: CallbackOptions;
  readonly live?: MeetingLiveView;
  /** The daemon's request log policy and summary, shared with the engine listener. */
  readonly accessLog?: AccessLogOptions;
}

/** Whether the compat listener runs: COMPAT_ENABLED=auto starts it when a surface is active. */
export function compatActive(config: CompatConfig): boolean {
  if (config.compatEnabled === 'false') return false;
  if (config.compatEnabled === 'true') return true;
  return config.compatApiSharedSecret !== null || gatewayActive(config);
}

/**
 * Starts the compat module in the daemon's process: its store, the tenant registry (watched
 * when SERVICE_TENANTS_FILE is set), the callback queue, the sweep and the listener on
 * COMPAT_HTTP_ADDR. Returns null when the module is not active. A broken registry at start
 * is a ConfigError (the daemon exits 2 naming the file, line and column).
 */
export async function startCompat(config: CompatConfig, services: EngineServices, log: Logger, options: CompatOptions = {}): Promise<CompatModule | null> {
  if (!compatActive(config)) return null;
  const clock = services.clock;
  const clog = log.child({ module: 'compat' });
  const apiActive = config.compatApiSharedSecret !== null;
  const videoconfActive = gatewayActive(config);
  if (videoconfActive) checkGatewayConfig(config);

  let watch: TenantWatch | null = null;
  let registry: TenantRegistry | null = null;
  if (apiActive || videoconfActive) {
    if (config.tenantsFile !== null) {
      try {
        watch = await watchTenants(config.tenantsFile, config.compatApiSharedSecret, clog, clock, primaryAppIdOf(config));
      } catch (err) {
        if (err instanceof RegistryError) {
          const where = err.line !== null ? `:${err.line}:${err.column}` : '';
          throw new ConfigError(`SERVICE_TENANTS_FILE ${config.tenantsFile}${where}: ${err.message}`);
        }
        throw err;
      }
      registry = watch.registry;
    } else {
      registry = new TenantRegistry(primaryOnly(config.compatApiSharedSecret), clock);
    }
  }

  let live: MeetingLiveView = options.live ?? meetingLiveView(services.live, services.stats);
  // Open meetings are served from memory, written through to SQLite (see cached-store.ts).
  let store: CachedCompatStore | null;
  try {
    store = apiActive ? new CachedCompatStore(new SqliteCompatStore(config.compatApiDataDir)) : null;
  } catch (err) {
    // A database this code must not open (newer schema, unreadable): the tenants watch would keep the refused process alive.
    await watch?.close();
    throw err;
  }
  const tenantSecret = (tenantId: string): string | null => registry?.current().byId.get(tenantId)?.apiSecret ?? null;
  const callbacks = store ? new CallbackQueue(store, new TargetGuard(config.compatCallbackAllow), clog, options.callbacks, tenantSecret) : null;
  const meetings =
    store && callbacks
      ? new CompatMeetings({
          store,
          rooms: services.rooms,
          meetings: services.meetings,
          clock,
          policy: config,
          callbacks,
          live: () => live,
          tenantSecret,
          onError: (err) => clog.error({ err }, 'compat sweep failed'),
        })
      : null;

  const deps: ConfapiDeps | null =
    store && meetings
      ? {
          meetings,
          store,
          infoAnswers: new MeetingAnswerCache(),
          tokens: services.tokens,
          live: () => live,
          engineMeetings: services.meetings,
          clock,
          frontendUrl: config.compatFrontendUrl,
          defaultRecord: config.compatDefaultRecord,
          defaultGuestPolicy: config.compatDefaultGuestPolicy,
          joinTokenTtlSecs,
        }
      : null;

  let stopped = false;
  const locksFor = (roomId: string): LockSettings | null => {
    if (stopped) return null;
    const meeting = store?.openMeetingInRoom(roomId);
    if (!meeting) return null;
    const locks = meeting.settings.lockSettings;
    return {
      mic: locks.lockSettingsDisableMic === true,
      cam: locks.lockSettingsDisableCam === true,
      camsModeratorsOnly: meeting.settings.webcamsOnlyForModerator,
    };
  };
  // A meeting's first lock settings come from its create call (the media side enforces them).
  if (store) {
    services.live.setLockDefaults(locksFor);
    services.live.setMuteOnStart((roomId) => !stopped && store.openMeetingInRoom(roomId)?.settings.muteOnStart === true);
  }

  // Before the listener opens: rooms of ended meetings are closed, open ones unlisted.
  meetings?.reconcileRooms();
  const videoconf = videoconfActive
    ? {
        keys: new GatewayKeys(config, registry),
        rooms: services.rooms,
        tokens: services.tokens,
        clock,
        frontendUrl: config.compatFrontendUrl,
        allowAnonymous: config.jitsiAllowAnonymous,
        waitingRoom: gatewayScope(config.jitsiWaitingRoom, config.waitingRoom),
        joinTokenTtlSecs,
        openRoomsPerClient: config.jitsiOpenRoomsPerClient,
      }
    : null;
  const app = await buildCompatApp(
    { confapi: apiActive && registry && deps ? { registry, deps, tenantHostSuffix: config.compatTenantHostSuffix } : null, videoconf },
    {
      loggerInstance: clog,
      trustedProxies: config.trustedProxies,
      frontendUrl: config.compatFrontendUrl,
      ...(options.accessLog ? { accessLog: options.accessLog } : {}),
    },
  );
  const sweeper = meetings ? setInterval(() => meetings.sweep(), sweepIntervalMs) : null;
  sweeper?.unref();
  callbacks?.start();

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (sweeper) clearInterval(sweeper);
    await app.close();
    await callbacks?.stop();
    await watch?.close();
    store?.close();
  };

  try {
    await app.listen({ host: config.compatHttpAddr.host, port: config.compatHttpAddr.port });
  } catch (err) {
    await stop();
    throw err;
  }
  const url = listeningUrl(app.server, config.compatHttpAddr);
  clog.info(
    { url, confapi: apiActive, videoconf: videoconfActive, tenants: registry?.current().tenants.length ?? 0, openMeetings: store?.openCount ?? 0 },
    `compat listening on ${url}`,
  );

  return {
    url,
    tenants: registry,
    setLiveView(view) {
      live = view;
    },
    locksFor,
    meetingIn(roomId) {
      return stopped ? null : (store?.openMeetingInRoom(roomId) ?? null);
    },
    systemChat(roomId) {
      const meeting = stopped ? null : store?.openMeetingInRoom(roomId);
      return meeting && store ? store.chatOf(meeting.internalId) : [];
    },
    async recordingReady(internalMeetingId, recording) {
      const meeting = store?.meeting(internalMeetingId) ?? null;
      if (!meeting || !meetings) return null;
      return meetings.recordingReady(meeting, recording);
    },
    listening: () => app.server.listening,
    server: app.server,
    closeConnections: (which) => (which === 'all' ? app.server.closeAllConnections() : app.server.closeIdleConnections()),
    stop,
  };
}
