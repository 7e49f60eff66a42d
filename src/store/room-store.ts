import type { Room, RoomStore } from '../engine/rooms/room.js';
import type { Db } from './database.js';
import { sqliteColumns, type SqliteTypes } from './rows/columns.js';
import { roomFromRow, roomToRow, type RoomRow } from './rows/room-row.js';

type Row = RoomRow<SqliteTypes>;
const toRoom = (row: Row): Room => roomFromRow(row, sqliteColumns);

export class SqliteRoomStore implements RoomStore {
  private readonly statements;
  /**
   * Rooms read so far, by id: every knock and poll-free arrival reads its room, and the rooms
   * table is written only through this object (one process owns the database), so the copy
   * stays true. Only rooms that exist are kept, so unknown ids cannot grow it. A room read inside
   * a transaction is not kept: the transaction may still roll back what it read.
   */
  private readonly known = new Map<string, Room>();

  constructor(private readonly db: Db) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, moderator_link_ttl_secs, access_code_hash, parent_room_id, entry, unlisted, moderator_succession, ephemeral, mics_off_on_entry, owner_account_id, created_at, updated_at)
         VALUES (@room_id, @name, @waiting_room, @waiting_room_mode, @waiting_room_timeout_secs, @moderator_link_ttl_secs, @access_code_hash, @parent_room_id, @entry, @unlisted, @moderator_succession, @ephemeral, @mics_off_on_entry, @owner_account_id, @created_at, @updated_at)
         ON CONFLICT (room_id) DO NOTHING`,
      ),
      get: db.prepare<[string], Row>('SELECT * FROM rooms WHERE room_id = ?'),
      update: db.prepare(
        `UPDATE rooms SET name = @name, waiting_room = @waiting_room, waiting_room_mode = @waiting_room_mode,
           waiting_room_timeout_secs = @waiting_room_timeout_secs, moderator_link_ttl_secs = @moderator_link_ttl_secs,
           access_code_hash = @access_code_hash,
           entry = @entry, unlisted = @unlisted, moderator_succession = @moderator_succession, ephemeral = @ephemeral,
           mics_off_on_entry = @mics_off_on_entry, owner_account_id = @owner_account_id, updated_at = @updated_at
         WHERE room_id = @room_id`,
      ),
      delete: db.prepare<[string]>('DELETE FROM rooms WHERE room_id = ?'),
      children: db.prepare<[string], { room_id: string }>(
        'SELECT room_id FROM rooms WHERE parent_room_id = ? ORDER BY room_id',
      ),
      families: db.prepare<[], { room_id: string; parent_room_id: string | null; name: string }>(
        `SELECT room_id, parent_room_id, name FROM rooms
         WHERE parent_room_id IS NOT NULL OR room_id IN (SELECT parent_room_id FROM rooms WHERE parent_room_id IS NOT NULL)`,
      ),
      listFirst: db.prepare<[number], Row>('SELECT * FROM rooms ORDER BY room_id LIMIT ?'),
      listAfter: db.prepare<[string, number], Row>('SELECT * FROM rooms WHERE room_id > ? ORDER BY room_id LIMIT ?'),
      // Through rooms_by_owner: an organiser's page reads her rooms only.
      ownedFirst: db.prepare<[string, number], Row>(
        'SELECT * FROM rooms WHERE owner_account_id = ? ORDER BY room_id LIMIT ?',
      ),
      ownedAfter: db.prepare<[string, string, number], Row>(
        'SELECT * FROM rooms WHERE owner_account_id = ? AND room_id > ? ORDER BY room_id LIMIT ?',
      ),
      // Through rooms_ephemeral_by_update, then meetings_by_room: no scan of other rooms.
      unusedEphemeral: db.prepare<{ before: string; limit: number }, { room_id: string }>(
        `SELECT r.room_id FROM rooms r
         WHERE r.ephemeral = 1 AND r.updated_at < @before AND r.parent_room_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM meetings m WHERE m.room_id = r.room_id AND (m.ended_at IS NULL OR m.ended_at >= @before))
         ORDER BY r.updated_at LIMIT @limit`,
      ),
    };
  }

  insert(room: Room): boolean {
    this.known.delete(room.roomId);
    return this.statements.insert.run(roomToRow(room, sqliteColumns)).changes === 1;
  }

  get(roomId: string): Room | null {
    const cached = this.known.get(roomId);
    if (cached) return cached;
    const row = this.statements.get.get(roomId);
    if (!row) return null;
    const room = toRoom(row);
    if (!this.db.inTransaction) this.known.set(roomId, room);
    return room;
  }

  update(room: Room): void {
    this.known.delete(room.roomId);
    this.statements.update.run(roomToRow(room, sqliteColumns));
  }

  delete(roomId: string): boolean {
    // The delete cascades to sub-groups: forget them all rather than track the family.
    this.known.clear();
    return this.statements.delete.run(roomId).changes === 1;
  }

  children(roomId: string): string[] {
    return this.statements.children.all(roomId).map((row) => row.room_id);
  }

  families(): { roomId: string; parentRoomId: string | null; name: string }[] {
    return this.statements.families
      .all()
      .map((row) => ({ roomId: row.room_id, parentRoomId: row.parent_room_id, name: row.name }));
  }

  unusedEphemeral(before: string, limit: number): string[] {
    return this.statements.unusedEphemeral.all({ before, limit }).map((row) => row.room_id);
  }

  list(afterRoomId: string | null, limit: number, owner?: string): Room[] {
    const rows =
      owner !== undefined
        ? afterRoomId === null
          ? this.statements.ownedFirst.all(owner, limit)
          : this.statements.ownedAfter.all(owner, afterRoomId, limit)
        : afterRoomId === null
          ? this.statements.listFirst.all(limit)
          : this.statements.listAfter.all(afterRoomId, limit);
    return rows.map(toRoom);
  }
}
