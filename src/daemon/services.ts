import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from '../config/settings.js';
import { AccessTokenService } from '../engine/access/access-token-service.js';
import { AccountService } from '../engine/accounts/account-service.js';
import type { ScryptCost } from '../engine/accounts/password.js';
import type { EngineServices } from '../engine/services.js';
import type { Clock, Scheduler } from '../engine/clock.js';
import type { AsyncDefer } from '../engine/async-group-commit.js';
import { AsyncTransactions } from '../engine/async-transactions.js';
import type { WaitingCounter } from '../engine/waiting/waiting-room-types.js';
import { ChatLog } from '../engine/live/chat-log.js';
import { KeyedQueue } from '../engine/keyed-queue.js';
import { silentLog, type EngineLog } from '../engine/listeners.js';
import { MeetingLocks } from '../engine/live/meeting-locks.js';
import { MeetingStats } from '../engine/stats/meeting-stats.js';
import type { IceCredentials } from '../engine/live/ice-renewal.js';
import { LiveHub } from '../engine/live/live-hub.js';
import type { MediaBackendFactory } from '../engine/live/media-port.js';
import type { LiveOptions } from '../engine/live/live-options.js';
import { MeetingService } from '../engine/meetings/meeting-service.js';
import { openAtStart } from '../engine/meetings/open-meetings.js';
import { ModeratorSuccession } from '../engine/meetings/moderator-succession.js';
import { RoomService } from '../engine/rooms/room-service.js';
import { TokenService } from '../engine/tokens/token-service.js';
import { MeshSignallingRelay } from '../media/mesh-relay.js';
import { WaitingRoomService } from '../engine/waiting/waiting-room-service.js';
import { RoomFamilies } from '../engine/rooms/room-families.js';
import { databaseFileName } from '../store/database.js';
import { contextSlot } from '../platform/async-context.js';
import type { StoreBundle } from './store-bundle.js';

export const systemClock: Clock = { now: () => new Date(), nowMs: () => Date.now() };

/** Real timers that never hold the process open (a stop does not wait for a grace period). */
export const systemScheduler: Scheduler = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** How often expiry, closed windows and empty meetings are checked. */
const sweepIntervalMs = 1000;
/** How often unused ephemeral rooms are looked for: a query, not a memory scan, so not every second. */
const roomExpiryIntervalMs = 60_000;

/** The engine's services, wired to the store (SQLite or PostgreSQL); the one place that knows both sides. */
export interface Services extends EngineServices<LiveHub> {
  /** Which store they run on. */
  readonly storeKind: StoreBundle['kind'];
  /** The meeting API's store when it lives with the engine's (PostgreSQL); null: the module opens its own file. */
  readonly compatStore: StoreBundle['compatStore'];
  /** The registry of a cluster's nodes (PostgreSQL only). */
  readonly nodes: StoreBundle['nodes'];
  /** The signing key, for the cluster's signed channel to derive its own key from (cluster.ts `channel`). */
  readonly signingKey: Uint8Array;
  /** The rooms' families in memory (the live hub's reads; a cluster node's room gate maps a sub-group to its main room). */
  readonly families: RoomFamilies;
  /** Starts the periodic sweep; only a serving daemon needs it. */
  startSweeping(onError: (err: unknown) => void): void;
  /** Resolves once queued writes are committed and the store is closed. */
  close(): Promise<void>;
}

export type ServicesConfig = Pick<
  Config,
  | 'dataDir'
  | 'waitingRoom'
  | 'waitingRoomMode'
  | 'meetingEmptyGraceSecs'
  | 'waitingClosedWindowSecs'
  | 'jitsiOpenRoomIdleSecs'
>;

