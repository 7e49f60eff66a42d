import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import type { Clock } from '../engine/clock.js';
import { buildEngineApp, type EngineAppOptions } from '../http/app.js';
import { iceCredentials } from '../http/room/ice-servers.js';
import { openServices, systemScheduler, type Services, type ServicesOptions } from './services.js';
import type { MediaServerStore } from '../engine/cluster/media-servers.js';
import type { NodeChannel } from '../engine/cluster/node-channel.js';
import { relayLiveSockets, type LiveRelay } from './live-relay.js';
import { RoomForwarder } from '../http/room/room-forwarder.js';
import { bodyLimitBytes } from '../http/app.js';
import type { RoomOwnership } from '../engine/cluster/ownership.js';
import { RoomGate } from '../http/room/room-owner.js';
import { openStoreBundle, type ClusterStores, type StoreBundle } from './store-bundle.js';

/** The engine's services and its listener's app, built from the config but not listening. */
export interface Engine {
  readonly services: Services;
  readonly app: Awaited<ReturnType<typeof buildEngineApp>>;
}

/**
 * A clustered node's rooms wired to the engine (issue 35 stage 2): the listener serves a room's
 * addresses only while the node owns it; a room gained is read anew (its meeting adopted); a room lost leaves memory
 * (its meeting, its waiting requests, what the room store kept) and its live sockets close. The
 * rooms read at start (those whose lease names this node: a restart under the same id) are
 * claimed again, and dropped when another node holds them now.
 */
async function serveOwnedRooms(
  services: Services,
  bundle: StoreBundle,
  cluster: ClusterStores,
  ownership: RoomOwnership,
  relayWith: ((gate: RoomGate) => Promise<LiveRelay>) | null,
  forwarder: RoomForwarder | null,
) {
  const mainRoomOf = (roomId: string) => services.families.mainRoomOf(roomId);
  const gate = new RoomGate(
    ownership,
    {
      mainRoomOf,
      forget: (mainRoomId, roomId) => {
        services.families.drop(mainRoomId);
        cluster.forgetRoom(roomId);
      },
    },
    forwarder,
  );
  // A room gained (a dead owner's, a released one's, or this node's own after a restart): its
  // family's rooms are read anew (sub-groups made through other nodes too), and their open
  // meetings, members and waiting requests adopted.
  ownership.onGained(async (roomId) => {
    const family = [roomId, ...(await bundle.stores.rooms.children(roomId))];
    for (const id of family) cluster.forgetRoom(id);
    await services.families.reload(roomId);
    for (const id of family) await services.waiting.adopt(id);
  });
  // Issue 35 point 3: sockets of rooms other nodes own are relayed to them, and theirs of this node's rooms served.
  const relay = relayWith ? await relayWith(gate) : null;
  const drop = async (roomId: string) => {
    gate.dropSockets(roomId);
    relay?.dropRoom(roomId);
    services.families.drop(roomId);
    for (const id of [roomId, ...(await bundle.stores.rooms.children(roomId))]) {
      services.waiting.roomDeleted(id);
      services.meetings.roomDeleted(id);
      cluster.forgetRoom(id);
    }
  };
  ownership.onLost((roomId) => void drop(roomId).catch(() => undefined));
  for (const meeting of services.meetings.openMeetings()) {
    const main = await mainRoomOf(meeting.roomId);
    if (!(await ownership.where(main)).mine) await drop(main);
  }
  return { gate, relay };
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
  options: Pick<EngineAppOptions, 'readinessChecks' | 'accessLog' | 'clusterView' | 'schemas'> &
    Pick<ServicesOptions, 'media' | 'scheduler' | 'counting' | 'passwordCost'> & {
      /** The meeting-API tenant whose meeting a room holds, for the `end` line (the compat module starts after the engine). */
      readonly tenantOf?: (roomId: string) => string | null;
      /** An opened store (a test's); the config's otherwise. The services own it either way. */
      readonly stores?: StoreBundle;
      /** A clustered node's rooms over the store's leases (daemon/cluster.ts `own`); absent on a single node. */
      readonly ownRooms?: (stores: ClusterStores) => RoomOwnership;
      /** SERVICE_JANUS_URLS: the media side places meetings through the store (daemon/media-choice.ts). */
      readonly mediaServers?: (store: MediaServerStore) => Promise<void>;
      /**
       * A clustered node's signed channel to the others (daemon/cluster.ts `channel`): a non-owner
       * forwards a room's requests to its owner and relays its live sockets there.
       */
      readonly channel?: (signingKey: Uint8Array) => NodeChannel;
    } = {},
): Promise<Engine> {
  const { media, scheduler, counting, tenantOf, passwordCost, stores, ownRooms, mediaServers, channel, ...appOptions } =
    options;
  const ice = iceCredentials(config, clock);
  const bundle = stores ?? (await openStoreBundle(config));
  // Before the services read the open meetings: a clustered node reads only its own rooms'.
  const ownership = ownRooms && bundle.cluster ? ownRooms(bundle.cluster) : null;
  const services = await openServices(config, bundle, clock, {
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
  let relay: LiveRelay | null = null;
  try {
    await mediaServers?.(bundle.mediaServers);
    const nodeChannel = ownership && channel ? channel(await bundle.signingKey.getOrCreate()) : null;
    const relayWith = nodeChannel
      ? (gate: RoomGate) => relayLiveSockets(services, gate, nodeChannel, clock, scheduler ?? systemScheduler)
      : null;
    const forwarder = nodeChannel
      ? new RoomForwarder(nodeChannel, {
          bodyLimit: bodyLimitBytes,
          onUnanswered: (owner, reason) =>
            log.warn({ owner, reason }, `a request forwarded to node ${owner}: ${reason}`),
        })
      : null;
    const served =
      ownership && bundle.cluster
        ? await serveOwnedRooms(services, bundle, bundle.cluster, ownership, relayWith, forwarder)
        : null;
    const roomGate = served?.gate;
    relay = served?.relay ?? null;
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
      ...(roomGate ? { roomGate } : {}),
      ...(relay ? { liveRelay: relay.route } : {}),
      ...appOptions,
    });
    const relayed = relay;
    if (relayed) app.addHook('onClose', async () => relayed.close());
    if (nodeChannel && forwarder) {
      // Served and flushed before the node registers (run.ts): no node forwards to it unheard.
      const forwarding = forwarder.serve(app);
      app.addHook('onClose', async () => forwarding.close());
      await nodeChannel.flush();
    }
    return { services, app };
  } catch (err) {
    relay?.close();
    await services.close();
    throw err;
  }
}
