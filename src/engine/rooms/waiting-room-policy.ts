import { EngineError } from '../errors.js';
import type { WaitingRoomMode, WaitingRoomScope } from './room.js';

/** The instance-wide rule (SERVICE_WAITING_ROOM, SERVICE_WAITING_ROOM_MODE). */
export interface WaitingRoomPolicy {
  readonly waitingRoom: 'optional' | 'forced' | 'off';
  readonly waitingRoomMode: WaitingRoomMode | null;
  /**
   * "Microphones off on entry" of a room created without saying: `waiting_room` (on where the
   * room has a waiting room), `on` or `off`. Absent: `waiting_room`.
   */
  readonly micsOffOnEntry?: 'waiting_room' | 'on' | 'off';
  /** A moderator link's lifetime in a room created without `moderator_link_ttl_secs` (SERVICE_MODERATOR_LINK_TTL_SECS). Absent: 120 days. */
  readonly moderatorLinkTtlSecs?: number;
}

/** The scope a room gets when its caller names none (`requested` undefined) or the one it asked for, if allowed. */
export function allowedScope(
  policy: WaitingRoomPolicy,
  requested: WaitingRoomScope | undefined,
  current: WaitingRoomScope | null,
): WaitingRoomScope {
  if (policy.waitingRoom === 'forced') {
    if (requested === 'off') {
      throw new EngineError(
        'waiting_room_forced',
        'this instance forces the waiting room: waiting_room cannot be off',
        'waiting_room',
      );
    }
    return requested ?? (current === null || current === 'off' ? 'all' : current);
  }
  if (policy.waitingRoom === 'off') {
    if (requested !== undefined && requested !== 'off') {
      throw new EngineError(
        'waiting_room_unavailable',
        'the waiting room is turned off on this instance: waiting_room must be off',
        'waiting_room',
      );
    }
    return 'off';
  }
  return requested ?? current ?? 'off';
}

export function allowedMode(
  policy: WaitingRoomPolicy,
  requested: WaitingRoomMode | undefined,
  current: WaitingRoomMode | null,
): WaitingRoomMode {
  const fixed = policy.waitingRoomMode;
  if (fixed !== null) {
    if (requested !== undefined && requested !== fixed) {
      throw new EngineError(
        'waiting_room_mode_fixed',
        `this instance fixes waiting_room_mode to ${fixed}`,
        'waiting_room_mode',
      );
    }
    return fixed;
  }
  return requested ?? current ?? 'approval';
}