export interface ServicesOptions {
  /** Grace periods and limits of the live connection (tests shorten them). */
  readonly live?: LiveOptions;
  /**
   * Where the services log what they cannot hand back to a caller (a failing listener, a live
   * connection's background work): the daemon passes its logger. Silent for a command that opens
   * the services only to write (meetctl token) and for tests that do not look.
   */
  readonly log?: EngineLog;
  /** The media backend (daemon/media-choice.ts); the embedded mesh relay when not given. */
  readonly media?: MediaBackendFactory;
  /** The live meeting's timers (grace periods); real ones unless a test moves them by hand. */
  readonly scheduler?: Scheduler;
  /** Short-lived TURN credentials the live hub renews while a participant stays (the engine listener's settings). */
  readonly ice?: IceCredentials;
  /** The daemon's metrics (SERVICE_METRICS_ADDR): timed group commits and counted knocks and decisions. */
  readonly counting?: ServicesCounting;
  /** scrypt's cost for account passwords (tests of the routes pass a cheap one); the engine's own otherwise. */
  readonly passwordCost?: ScryptCost;
}

/** The database file of a data directory, for meetctl commands that must not create one unasked. */
export { databaseFileName };

export interface ServicesCounting {
  /** How a group commit is scheduled (setImmediate, timed). */
  groupCommit(group: 'knocks' | 'stats'): AsyncDefer;
  readonly waiting: WaitingCounter;
}

/**
 * Outside every asynchronous context: a group's commit scheduled from inside a transaction (a
 * statistic queued during a chat message's) must not run as part of that finished transaction.
 */
const outside = AsyncLocalStorage.snapshot();
const nextTurn: AsyncDefer = (run) => setImmediate(() => void outside(run));

/**
 * The engine's services on an opened store (store-bundle.ts: SQLite or PostgreSQL, migrated);
 * they own it from here: `close` closes it, and so does a failure while they are made.
 */
export async function openServices(
  config: ServicesConfig,
  bundle: StoreBundle,
  clock: Clock = systemClock,
  options: ServicesOptions = {},
): Promise<Services> {
  try {
    return await servicesOn(config, bundle, clock, options);
  } catch (err) {
    await bundle.close();
    throw err;
  }
}

