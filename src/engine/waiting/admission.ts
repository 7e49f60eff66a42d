import type { Role } from '../meetings/meeting.js';
import type { Room, WaitingRoomMode, WaitingRoomScope } from '../rooms/room.js';
import type { WaitingRoomPolicy } from '../rooms/waiting-room-policy.js';

/** What a verified join token says about its holder; null or absent for a bare-link guest. */
export interface JoinClaims {
  readonly role: Role;
  readonly source: 'link' | 'lms' | 'integration';
  readonly name?: string;
  /** The platform's id of the person, kept with her participant (analytics `ext_user_id`). */
  readonly uid?: string;
  /** Her picture (an http(s) URL the token service checked), shown on her tile; held while she is present. */
  readonly avatar?: string;
}

/** Someone arriving at a room address (`/room/{id}/start` or `/knock`). */
export interface Arrival {
  readonly roomId: string;
  /** Typed by the person; a name in the claims takes precedence. Checked: 1-64 characters. */
  readonly name?: unknown;
  /** Knock only; 0-280 characters. */
  readonly note?: unknown;
  readonly accessCode?: unknown;
  readonly claims?: JoinClaims | null;
  /**
   * The participant (of the parent room's open meeting) a person arrives as, taken from
   * her verified session: the only way besides a moderator's token into a sub-group.
   */
  readonly fromParticipantId?: string | null;
  /** Who is guessing, for the wrong-code limiter: the client address as the proxy reports it. */
  readonly clientKey: string;
  /** An IPv6 client's /56, whose waiting requests are counted together as well; null or absent for IPv4. */
  readonly clientNetwork?: string | null;
  /** The waiting cookie the browser already holds, if any. */
  readonly secret?: unknown;
}

export function isModerator(claims: JoinClaims | null | undefined): boolean {
  return claims?.role === 'moderator';
}

/** A platform or an integration has authenticated the person already; a plain link has not. */
function isVouchedFor(claims: JoinClaims | null | undefined): boolean {
  return claims?.source === 'lms' || claims?.source === 'integration';
}

/**
 * The access code is asked of those who came with nothing but the room's address (or a
 * participant link); a moderator's token or a platform's token is the credential itself.
 */
export function needsAccessCode(room: Room, claims: JoinClaims | null | undefined): boolean {
  return room.accessCodeHash !== null && !isModerator(claims) && !isVouchedFor(claims);
}

/** The scope in force: `forced` makes a room stored as off verify everyone; `off` verifies nobody. */
/** Sub-groups never wait; otherwise the scope in force (the room's, or the instance's policy) decides. */
export function hasWaitingRoom(policy: WaitingRoomPolicy, room: Room): boolean {
  return room.parentRoomId === null && effectiveScope(policy, room) !== 'off';
}

export function effectiveScope(policy: WaitingRoomPolicy, room: Room): WaitingRoomScope {
  if (policy.waitingRoom === 'off') return 'off';
  if (policy.waitingRoom === 'forced' && room.waitingRoom === 'off') return 'all';
  return room.waitingRoom;
}

export function effectiveMode(policy: WaitingRoomPolicy, room: Room): WaitingRoomMode {
  return policy.waitingRoomMode ?? room.waitingRoomMode;
}

export interface AdmissionContext {
  readonly scope: WaitingRoomScope;
  readonly mode: WaitingRoomMode;
  readonly claims: JoinClaims | null | undefined;
  readonly subgroup: boolean;
  /** Disabled for this meeting by a moderator (never in force under a forced policy). */
  readonly waitingDisabled: boolean;
  readonly moderatorPresent: boolean;
  /** The room is never left without a moderator and has none present: this arrival becomes it. */
  readonly entersAsModerator: boolean;
}

/** Whether this arrival knocks and waits instead of entering. */
export function mustWait(context: AdmissionContext): boolean {
  // A room's next moderator cannot wait: nobody would be there to admit her.
  if (context.subgroup || isModerator(context.claims) || context.entersAsModerator) return false;
  if (context.scope === 'off' || context.waitingDisabled) return false;
  if (context.scope === 'guests' && isVouchedFor(context.claims)) return false;
  if (context.mode === 'until_moderator' && context.moderatorPresent) return false;
  return true;
}
