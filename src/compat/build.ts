import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import type { Config } from '../config/settings.js';
import type { LockSettings } from '../engine/live/meeting-locks.js';
import type { EngineServices } from '../engine/services.js';
import type { NodeChannel } from '../engine/cluster/node-channel.js';
import type { RoomOwnership } from '../engine/cluster/ownership.js';
import type { AccessLogOptions } from '../platform/access-log.js';
import { buildCompatApp } from './app.js';
import { MeetingAnswerCache } from './confapi/answer-cache.js';
import type { AsyncCompatStore } from './confapi/async-store.js';
import { CachedCompatStore } from './confapi/cached-store.js';
import { CallbackQueue, type CallbackOptions } from './confapi/callbacks.js';
import type { ConfapiDeps } from './confapi/context.js';
import { ClusterMeetings } from './confapi/cluster-meetings.js';
import { CompatMeetings } from './confapi/meetings.js';
import { NodeLink, ownerRoute } from './confapi/node-link.js';
import { ownerSide } from './confapi/owner-side.js';
import { SharedCompatStore } from './confapi/shared-store.js';
import type { ChatRecord, CompatMeeting, RecordingRecord } from './confapi/model.js';
import { TargetGuard } from './confapi/target-guard.js';
import { meetingLiveView, type MeetingLiveView } from './live-view.js';
import { asyncSqliteCompatStore } from './store/async-sqlite.js';
import { SqliteCompatStore } from './store/compat-store.js';
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
  | 'jitsiMaxTokenLifetime'
  | 'compatAuthenticatedGuest'
  | 'tenantsFile'
  | 'waitingRoom'
  | 'waitingRoomMode'
  | 'trustedProxies'
>;

export interface CompatOptions {
  readonly callbacks?: CallbackOptions;
  readonly live?: MeetingLiveView;
  /** The daemon's request log policy and summary, shared with the engine listener. */
  readonly accessLog?: AccessLogOptions;
  /**
   * The meeting API's store (issue 34 point 2): the PostgreSQL adapter when SERVICE_DATABASE_URL
   * names PostgreSQL; absent, SQLite's file in COMPAT_API_DATA_DIR behind the asynchronous port.
   * Given, the caller owns it (the module does not close it).
   */
  readonly store?: AsyncCompatStore;
  /**
   * A node of a cluster (issue 35): its signed channel and its rooms' ownership. The store is then
   * read on every call (no node's memory answers for what all nodes write), and the calls only a
   * meeting's owner can run go to it.
   */
  readonly cluster?: {
    readonly channel: NodeChannel;
    readonly ownership: Pick<RoomOwnership, 'where' | 'onGained'>;
  };
}

/** What the module offers the rest of the process whether or not it listens. */
export interface CompatParts {
  /** The tenant registry (the embed gateway reads app ids and secrets from it). */
  readonly tenants: TenantRegistry | null;
  /** Replaces the view of the live connection (tests give one whose media state they choose). */
  setLiveView(view: MeetingLiveView): void;
  /** The lock settings a meeting-API meeting asked for in this room, or null when none lives there. */
  locksFor(roomId: string): LockSettings | null;
  /** What create said about the room's meeting beyond locks (mute on start, welcome). */
  meetingIn(roomId: string): CompatMeeting | null;
  /** The System chat messages posted through sendChatMessage in the room's current meeting. */
  systemChat(roomId: string): Promise<ChatRecord[]>;
  /** For a recording module: records a recording of a meeting (by internalMeetingID) and queues its recording-ready callback. */
  recordingReady(
    internalMeetingId: string,
    recording: Omit<RecordingRecord, 'tenantId' | 'meetingId' | 'internalId'>,
  ): Promise<RecordingRecord | null>;
  stop(): Promise<void>;
}

/** The module built and not listening: its app answers `inject`, and nothing runs until `run()`. */
export interface BuiltCompat extends CompatParts {
  readonly app: FastifyInstance;
  /** One comparison of open meetings with the engine, what the running module does every second. */
  sweep(): Promise<void>;
  /** Starts the timed work: the sweep every second and the callback queue. */
  run(): void;
  /** What the listener's start line reports. */
  summary(): { confapi: boolean; videoconf: boolean; tenants: number; openMeetings: number };
}

function tenantsFileError(file: string, err: unknown): unknown {
  if (!(err instanceof RegistryError)) return err;
  const where = err.line !== null ? `:${err.line}:${err.column}` : '';
  return new ConfigError(`SERVICE_TENANTS_FILE ${file}${where}: ${err.message}`);
}

/**
 * Builds the compat module on the engine's services and clock, without listening: its store,
 * the tenant registry (watched when SERVICE_TENANTS_FILE is set), the callback queue and the
 * app for both surfaces; rooms of ended meetings are closed and open ones unlisted before it
 * returns. A broken registry is a ConfigError (the daemon exits 2 naming the file, line and
 * column). The caller decides whether the module is active (module.ts compatActive).
 */
