import { createHash } from 'node:crypto';
import type { WaitingRoomScope } from '../../engine/rooms/room.js';
import type { WaitingRoomPolicy } from '../../engine/rooms/waiting-room-policy.js';
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
  if (name.length === 0 || name.length > 200 || name.trim() === '' || /[\u0000-\u001f\u007f-\u009f]/.test(name))
    throw new GatewayRefusal('room_name_invalid');
  return name;
}

/** What the deployment's settings make of a gateway room (COMPAT_JITSI_WAITING_ROOM, open rooms). */
export interface GatewayRoomRules {
  readonly waitingRoom: WaitingRoomScope;
  /** Open rooms (anonymous arrivals allowed) are never left without a moderator. */
  readonly moderatorSuccession: boolean;
}

/** Who arrives, for what a room she makes or finds becomes. */
export interface GatewayArrival {
  /** No token: nobody vouches for her, so a room she makes is ephemeral and making one is limited. */
  readonly anonymous: boolean;
  /** Throws (too_many_rooms) when her client made too many rooms lately; counts one otherwise. */
  readonly mayCreate: () => void;
  readonly nowMs: number;
}

/**
 * An anonymous arrival in an ephemeral room counts as its use, written at most once a minute:
 * the room is then kept a full idle time after its last arrival, not only after its last meeting.
 */
const useRefreshMs = 60_000;

/**
 * The scope gateway rooms are given: COMPAT_JITSI_WAITING_ROOM as far as the instance's
 * SERVICE_WAITING_ROOM allows it (forced turns `off` into `all`; off allows only `off`).
 */
export function gatewayScope(requested: WaitingRoomScope, policy: WaitingRoomPolicy['waitingRoom']): WaitingRoomScope {
  if (policy === 'off') return 'off';
  if (policy === 'forced' && requested === 'off') return 'all';
  return requested;
}

/**
 * Makes the engine room on first arrival (no management API); later arrivals find it, and a
 * room made under other settings takes the current ones, since only the settings describe
 * these rooms (the instance's SERVICE_WAITING_ROOM still decides what a scope may be).
 * A room made by an anonymous arrival is ephemeral (the daemon's sweep deletes it once unused,
 * COMPAT_JITSI_OPEN_ROOM_IDLE_SECS); a token holder's arrival makes it the application's, kept.
 */
export async function ensureRoom(
  rooms: RoomService,
  roomId: string,
  name: string,
  rules: GatewayRoomRules,
  arrival: GatewayArrival,
): Promise<void> {
  const room = await rooms.find(roomId);
  if (!room) {
    if (arrival.anonymous) arrival.mayCreate();
    await rooms.create(
      // An embedding page decides its own start (its startWithAudioMuted), as in the anchor.
      { room_id: roomId, name, waiting_room: rules.waitingRoom, mics_off_on_entry: false },
      { entry: 'token', unlisted: true, moderatorSuccession: rules.moderatorSuccession, ephemeral: arrival.anonymous },
    );
    return;
  }
  if (room.entry === 'closed') throw new GatewayRefusal('room_unavailable');
  const adopted = room.ephemeral && !arrival.anonymous;
  const used = room.ephemeral && arrival.anonymous && arrival.nowMs - Date.parse(room.updatedAt) >= useRefreshMs;
  if (
    room.waitingRoom !== rules.waitingRoom ||
    room.moderatorSuccession !== rules.moderatorSuccession ||
    adopted ||
    used
  ) {
    await rooms.update(
      roomId,
      { waiting_room: rules.waitingRoom },
      { moderatorSuccession: rules.moderatorSuccession, ...(adopted ? { ephemeral: false } : {}) },
    );
  }
}
