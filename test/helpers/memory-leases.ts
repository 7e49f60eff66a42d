import {
  leaseMs,
  type ClaimAnswer,
  type HeldLease,
  type LeaseStore,
  type RoomLease,
} from '../../src/engine/cluster/leases.js';

/** The leases in memory, with PostgreSQL's rules (test/service/cluster/room-leases.test.ts holds them equal). */
export class MemoryLeaseStore implements LeaseStore {
  private readonly rows = new Map<string, RoomLease>();

  /**
   * @param rooms Whether a room exists (a lease goes only with a room).
   * @param alive Whether a node is alive since a time (the registry's rule, its lock included).
   * @param openRooms The main rooms with an open meeting (theirs or a sub-group's).
   */
  constructor(
    private readonly rooms: (roomId: string) => boolean,
    private readonly alive: (nodeId: string, aliveSince: Date) => boolean,
    private readonly openRooms: () => readonly string[] = () => [],
  ) {}

  claim(roomId: string, nodeId: string, now: Date, aliveSince: Date): Promise<ClaimAnswer> {
    if (!this.rooms(roomId)) return Promise.resolve({ won: false, lease: null });
    const held = this.rows.get(roomId);
    const expired = held !== undefined && held.expiresAt <= now;
    if (held && held.ownerNode !== nodeId && !expired && this.alive(held.ownerNode, aliveSince))
      return Promise.resolve({ won: false, lease: held });
    const same = held !== undefined && held.ownerNode === nodeId && !expired;
    const lease: RoomLease = {
      roomId,
      ownerNode: nodeId,
      epoch: held === undefined ? 1 : same ? held.epoch : held.epoch + 1,
      expiresAt: new Date(now.getTime() + leaseMs),
    };
    this.rows.set(roomId, lease);
    return Promise.resolve({ won: true, lease });
  }

  renew(nodeId: string, held: readonly HeldLease[], now: Date): Promise<string[]> {
    const renewed: string[] = [];
    for (const { roomId, epoch } of held) {
      const row = this.rows.get(roomId);
      if (row?.ownerNode !== nodeId || row.epoch !== epoch) continue;
      this.rows.set(roomId, { ...row, expiresAt: new Date(now.getTime() + leaseMs) });
      renewed.push(roomId);
    }
    return Promise.resolve(renewed);
  }

  release(nodeId: string, held: readonly HeldLease[], now: Date): Promise<void> {
    for (const { roomId, epoch } of held) {
      const row = this.rows.get(roomId);
      if (row?.ownerNode === nodeId && row.epoch === epoch) this.rows.set(roomId, { ...row, expiresAt: now });
    }
    return Promise.resolve();
  }

  get(roomId: string): Promise<RoomLease | null> {
    return Promise.resolve(this.rows.get(roomId) ?? null);
  }

  orphans(nodeId: string, now: Date, aliveSince: Date, limit: number): Promise<RoomLease[]> {
    return Promise.resolve(
      [...this.rows.values()]
        .filter((l) => l.ownerNode !== nodeId && (l.expiresAt <= now || !this.alive(l.ownerNode, aliveSince)))
        .sort((a, b) => (a.roomId < b.roomId ? -1 : 1))
        .slice(0, limit),
    );
  }

  unleased(after: string | null, limit: number): Promise<string[]> {
    return Promise.resolve(
      [...new Set(this.openRooms())]
        .filter((roomId) => !this.rows.has(roomId) && (after === null || roomId > after))
        .sort()
        .slice(0, limit),
    );
  }

  heldPerNode(now: Date): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const lease of this.rows.values())
      if (lease.expiresAt > now) counts.set(lease.ownerNode, (counts.get(lease.ownerNode) ?? 0) + 1);
    return Promise.resolve(counts);
  }
}
