import { createHash } from 'node:crypto';
import type { RoomService } from '../../engine/rooms/room-service.js';
import { canonicalRoom } from './gateway-token.js';
import { GatewayRefusal } from './refusals.js';

/**
 * The engine room of a gateway room: `vc-` + 128 bits of SHA-256 over the tenant id, the
 * namespace of the path (a prefix that names no tenant, as stock deployments allow) and the
 * room name in its canonical form. Derived rather than stored: the same arrival finds the
 * same meeting after a restart with no table of our own, and two tenants' `math` are two
 * rooms because their tenant ids differ. A derived id is not a secret, so these rooms are
 * entered only with a join token (`entry: token`, unlisted): knowing the id opens nothing.
 */
export function engineRoomId(tenantId: string, namespace: string, room: string): string {
  // A JSON array, so no part can slide into the next whatever characters it holds.
  const digest = createHash('sha256')
    .update(JSON.stringify(['videoconf', tenantId, canonicalRoom(namespace), canonicalRoom(room)]), 'utf8')
    .digest('hex');
  return `vc-${digest.slice(0, 32)}`;
}

/** A room name from the path: 1 to 200 characters, none of them a control character. */
export function checkRoomName(room: string): string {
  const name = room.normalize('NFC');
  // eslint-disable-next-line no-control-regex
  if (name.length === 0 || name.length > 200 || name.trim() === '' || /[\u0000-\u001f\u007f-\u009f]/.test(name)) throw new GatewayRefusal('room_name_invalid');
  return name;
}

/** Makes the engine room on first arrival (no management API); later arrivals find it. */
export function ensureRoom(rooms: RoomService, roomId: string, name: string): void {
  const room = rooms.find(roomId);
  if (room) {
    if (room.entry === 'closed') throw new GatewayRefusal('room_unavailable');
    return;
  }
  rooms.create({ room_id: roomId, name }, { entry: 'token', unlisted: true });
}
