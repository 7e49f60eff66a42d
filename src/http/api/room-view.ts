import type { Room } from '../../engine/rooms/room.js';

/** The room record as the rooms API shows it; the access code itself never leaves the store. */
export function roomView(room: Room) {
  return {
    room_id: room.roomId,
    name: room.name,
    waiting_room: room.waitingRoom,
    waiting_room_mode: room.waitingRoomMode,
    waiting_room_timeout_secs: room.waitingRoomTimeoutSecs,
    moderator_link_ttl_secs: room.moderatorLinkTtlSecs,
    access_code_set: room.accessCodeHash !== null,
    mics_off_on_entry: room.micsOffOnEntry,
    parent_room_id: room.parentRoomId,
    created_at: room.createdAt,
    updated_at: room.updatedAt,
  };
}
