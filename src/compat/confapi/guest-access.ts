import type { WaitingRoomPolicy } from '../../engine/rooms/waiting-room-policy.js';
import type { GuestPolicy } from './model.js';

// The guest policy of a meeting-API meeting as its engine room carries it out (moved out of
// meetings.ts unchanged, to keep that file within the house's length).

/**
 * What a meeting's guestPolicy does with a bare-link guest: someone the platform did not
 * authenticate (no join token the API signed, or a `guest=true` join). Upstream's rules:
 * ALWAYS_ACCEPT lets her in, ALWAYS_DENY refuses her, ASK_MODERATOR and ALWAYS_ACCEPT_AUTH
 * (only authenticated users pass unasked) make her ask a moderator.
 */
type GuestDecision = 'accept' | 'wait' | 'deny';

function guestDecision(guestPolicy: GuestPolicy): GuestDecision {
  if (guestPolicy === 'ALWAYS_ACCEPT') return 'accept';
  if (guestPolicy === 'ALWAYS_DENY') return 'deny';
  return 'wait';
}

/** The engine room of a meeting: platform arrivals enter, bare-link guests meet the guest policy. */
interface CompatRoomAccess {
  readonly waiting_room: 'off' | 'guests';
  readonly waiting_room_mode?: 'approval';
  /** `token`: bare-link arrivals are refused (the policy denies them, or nobody could admit them). */
  readonly entry: 'open' | 'token';
}

/** What a bare-link guest (or a `guest=true` join) meets, as the meeting API reports it. */
export type GuestStatus = 'ALLOW' | 'WAIT' | 'DENY';

/**
 * The guest policy as this instance can carry it out: a forced waiting room makes even
 * accepted guests wait, and without a waiting room nobody could admit a guest who must ask,
 * so she is refused. The one decision both the room and `join` follow.
 */
export function guestStatusFor(policy: WaitingRoomPolicy, guestPolicy: GuestPolicy): GuestStatus {
  const decision = guestDecision(guestPolicy);
  if (decision === 'deny' || (decision === 'wait' && policy.waitingRoom === 'off')) return 'DENY';
  return decision === 'wait' || policy.waitingRoom === 'forced' ? 'WAIT' : 'ALLOW';
}

/** The room for a guestPolicy, within the instance's waiting-room policy. */
export function roomAccessFor(policy: WaitingRoomPolicy, guestPolicy: GuestPolicy): CompatRoomAccess {
  const status = guestStatusFor(policy, guestPolicy);
  // A forced instance refuses `off`; `guests` is the nearest scope that still lets every platform arrival in.
  if (status === 'DENY') return { waiting_room: policy.waitingRoom === 'forced' ? 'guests' : 'off', entry: 'token' };
  if (status === 'ALLOW') return { waiting_room: 'off', entry: 'open' };
  // Asking guests are decided one by one unless the instance fixes the mode.
  const approval = guestDecision(guestPolicy) === 'wait' && policy.waitingRoomMode === null;
  return { waiting_room: 'guests', ...(approval ? { waiting_room_mode: 'approval' } : {}), entry: 'open' };
}
