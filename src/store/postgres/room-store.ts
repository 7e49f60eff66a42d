import type { Room } from '../../engine/rooms/room.js';
import type { AsyncRoomStore } from '../../engine/async-ports.js';
import { postgresColumns, type PostgresTypes } from '../rows/columns.js';
import { roomFromRow, roomToRow, type RoomRow } from '../rows/room-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

type Row = RoomRow<PostgresTypes>;
const toRoom = (row: Row): Room => roomFromRow(row, postgresColumns);

/**
 * The rooms on PostgreSQL. With `keep` (one daemon owns the database, as the serving daemon does
 * until several nodes share it) it keeps the rooms it read, as SQLite's store does: every knock
 * reads its room inside the room's turn, and a read that waits for the database there splits the
 * knocks arriving together into a transaction each. Without it (several nodes, where another
 * node may change a room) every read asks the database.
 *
 * Units run side by side on PostgreSQL, so a kept copy must never be older than a commit: a read
 * is kept only if no room write started while it ran and no unit that wrote a room is still open,
 * and every write forgets what was kept when it starts, when it returns and when its unit settles.
 */
export class PostgresRoomStore implements AsyncRoomStore {
  private readonly known = new Map<string, Room>();
  /** Room writes so far (each counted when it starts, returns and its unit settles): a read kept only if none came meanwhile. */
  private writes = 0;
  /** Units that wrote a room and have not committed or rolled back yet. */
  private openWriters = 0;

  constructor(
    private readonly unit: PostgresUnitOfWork,
    private readonly keep = false,
  ) {}

  private get db() {
    return this.unit.connection();
  }

  /** Around every write: what was kept is forgotten before, after, and once the unit settles. */
  private async writing<T>(write: () => Promise<T>): Promise<T> {
    if (!this.keep) return write();
    const forget = () => {
      this.writes += 1;
      this.known.clear();
    };
    forget();
    const inUnit = this.unit.inside();
    if (inUnit) {
      this.openWriters += 1;
      this.unit.whenSettled(() => {
        this.openWriters -= 1;
        forget();
      });
    }
    try {
      return await write();
    } finally {
      forget();
    }
  }

  /** What was kept of `roomId` is read anew on its next get (another node may have changed it). */
  forget(roomId: string): void {
    this.known.delete(roomId);
  }

  insert(room: Room): Promise<boolean> {
    return this.writing(async () => {
      await this.unit.fenceRoom(room.parentRoomId ?? room.roomId);
      const row = roomToRow(room, postgresColumns);
      const result = await this.db`INSERT INTO rooms ${this.db(row)} ON CONFLICT (room_id) DO NOTHING`;
      return result.count === 1;
    });
  }

  async get(roomId: string): Promise<Room | null> {
    const kept = this.known.get(roomId);
    if (kept) return kept;
    const since = this.writes;
    const [row] = await this.db<Row[]>`SELECT * FROM rooms WHERE room_id = ${roomId}`;
    if (!row) return null;
    const room = toRoom(row);
    // Only rooms that exist, read outside a unit, with no room write begun or open meanwhile.
    if (this.keep && !this.unit.inside() && this.openWriters === 0 && since === this.writes)
      this.known.set(roomId, room);
    return room;
  }

  update(room: Room): Promise<void> {
    return this.writing(async () => {
      await this.unit.fenceRoom(room.roomId);
      await this.updateNow(room);
    });
  }

  private async updateNow(room: Room): Promise<void> {
    const r = roomToRow(room, postgresColumns);
    await this.db`
      UPDATE rooms SET name = ${r.name}, waiting_room = ${r.waiting_room}, waiting_room_mode = ${r.waiting_room_mode},
        waiting_room_timeout_secs = ${r.waiting_room_timeout_secs}, moderator_link_ttl_secs = ${r.moderator_link_ttl_secs},
        access_code_hash = ${r.access_code_hash}, entry = ${r.entry}, unlisted = ${r.unlisted},
        moderator_succession = ${r.moderator_succession}, ephemeral = ${r.ephemeral},
        mics_off_on_entry = ${r.mics_off_on_entry}, owner_account_id = ${r.owner_account_id}, updated_at = ${r.updated_at}
      WHERE room_id = ${r.room_id}`;
  }

  delete(roomId: string): Promise<boolean> {
    return this.writing(async () => {
      await this.unit.fenceRoom(roomId);
      return (await this.db`DELETE FROM rooms WHERE room_id = ${roomId}`).count === 1;
    });
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
