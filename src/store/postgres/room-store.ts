import type { Room } from '../../engine/rooms/room.js';
import type { AsyncRoomStore } from '../../engine/async-ports.js';
import { postgresColumns, type PostgresTypes } from '../rows/columns.js';
import { roomFromRow, roomToRow, type RoomRow } from '../rows/room-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

type Row = RoomRow<PostgresTypes>;
const toRoom = (row: Row): Room => roomFromRow(row, postgresColumns);

/**
 * The rooms on PostgreSQL. Unlike SQLite's store it keeps no copy of the rooms it read: with
 * several nodes on one database another node may change a room, so every read asks the database.
 */
export class PostgresRoomStore implements AsyncRoomStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insert(room: Room): Promise<boolean> {
    const row = roomToRow(room, postgresColumns);
    const result = await this.db`INSERT INTO rooms ${this.db(row)} ON CONFLICT (room_id) DO NOTHING`;
    return result.count === 1;
  }

  async get(roomId: string): Promise<Room | null> {
    const [row] = await this.db<Row[]>`SELECT * FROM rooms WHERE room_id = ${roomId}`;
    return row ? toRoom(row) : null;
  }

  async update(room: Room): Promise<void> {
    const r = roomToRow(room, postgresColumns);
    await this.db`
      UPDATE rooms SET name = ${r.name}, waiting_room = ${r.waiting_room}, waiting_room_mode = ${r.waiting_room_mode},
        waiting_room_timeout_secs = ${r.waiting_room_timeout_secs}, moderator_link_ttl_secs = ${r.moderator_link_ttl_secs},
        access_code_hash = ${r.access_code_hash}, entry = ${r.entry}, unlisted = ${r.unlisted},
        moderator_succession = ${r.moderator_succession}, ephemeral = ${r.ephemeral},
        mics_off_on_entry = ${r.mics_off_on_entry}, owner_account_id = ${r.owner_account_id}, updated_at = ${r.updated_at}
      WHERE room_id = ${r.room_id}`;
  }

  async delete(roomId: string): Promise<boolean> {
    return (await this.db`DELETE FROM rooms WHERE room_id = ${roomId}`).count === 1;
  }

  async children(roomId: string): Promise<string[]> {
    const rows = await this.db<{ room_id: string }[]>`
      SELECT room_id FROM rooms WHERE parent_room_id = ${roomId} ORDER BY room_id COLLATE "C"`;
    return rows.map((row) => row.room_id);
  }

  async families(): Promise<{ roomId: string; parentRoomId: string | null; name: string }[]> {
    const rows = await this.db<{ room_id: string; parent_room_id: string | null; name: string }[]>`
      SELECT room_id, parent_room_id, name FROM rooms
      WHERE parent_room_id IS NOT NULL OR room_id IN (SELECT parent_room_id FROM rooms WHERE parent_room_id IS NOT NULL)`;
    return rows.map((row) => ({ roomId: row.room_id, parentRoomId: row.parent_room_id, name: row.name }));
  }

  async list(afterRoomId: string | null, limit: number, owner?: string): Promise<Room[]> {
    const db = this.db;
    // COLLATE "C": ordered by bytes, as SQLite's BINARY collation, so pages end and resume alike on both stores.
    const rows = await db<Row[]>`
      SELECT * FROM rooms
      WHERE ${owner === undefined ? db`true` : db`owner_account_id = ${owner}`}
        AND ${afterRoomId === null ? db`true` : db`room_id COLLATE "C" > ${afterRoomId}`}
      ORDER BY room_id COLLATE "C" LIMIT ${limit}`;
    return rows.map(toRoom);
  }

  async unusedEphemeral(before: string, limit: number): Promise<string[]> {
    const rows = await this.db<{ room_id: string }[]>`
      SELECT r.room_id FROM rooms r
      WHERE r.ephemeral AND r.updated_at COLLATE "C" < ${before} AND r.parent_room_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM meetings m WHERE m.room_id = r.room_id AND (m.ended_at IS NULL OR m.ended_at >= ${before}))
      ORDER BY r.updated_at LIMIT ${limit}`;
    return rows.map((row) => row.room_id);
  }
}
