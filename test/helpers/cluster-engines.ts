import postgres from 'postgres';
import type { Test } from 'tap';
import { channelKey, NodeChannel } from '../../src/engine/cluster/node-channel.js';
import { RoomOwnership } from '../../src/engine/cluster/ownership.js';
import { appFor, type InProcess } from './app.js';
import { FakeClock, FakeScheduler } from './fake-clock.js';
import { MemoryBusNetwork } from './memory-bus.js';
import { postgresStore, type ServiceStore } from './service-stores.js';

/** A node's signed channel, its bus (a test cuts it) and the channel's key. */
export interface NodeOnBus {
  readonly channel: NodeChannel;
  readonly bus: ReturnType<MemoryBusNetwork['bus']>;
  readonly key: Uint8Array;
}

/**
 * An in-process engine as one node of a cluster on `store` (PostgreSQL): its room ownership over
 * the leases, on the shared fake clock, its writes fenced by it. Its beats never run here: a lease
 * lasts until the clock passes it. `alive` is the nodes' view of who is live (a test kills a node
 * by taking it out). With `network`, the node has its signed channel on that memory bus, as a
 * clustered daemon does (a room's requests forwarded to its owner, live sockets relayed there); its timers (a lost room's listeners too) run on `scheduler` when given; `listen` opens its
 * listener on 127.0.0.1 (for WebSocket clients).
 */
export function clusterEngine(
  t: Test,
  options: {
    readonly store: ServiceStore;
    readonly clock: FakeClock;
    readonly nodeId: string;
    readonly alive: () => readonly string[];
    readonly ownerships?: Map<string, RoomOwnership>;
    readonly network?: MemoryBusNetwork;
    readonly scheduler?: FakeScheduler;
    readonly listen?: boolean;
    /** Each node's channel and its bus (a test cuts a node from NATS by closing it), by node id, once made. */
    readonly channels?: Map<string, NodeOnBus>;
  },
): Promise<InProcess> {
  const { store, clock, nodeId, network } = options;
  return appFor(t, {
    store,
    clock,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.listen ? { listen: true } : {}),
    ownRooms: (stores) => {
      const ownership = new RoomOwnership({
        leases: stores.leases,
        nodeId,
        clock,
        scheduler: options.scheduler ?? new FakeScheduler(clock),
        aliveNodes: async () => [...options.alive()],
      });
      stores.fenceWith(ownership);
      options.ownerships?.set(nodeId, ownership);
      return ownership;
    },
    ...(network
      ? {
          channel: (signingKey: Uint8Array) => {
            const bus = network.bus();
            const key = channelKey(signingKey);
            const channel = new NodeChannel(bus, key, nodeId, clock);
            options.channels?.set(nodeId, { channel, bus, key });
            return channel;
          },
        }
      : {}),
  });
}

/**
 * Two such engines, node-a and node-b, on one fresh PostgreSQL database and one in-memory bus,
 * forwarding to each other: `alive` is their view of the live nodes (a test kills one by taking it
 * out and moving the clock past its leases). Both use node-a's first admin token.
 */
export async function forwardingNodes(t: Test) {
  const store = await postgresStore(t);
  const clock = new FakeClock();
  const alive = new Set(['node-a', 'node-b']);
  const network = new MemoryBusNetwork();
  const channels = new Map<string, NodeOnBus>();
  const node = (nodeId: string) =>
    clusterEngine(t, { store, clock, nodeId, alive: () => [...alive], network, channels });
  const a = await node('node-a');
  const b = await node('node-b');
  const asAdmin = (d: InProcess): InProcess => ({
    ...d,
    api: (path, init = {}) => d.api(path, { ...init, token: init.token === undefined ? a.adminToken : init.token }),
  });
  const sql = postgres({ ...store.database!.options, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  /** The node whose lease names the room, null when none does. */
  const leaseOf = async (roomId: string) =>
    (await sql<{ owner_node: string }[]>`SELECT owner_node FROM meet_engine.room_leases WHERE room_id = ${roomId}`)[0]
      ?.owner_node ?? null;
  return { a: asAdmin(a), b: asAdmin(b), store, clock, alive, network, channels, leaseOf };
}
