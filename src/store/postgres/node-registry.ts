import type { NodeLoad, NodeRecord, NodeRegistry, NodeStart } from '../../engine/cluster/nodes.js';
import type { Sql } from '../../platform/postgres.js';
import { lockHeld } from './node-liveness.js';

/** Whether row `n` took its session lock and PostgreSQL has freed it since (its process died). */
const lockFreed = (sql: Sql) => sql`(n.lock_key IS NOT NULL AND NOT ${lockHeld(sql)}) AS lock_freed`;

interface NodeRow {
  node_id: string;
  http_address: string;
  started_at: Date;
  last_beat_at: Date;
  gone_at: Date | null;
  open_rooms: number;
  live_sockets: number;
  lock_freed: boolean;
}

const record = (row: NodeRow): NodeRecord => ({
  nodeId: row.node_id,
  httpAddress: row.http_address,
  startedAt: row.started_at,
  lastBeatAt: row.last_beat_at,
  goneAt: row.gone_at,
  lockFreed: row.lock_freed,
  load: { openRooms: row.open_rooms, liveSockets: row.live_sockets },
});

/** The registry of a cluster's nodes in meet_engine.nodes (migration 022); every node's writes touch its own row only. */
export class PostgresNodeRegistry implements NodeRegistry {
  constructor(private readonly sql: Sql) {}

  async register(start: NodeStart, aliveSince: Date): Promise<{ taken: true } | { holder: NodeRecord }> {
    // One statement: two daemons starting together under one id cannot both take the row.
    const taken = await this.sql`
      INSERT INTO meet_engine.nodes AS n (node_id, incarnation, http_address, started_at, last_beat_at, gone_at, open_rooms, live_sockets)
      VALUES (${start.nodeId}, ${start.incarnation}, ${start.httpAddress}, ${start.startedAt}, ${start.startedAt}, NULL,
        ${start.load.openRooms}, ${start.load.liveSockets})
      ON CONFLICT (node_id) DO UPDATE SET incarnation = EXCLUDED.incarnation, http_address = EXCLUDED.http_address,
        started_at = EXCLUDED.started_at, last_beat_at = EXCLUDED.last_beat_at, gone_at = NULL,
        open_rooms = EXCLUDED.open_rooms, live_sockets = EXCLUDED.live_sockets, lock_key = NULL
      WHERE n.gone_at IS NOT NULL OR n.last_beat_at <= ${aliveSince} OR (n.lock_key IS NOT NULL AND NOT ${lockHeld(this.sql)})
      RETURNING node_id`;
    if (taken.length > 0) return { taken: true };
    const [holder] = await this.sql<NodeRow[]>`SELECT n.*, ${lockFreed(this.sql)} FROM meet_engine.nodes n
      WHERE node_id = ${start.nodeId}`;
    if (!holder) throw new Error(`node ${start.nodeId}: neither registered nor held`);
    return { holder: record(holder) };
  }

  async beat(nodeId: string, incarnation: string, at: Date, load: NodeLoad): Promise<boolean> {
    const rows = await this.sql`
      UPDATE meet_engine.nodes SET last_beat_at = ${at}, open_rooms = ${load.openRooms}, live_sockets = ${load.liveSockets}
      WHERE node_id = ${nodeId} AND incarnation = ${incarnation} AND gone_at IS NULL
      RETURNING node_id`;
    return rows.length > 0;
  }

  async markGone(nodeId: string, incarnation: string, at: Date): Promise<void> {
    await this.sql`UPDATE meet_engine.nodes SET gone_at = ${at}
      WHERE node_id = ${nodeId} AND incarnation = ${incarnation} AND gone_at IS NULL`;
  }

  async list(): Promise<NodeRecord[]> {
    const rows = await this.sql<
      NodeRow[]
    >`SELECT n.*, ${lockFreed(this.sql)} FROM meet_engine.nodes n ORDER BY node_id`;
    return rows.map(record);
  }
}
