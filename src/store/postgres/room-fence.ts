import { LeaseLostError, type RoomFence } from '../../engine/cluster/leases.js';
import type { Sql } from '../../platform/postgres.js';

/** Remembered lookups at most: a room's main room, a meeting's room and a participant's meeting never change. */
const rememberAtMost = 10_000;

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= rememberAtMost) map.clear();
  map.set(key, value);
  return value;
}

/**
 * The epoch fence of a clustered node (issue 35 stage 2), checked by the unit of work before the
 * first write of each room in a transaction: the lease row of the room's family (a sub-group's
 * lease is its main room's) is read FOR SHARE, so no other node can take the room until this
 * transaction ends, and must name this node at the epoch it claimed. A room no lease names (free,
 * or not made yet) passes; a lease this node does not hold at that epoch is LeaseLostError, the
 * transaction rolls back and nothing of it is written.
 */
export class PostgresRoomFence {
  private readonly mainRooms = new Map<string, string | null>();
  private readonly meetingRooms = new Map<string, string | null>();
  private readonly participantMeetings = new Map<string, string | null>();

  constructor(private readonly fence: RoomFence) {}

  get nodeId(): string {
    return this.fence.nodeId;
  }

  async checkRoom(tx: Sql, roomId: string): Promise<void> {
    const main = this.mainRooms.has(roomId) ? this.mainRooms.get(roomId)! : await this.mainRoomOf(tx, roomId);
    await this.checkLease(tx, main ?? roomId);
  }

  async checkMeeting(tx: Sql, meetingId: string): Promise<void> {
    let roomId = this.meetingRooms.get(meetingId);
    if (roomId === undefined) {
      const [row] = await tx<{ room_id: string }[]>`SELECT room_id FROM meetings WHERE meeting_id = ${meetingId}`;
      roomId = row ? remember(this.meetingRooms, meetingId, row.room_id) : null;
    }
    if (roomId !== null) await this.checkRoom(tx, roomId);
  }

  async checkParticipant(tx: Sql, participantId: string): Promise<void> {
    let meetingId = this.participantMeetings.get(participantId);
    if (meetingId === undefined) {
      const [row] = await tx<{ meeting_id: string }[]>`
        SELECT meeting_id FROM participants WHERE participant_id = ${participantId}`;
      meetingId = row ? remember(this.participantMeetings, participantId, row.meeting_id) : null;
    }
    if (meetingId !== null) await this.checkMeeting(tx, meetingId);
  }

  private async mainRoomOf(tx: Sql, roomId: string): Promise<string | null> {
    const [row] = await tx<{ main: string }[]>`
      SELECT coalesce(parent_room_id, room_id) AS main FROM rooms WHERE room_id = ${roomId}`;
    // A room not made yet is not remembered: it may be made a sub-group of another.
    return row ? remember(this.mainRooms, roomId, row.main) : null;
  }

  private async checkLease(tx: Sql, roomId: string): Promise<void> {
    const [lease] = await tx<{ owner_node: string; epoch: string }[]>`
      SELECT owner_node, epoch::text FROM room_leases WHERE room_id = ${roomId} FOR SHARE`;
    const held = this.fence.epochOf(roomId);
    if (lease === undefined && held === undefined) return;
    if (lease !== undefined && lease.owner_node === this.fence.nodeId && Number(lease.epoch) === held) return;
    this.fence.lost(roomId);
    throw new LeaseLostError([roomId]);
  }
}
