import type { Room } from '../../engine/rooms/room.js';
import type { Columns, StoreTypes } from './columns.js';

/** A row of `rooms`, on either store. */
export interface RoomRow<S extends StoreTypes> {
  room_id: string;
  name: string;
  waiting_room: Room['waitingRoom'];
  waiting_room_mode: Room['waitingRoomMode'];
  waiting_room_timeout_secs: number;
  moderator_link_ttl_secs: number;
  access_code_hash: string | null;
  parent_room_id: string | null;
  entry: Room['entry'];
  unlisted: S['flag'];
  moderator_succession: S['flag'];
  ephemeral: S['flag'];
  mics_off_on_entry: S['flag'];
  owner_account_id: string | null;
  created_at: string;
  updated_at: string;
}

export function roomFromRow<S extends StoreTypes>(row: RoomRow<S>, c: Columns<S>): Room {
  return {
    roomId: row.room_id,
    name: row.name,
    waitingRoom: row.waiting_room,
    waitingRoomMode: row.waiting_room_mode,
    waitingRoomTimeoutSecs: row.waiting_room_timeout_secs,
    moderatorLinkTtlSecs: row.moderator_link_ttl_secs,
    accessCodeHash: row.access_code_hash,
    parentRoomId: row.parent_room_id,
    entry: row.entry,
    unlisted: c.flag(row.unlisted),
    moderatorSuccession: c.flag(row.moderator_succession),
    ephemeral: c.flag(row.ephemeral),
    micsOffOnEntry: c.flag(row.mics_off_on_entry),
    ownerAccountId: row.owner_account_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function roomToRow<S extends StoreTypes>(room: Room, c: Columns<S>): RoomRow<S> {
  return {
    room_id: room.roomId,
    name: room.name,
    waiting_room: room.waitingRoom,
    waiting_room_mode: room.waitingRoomMode,
    waiting_room_timeout_secs: room.waitingRoomTimeoutSecs,
    moderator_link_ttl_secs: room.moderatorLinkTtlSecs,
    access_code_hash: room.accessCodeHash,
    parent_room_id: room.parentRoomId,
    entry: room.entry,
    unlisted: c.toFlag(room.unlisted),
    moderator_succession: c.toFlag(room.moderatorSuccession),
    ephemeral: c.toFlag(room.ephemeral),
    mics_off_on_entry: c.toFlag(room.micsOffOnEntry),
    owner_account_id: room.ownerAccountId,
    created_at: room.createdAt,
    updated_at: room.updatedAt,
  };
}
