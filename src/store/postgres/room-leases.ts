import {
  leaseMs,
  type ClaimAnswer,
  type HeldLease,
  type LeaseStore,
  type RoomLease,
} from '../../engine/cluster/leases.js';
import type { Sql } from '../../platform/postgres.js';
import { nodeAlive } from './node-liveness.js';

interface LeaseRow {
  room_id: string;
  owner_node: string;
  epoch: string;
  expires_at: Date;
}

const lease = (row: LeaseRow): RoomLease => ({
  roomId: row.room_id,
  ownerNode: row.owner_node,
  epoch: Number(row.epoch),
  expiresAt: row.expires_at,
});

const later = (now: Date) => new Date(now.getTime() + leaseMs);

/** The rooms' leases in meet_engine.room_leases (migration 023). */
export class PostgresLeaseStore implements LeaseStore {
  constructor(private readonly sql: Sql) {}

  async claim(roomId: string, nodeId: string, now: Date, aliveSince: Date): Promise<ClaimAnswer> {
    const sql = this.sql;
    // One statement: of two nodes claiming together, the second waits for the first's row and
    // then finds it held by a live node, so exactly one wins each epoch.
    let taken: LeaseRow[];
    try {
      taken = await sql<LeaseRow[]>`
        INSERT INTO room_leases AS l (room_id, owner_node, epoch, expires_at)
        VALUES (${roomId}, ${nodeId}, 1, ${later(now)})
        ON CONFLICT (room_id) DO UPDATE SET owner_node = EXCLUDED.owner_node, expires_at = EXCLUDED.expires_at,
          epoch = CASE WHEN l.owner_node = EXCLUDED.owner_node AND l.expires_at > ${now} THEN l.epoch ELSE l.epoch + 1 END
        WHERE l.owner_node = EXCLUDED.owner_node OR l.expires_at <= ${now}
          OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.owner_node AND ${nodeAlive(sql, aliveSince)})
        RETURNING room_id, owner_node, epoch::text, expires_at`;
    } catch (err) {
      // The room does not exist (deleted, or an id nobody made): no lease for it.
      if ((err as { code?: string }).code === '23503') return { won: false, lease: null };
      throw err;
    }
    if (taken[0]) return { won: true, lease: lease(taken[0]) };
    const holder = await this.get(roomId);
    if (!holder) return this.claim(roomId, nodeId, now, aliveSince);
    return { won: false, lease: holder };
  }

  async renew(nodeId: string, held: readonly HeldLease[], now: Date): Promise<string[]> {
    if (held.length === 0) return [];
    const rows = await this.sql<{ room_id: string }[]>`
      UPDATE room_leases l SET expires_at = ${later(now)}
      FROM unnest(${held.map((h) => h.roomId)}::text[], ${held.map((h) => String(h.epoch))}::bigint[]) AS h(room_id, epoch)
      WHERE l.room_id = h.room_id AND l.epoch = h.epoch AND l.owner_node = ${nodeId}
      RETURNING l.room_id`;
    return rows.map((row) => row.room_id);
  }

  async release(nodeId: string, held: readonly HeldLease[], now: Date): Promise<void> {
    if (held.length === 0) return;
    await this.sql`
      UPDATE room_leases l SET expires_at = ${now}
      FROM unnest(${held.map((h) => h.roomId)}::text[], ${held.map((h) => String(h.epoch))}::bigint[]) AS h(room_id, epoch)
      WHERE l.room_id = h.room_id AND l.epoch = h.epoch AND l.owner_node = ${nodeId}`;
  }

  async get(roomId: string): Promise<RoomLease | null> {
    const [row] = await this.sql<LeaseRow[]>`
      SELECT room_id, owner_node, epoch::text, expires_at FROM room_leases WHERE room_id = ${roomId}`;
    return row ? lease(row) : null;
  }

  async orphans(nodeId: string, now: Date, aliveSince: Date, limit: number): Promise<RoomLease[]> {
    const sql = this.sql;
    const rows = await sql<LeaseRow[]>`
      SELECT l.room_id, l.owner_node, l.epoch::text, l.expires_at FROM room_leases l
      WHERE l.owner_node <> ${nodeId} AND (l.expires_at <= ${now}
        OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.owner_node AND ${nodeAlive(sql, aliveSince)}))
      ORDER BY l.room_id LIMIT ${limit}`;
    return rows.map(lease);
  }

  async unleased(after: string | null, limit: number): Promise<string[]> {
    // Served by the partial index of open meetings (one per room).
    const rows = await this.sql<{ room_id: string }[]>`
      SELECT DISTINCT coalesce(r.parent_room_id, r.room_id) COLLATE "C" AS room_id
      FROM meetings m JOIN rooms r ON r.room_id = m.room_id
      WHERE m.ended_at IS NULL
        AND (${after}::text IS NULL OR coalesce(r.parent_room_id, r.room_id) > ${after}::text COLLATE "C")
        AND NOT EXISTS (SELECT 1 FROM room_leases l WHERE l.room_id = coalesce(r.parent_room_id, r.room_id))
      ORDER BY 1 LIMIT ${limit}`;
    return rows.map((row) => row.room_id);
  }

  async heldPerNode(now: Date): Promise<Map<string, number>> {
    const rows = await this.sql<{ owner_node: string; rooms: number }[]>`
      SELECT owner_node, count(*)::int AS rooms FROM room_leases WHERE expires_at > ${now} GROUP BY owner_node`;
    return new Map(rows.map((row) => [row.owner_node, row.rooms]));
  }
}
