// `meetctl cluster status` (issue 35 point 7, stage 1): the nodes of the cluster as the registry
// in PostgreSQL holds them, each alive or gone in this machine's view (the same rule /readyz uses).
import type { StoreConfig } from './store-bundle.js';
import { openStoreBundle } from './store-bundle.js';
import { isAlive } from '../engine/cluster/nodes.js';

export interface NodeLine {
  readonly node_id: string;
  readonly address: string;
  readonly state: 'alive' | 'gone';
  readonly started_at: string;
  readonly last_beat_at: string;
  readonly open_rooms: number;
  readonly live_sockets: number;
}

/** The registry's nodes by id; null when the store is SQLite (one node, no registry). */
export async function clusterStatus(config: StoreConfig, now: Date = new Date()): Promise<NodeLine[] | null> {
  if (config.databaseUrl.kind !== 'postgres') return null;
  const bundle = await openStoreBundle(config);
  try {
    const nodes = (await bundle.nodes?.list()) ?? [];
    return nodes.map((node) => ({
      node_id: node.nodeId,
      address: node.httpAddress,
      state: isAlive(node, now) ? 'alive' : 'gone',
      started_at: node.startedAt.toISOString(),
      last_beat_at: node.lastBeatAt.toISOString(),
      open_rooms: node.load.openRooms,
      live_sockets: node.load.liveSockets,
    }));
  } finally {
    await bundle.close();
  }
}
