import type { Room } from '../../engine/rooms/room.js';

/**
 * The room record as the rooms API shows it; the access code itself never leaves the store. Its
 * owner by id and email (`ownerEmail` finds the latter; null for a room made with an access token).
 */
export function roomView(room: Room, ownerEmail: (accountId: string) => string | null = () => null) {
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
    owner_account_id: room.ownerAccountId,
    owner_email: room.ownerAccountId === null ? null : ownerEmail(room.ownerAccountId),
    created_at: room.createdAt,
    updated_at: room.updatedAt,
  };
}
