import type { Test } from 'tap';
import { channelKey, NodeChannel } from '../../src/engine/cluster/node-channel.js';
import { RoomOwnership } from '../../src/engine/cluster/ownership.js';
import { appFor, type InProcess } from './app.js';
import { type FakeClock, FakeScheduler } from './fake-clock.js';
import type { MemoryBusNetwork } from './memory-bus.js';
import type { ServiceStore } from './service-stores.js';

/**
 * An in-process engine as one node of a cluster on `store` (PostgreSQL): its room ownership over
 * the leases, on the shared fake clock, its writes fenced by it. Its beats never run here: a lease
 * lasts until the clock passes it. `alive` is the nodes' view of who is live (a test kills a node
 * by taking it out). With `network`, the node has its signed channel on that memory bus (live
 * sockets are relayed to their room's owner); its timers (a lost room's listeners too) run on `scheduler` when given; `listen` opens its
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
    readonly channels?: Map<string, { channel: NodeChannel; bus: ReturnType<MemoryBusNetwork['bus']> }>;
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
            const channel = new NodeChannel(bus, channelKey(signingKey), nodeId, clock);
            options.channels?.set(nodeId, { channel, bus });
            return channel;
          },
        }
      : {}),
  });
}
