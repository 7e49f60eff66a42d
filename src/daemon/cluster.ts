// Issue 35 stage 1: this daemon as a node of a cluster, when SERVICE_NATS_URL is set (config made
// sure the store is PostgreSQL). The bus connects before the engine opens (NATS out of reach:
// exit 69); the node registers once its listener knows its address, and beats until the stop.
// Without SERVICE_NATS_URL nothing here runs and nothing of the single node changes.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import type { ClusterBus } from '../engine/cluster/bus.js';
import { channelKey, NodeChannel } from '../engine/cluster/node-channel.js';
import { NodePresence, type NodeLoad, type NodeRegistry } from '../engine/cluster/nodes.js';
import { RoomOwnership } from '../engine/cluster/ownership.js';
import type { Clock, Scheduler } from '../engine/clock.js';
import type { ReadinessCheck } from '../engine/health/readiness.js';
import type { ClusterGauges } from './metrics.js';
import type { ClusterStores } from './store-bundle.js';

/** The header every answer of a clustered daemon carries: which node answered. */
export const nodeHeader = 'x-meet-node';

export interface ClusterMember {
  readonly nodeId: string;
  /** NATS connected: /readyz is not ready while it is not. */
  readonly readiness: ReadinessCheck;
  /**
   * The signed channel to the other nodes, keyed by the cluster's signing key (in PostgreSQL, the
   * same on every node); one per node, made on the first call.
   */
  channel(signingKey: Uint8Array): NodeChannel;
  /** What the metrics read of this node (SERVICE_METRICS_ADDR). */
  readonly gauges: Omit<ClusterGauges, 'nodeId'>;
  /** What /readyz shows of the cluster: this node's id and the ids it sees alive. */
  view(): Promise<{ node: string; nodes_alive: string[] }>;
  /**
   * The rooms this node owns (stage 2), over the store's leases; from now on the store fences
   * every write of a room's state and reads at start only the rooms this node holds. Before the
   * engine opens.
   */
  own(stores: ClusterStores): RoomOwnership;
  /**
   * Registers and starts beating (DuplicateNodeError when a live node holds the id), takes the
   * node's session lock and starts renewing the leases.
   */
  register(registry: NodeRegistry, httpAddress: string, load: () => NodeLoad): Promise<void>;
  /** Releases the leases, marks the node gone, frees its lock and closes the bus; safe before register and twice. */
  leave(): Promise<void>;
}

/** Connects the bus when SERVICE_NATS_URL is set; null otherwise (one node, as before). */
export async function joinCluster(
  config: Pick<Config, 'natsUrl' | 'nodeId'>,
  clock: Clock,
  scheduler: Scheduler,
  log: Logger,
): Promise<ClusterMember | null> {
  if (config.natsUrl === null) return null;
  const nodeId = config.nodeId;
  // Loaded here: the NATS client is about thirty modules a single node's start need not read.
  const { connectBus } = await import('./nats-bus.js');
  const bus: ClusterBus = await connectBus(config.natsUrl, nodeId, log);
  let presence: NodePresence | null = null;
  let left: Promise<void> | null = null;
  let owned: { stores: ClusterStores; ownership: RoomOwnership } | null = null;
  let lock: Awaited<ReturnType<ClusterStores['takeNodeLock']>> = null;
  let channel: NodeChannel | null = null;
  // The metrics' view of the cluster: the last answer of the registry (read on every beat), never a query per scrape.
  let lastAlive = 0;
  const aliveNodes = async () => {
    const alive = presence ? await presence.aliveNodes() : [];
    lastAlive = alive.length;
    return alive;
  };
  const aliveIds = async () => (presence ? (await aliveNodes()).map((node) => node.nodeId) : [nodeId]);
  return {
    nodeId,
    readiness: { name: 'nats', check: () => bus.connected() },
    channel(signingKey) {
      channel ??= new NodeChannel(bus, channelKey(signingKey), nodeId, clock, (reason, subject) =>
        log.warn({ node: nodeId, subject, reason }, `a cluster message on ${subject} was refused: ${reason}`),
      );
      return channel;
    },
    gauges: {
      roomsOwned: () => owned?.ownership.heldRooms().length ?? 0,
      nodesAlive: () => lastAlive,
      natsConnected: () => bus.connected(),
    },
    async view() {
      const alive = await aliveNodes();
      return { node: nodeId, nodes_alive: alive.map((node) => node.nodeId) };
    },
    own(stores) {
      const ownership = new RoomOwnership({
        leases: stores.leases,
        nodeId,
        clock,
        scheduler,
        aliveNodes: aliveIds,
        // The lock's connection may have been cut and made anew: the lock is taken again on the beat.
        beforeBeat: async () => {
          if (lock && !(await lock.hold())) log.warn({ node: nodeId }, 'the node lock is held by another session');
        },
        onProblem: (problem) => log.warn({ err: problem, node: nodeId }, 'cluster lease renewal failed'),
      });
      ownership.onLost((roomId) => log.warn({ node: nodeId, room: roomId }, `room ${roomId} lost to another node`));
      stores.fenceWith(ownership);
      owned = { stores, ownership };
      return ownership;
    },
    async register(registry, httpAddress, load) {
      presence = new NodePresence(
        registry,
        { nodeId, incarnation: randomUUID(), httpAddress },
        load,
        clock,
        scheduler,
        (problem) => log.warn({ err: problem, node: nodeId }, 'cluster beat failed'),
      );
      await presence.start().catch((err: unknown) => {
        presence = null;
        throw err;
      });
      if (owned) {
        lock = await owned.stores.takeNodeLock(nodeId);
        if (lock === null) throw new Error(`the session lock of node ${nodeId} is held by another process`);
        owned.ownership.start();
      }
      log.info({ node: nodeId, address: httpAddress }, `node ${nodeId} registered in the cluster`);
    },
    leave() {
      left ??= (async () => {
        try {
          // The leases first: the other nodes take the rooms at once, before this one is gone.
          await owned?.ownership.stop().catch((err: unknown) => log.warn({ err }, 'releasing the room leases failed'));
          await presence?.stop();
          await lock?.release().catch(() => undefined);
        } finally {
          await bus.close();
        }
      })();
      return left;
    },
  };
}

/**
 * Every answer of `server` names this node, set before the app sees the request so no route and
 * no error path can leave it out; a client's own X-Meet-Node is a request header and changes nothing.
 */
export function stampNode(server: Server, nodeId: string): void {
  server.prependListener('request', (_request, response) => response.setHeader(nodeHeader, nodeId));
}