export async function buildCompat(
  config: CompatConfig,
  services: EngineServices,
  log: Logger,
  options: CompatOptions = {},
): Promise<BuiltCompat> {
  const clock = services.clock;
  const apiActive = config.compatApiSharedSecret !== null;
  const videoconfActive = gatewayActive(config);
  if (videoconfActive) checkGatewayConfig(config);

  let watch: TenantWatch | null = null;
  let registry: TenantRegistry | null = null;
  if (apiActive || videoconfActive) {
    if (config.tenantsFile !== null) {
      try {
        watch = await watchTenants(
          config.tenantsFile,
          config.compatApiSharedSecret,
          log,
          clock,
          primaryAppIdOf(config),
        );
      } catch (err) {
        throw tenantsFileError(config.tenantsFile, err);
      }
      registry = watch.registry;
    } else {
      registry = new TenantRegistry(primaryOnly(config.compatApiSharedSecret), clock);
    }
  }

  let live: MeetingLiveView = options.live ?? meetingLiveView(services.live, services.stats);
  // One writing process (SQLite, a single node on PostgreSQL): open meetings are served from memory,
  // written through to the store (see cached-store.ts). A cluster's nodes all write: read the store.
  const cluster = options.cluster ?? null;
  let store: CachedCompatStore | SharedCompatStore | null;
  try {
    const inner =
      options.store ?? (apiActive ? asyncSqliteCompatStore(new SqliteCompatStore(config.compatApiDataDir)) : null);
    store = !apiActive || !inner ? null : cluster ? new SharedCompatStore(inner) : await CachedCompatStore.load(inner);
    if (store instanceof SharedCompatStore) await store.openMeetings();
  } catch (err) {
    // A database this code must not open (newer schema, unreadable): the tenants watch would keep the refused process alive.
    await watch?.close();
    throw err;
  }
  const tenantSecret = (tenantId: string): string | null => registry?.current().byId.get(tenantId)?.apiSecret ?? null;
  const callbacks = store
    ? new CallbackQueue(store, new TargetGuard(config.compatCallbackAllow), log, options.callbacks, tenantSecret)
    : null;
  const where = (roomId: string) => cluster!.ownership.where(roomId);
  const link = cluster ? new NodeLink({ channel: cluster.channel, where }) : null;
  const meetingsDeps = store && callbacks ? { store, callbacks } : null;
  const meetings = meetingsDeps
    ? newMeetings({
        ...meetingsDeps,
        rooms: services.rooms,
        meetings: services.meetings,
        clock,
        policy: config,
        live: () => live,
        tenantSecret,
        onError: (err) => log.error({ err }, 'compat sweep failed'),
      })
    : null;
  function newMeetings(deps: ConstructorParameters<typeof CompatMeetings>[0]): CompatMeetings {
    return link ? new ClusterMeetings(deps, link, where) : new CompatMeetings(deps);
  }

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
          authenticatedGuest: config.compatAuthenticatedGuest,
          joinTokenTtlSecs,
          ...(link ? { owners: ownerRoute(link, store) } : {}),
        }
      : null;
  // A cluster's node answers the calls other nodes send it, and reads a room's meeting before it serves the room.
  const served =
    link && registry && deps && meetings instanceof ClusterMeetings
      ? link.serve(ownerSide(registry, deps, meetings))
      : null;
  if (cluster && store instanceof SharedCompatStore) {
    const shared = store;
    cluster.ownership.onGained((roomId) => shared.readRoom(roomId).catch(() => undefined));
    await cluster.channel.flush();
  }

  let stopped = false;
  const locksFor = (roomId: string): LockSettings | null => {
    if (stopped) return null;
    const meeting = store?.openInRoom(roomId);
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
    services.live.setMuteOnStart((roomId) => !stopped && store.openInRoom(roomId)?.settings.muteOnStart === true);
  }

  // Before the listener opens: rooms of ended meetings are closed, open ones unlisted.
  await meetings?.reconcileRooms();
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
        maxTokenLifetimeSecs: config.jitsiMaxTokenLifetime,
      }
    : null;
  const app = await buildCompatApp(
    {
      confapi:
        apiActive && registry && deps ? { registry, deps, tenantHostSuffix: config.compatTenantHostSuffix } : null,
      videoconf,
    },
    {
      loggerInstance: log,
      trustedProxies: config.trustedProxies,
      frontendUrl: config.compatFrontendUrl,
      ...(options.accessLog ? { accessLog: options.accessLog } : {}),
    },
  );
  let sweeper: NodeJS.Timeout | null = null;

  return {
    app,
    tenants: registry,
    sweep: async () => meetings?.sweep(),
    run() {
      if (stopped || sweeper) return;
      if (meetings) {
        // A sweep still running when the next is due is not started twice.
        let sweeping = false;
        sweeper = setInterval(() => {
          if (sweeping) return;
          sweeping = true;
          void meetings.sweep().finally(() => (sweeping = false));
        }, sweepIntervalMs);
        sweeper.unref();
      }
      callbacks?.start();
    },
    summary: () => ({
      confapi: apiActive,
      videoconf: videoconfActive,
      tenants: registry?.current().tenants.length ?? 0,
      openMeetings: store?.openCount ?? 0,
    }),
    setLiveView(view) {
      live = view;
    },
    locksFor,
    meetingIn(roomId) {
      return stopped ? null : (store?.openInRoom(roomId) ?? null);
    },
    async systemChat(roomId) {
      const meeting = stopped ? null : store?.openInRoom(roomId);
      return meeting && store ? store.chatOf(meeting.internalId) : [];
    },
    async recordingReady(internalMeetingId, recording) {
      const meeting = (await store?.meeting(internalMeetingId)) ?? null;
      if (!meeting || !meetings) return null;
      return meetings.recordingReady(meeting, recording);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (sweeper) clearInterval(sweeper);
      served?.close();
      await app.close();
      await callbacks?.stop();
      await watch?.close();
      if (!options.store) await store?.close();
    },
  };
}
