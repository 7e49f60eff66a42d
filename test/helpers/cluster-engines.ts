import type { Test } from 'tap';
import { RoomOwnership } from '../../src/engine/cluster/ownership.js';
import { appFor, type InProcess } from './app.js';
import { type FakeClock, FakeScheduler } from './fake-clock.js';
import type { ServiceStore } from './service-stores.js';

/**
 * An in-process engine as one node of a cluster on `store` (PostgreSQL): its room ownership over
 * the leases, on the shared fake clock, its writes fenced by it. Its beats never run here: a lease
 * lasts until the clock passes it. `alive` is the nodes' view of who is live (a test kills a node
 * by taking it out).
 */
export function clusterEngine(
  t: Test,
  options: {
    readonly store: ServiceStore;
    readonly clock: FakeClock;
    readonly nodeId: string;
    readonly alive: () => readonly string[];
    readonly ownerships?: Map<string, RoomOwnership>;
  },
): Promise<InProcess> {
  const { store, clock, nodeId } = options;
  return appFor(t, {
    store,
    clock,
    ownRooms: (stores) => {
      const ownership = new RoomOwnership({
        leases: stores.leases,
        nodeId,
        clock,
        scheduler: new FakeScheduler(clock),
        aliveNodes: async () => [...options.alive()],
      });
      stores.fenceWith(ownership);
      options.ownerships?.set(nodeId, ownership);
      return ownership;
    },
  });
}