async function servicesOn(
  config: ServicesConfig,
  bundle: StoreBundle,
  clock: Clock,
  options: ServicesOptions,
): Promise<Services> {
  const stores = bundle.stores;
  // The live hub's synchronous family reads come from memory, kept by every room write (room-families.ts):
  // every service writes rooms through this port.
  const families = await RoomFamilies.load(stores.rooms);
  const roomPort = families.keeping(stores.rooms);
  const signingKey = await bundle.signingKey.getOrCreate();
  const log = options.log ?? silentLog;
  const unitOfWork = stores.unitOfWork;
  // Group commit: the knocks that arrived while the previous commit ran share the next one.
  const knockDefer = options.counting?.groupCommit('knocks');
  const transactions = new AsyncTransactions(
    unitOfWork,
    contextSlot(),
    knockDefer ? (run) => knockDefer(() => outside(run)) : nextTurn,
  );
  const meetings = new MeetingService(
    stores.meetings,
    transactions,
    clock,
    { emptyGraceMs: config.meetingEmptyGraceSecs * 1000, log },
    await openAtStart(stores.meetings),
  );
  const waiting = await WaitingRoomService.open(
    {
      rooms: roomPort,
      meetings,
      transactions,
      store: stores.waitingRequests,
      // Never taken inside a transaction (keyed-queue.ts): refused at once rather than left to deadlock.
      turns: new KeyedQueue(contextSlot(), () => transactions.inside),
      clock,
      policy: config,
      log,
      ...(options.counting ? { counter: options.counting.waiting } : {}),
    },
    { closedWindowMs: config.waitingClosedWindowSecs * 1000 },
  );
  const rooms = new RoomService(roomPort, clock, config, (roomId) => {
    waiting.roomDeleted(roomId);
    meetings.roomDeleted(roomId);
  });
  // Group commit: the media changes of a turn (many members' flushes) are one durable commit, not one per toggle.
  const statsDefer = options.counting?.groupCommit('stats');
  const stats = new MeetingStats(
    stores.stats,
    unitOfWork,
    clock,
    statsDefer ? (run) => statsDefer(() => outside(run)) : nextTurn,
  );
  const live = new LiveHub({
    meetings,
    transactions,
    waiting,
    rooms,
    turns: new KeyedQueue(contextSlot()),
    roomOf: (roomId) => families.roomOf(roomId),
    subgroupsOf: (roomId) => families.subgroupsOf(roomId),
    // The sub-groups' timers and messages to all groups, read at start (the welcome awaits the read).
    subgroupTimers: {
      subgroupTimers: () => stores.subgroupTimers.subgroupTimers(),
      saveSubgroupTimer: (roomId, endsAt) => stores.subgroupTimers.saveSubgroupTimer(roomId, endsAt),
      groupMessages: () => stores.groupMessages.groupMessages(),
      saveGroupMessage: (roomId, message) => stores.groupMessages.saveGroupMessage(roomId, message),
    },
    random: Math.random,
    chat: new ChatLog(stores.chat, clock),
    locks: new MeetingLocks(stores.locks, clock),
    stats,
    clock,
    scheduler: options.scheduler ?? systemScheduler,
    // The daemon chose the media backend (mesh, or Janus behind a router); in-process tests get the mesh.
    media: options.media ?? ((context) => new MeshSignallingRelay(context)),
    log,
    ...(options.live ? { options: options.live } : {}),
    ...(options.ice ? { ice: options.ice } : {}),
  });
  // After the hub: a moderator's leave reaches the sockets (participant_left) before the promotion (role).
  const succession = new ModeratorSuccession(meetings, roomPort);
  const accounts = new AccountService(
    stores.accounts,
    clock,
    options.passwordCost ? { cost: options.passwordCost } : {},
  );
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  return {
    rooms,
    accessTokens: new AccessTokenService(stores.accessTokens, clock),
    accounts,
    meetings,
    waiting,
    tokens: new TokenService(signingKey, clock),
    stats,
    live,
    database: bundle.probe,
    storeKind: bundle.kind,
    compatStore: bundle.compatStore,
    nodes: bundle.nodes,
    signingKey,
    families,
    clock,
    startSweeping(onError) {
      // Serving starts: statistics left running by a crashed process end now.
      stats.settleUnfinished().catch(onError);
      succession.settleAll().catch(onError);
      // Rooms made by anonymous arrivals (the gateway's open rooms) go once unused; looked for
      // at least once a minute, and as often as their idle time when that is shorter.
      const idleMs = config.jitsiOpenRoomIdleSecs * 1000;
      let nextExpiryMs = 0;
      // A failing sweep must not take the daemon down; the next tick tries again.
      const sweep = async () => {
        try {
          await waiting.sweep();
          const now = clock.now().getTime();
          if (now >= nextExpiryMs) {
            nextExpiryMs = now + Math.min(roomExpiryIntervalMs, idleMs);
            await rooms.expireUnused(idleMs);
            accounts.sweep().catch(onError);
          }
        } catch (err) {
          onError(err);
        }
      };
      // A sweep that awaits the store is not overtaken by the next tick's.
      let sweeping = false;
      const tick = () => {
        if (closed || sweeping) return;
        sweeping = true;
        void sweep().finally(() => (sweeping = false));
      };
      // The sweep judges silence by the clock, so it runs after the loop has read what arrived:
      // a timer fires before the I/O of its turn, and after a stall (a long commit, a busy loop)
      // the polls that waited in the sockets meanwhile must count before anyone is judged silent.
      timer ??= setInterval(() => setImmediate(tick), sweepIntervalMs);
      timer.unref();
    },
    close() {
      // Twice is once: a forced exit closes while a stop may still be on its way to closing.
      if (closed) return Promise.resolve();
      closed = true;
      if (timer) clearInterval(timer);
      succession.close();
      // The hub ends the running intervals of statistics (writes); knocks and statistics queued but
      // not yet committed are written (and answered); all of it before the database closes.
      const flushed = live.close().then(() => Promise.all([transactions.flushGrouped(), stats.flush()]));
      return flushed.then(
        () => bundle.close(),
        async (err: unknown) => {
          await bundle.close();
          throw err;
        },
      );
    },
  };
}
