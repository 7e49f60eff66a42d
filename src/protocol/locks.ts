/**
 * The lock rule, applied by the server (the live meeting, the media relay) and by the page (its
 * buttons): what a role may send under a meeting's locks. Locks bind participants, never
 * moderators. No imports but the wire's types, like live.ts: the page's bundle compiles it in.
 */
import type { Locks, Role } from './live.js';

/** Audio: a participant only while microphones are not locked. */
export function mayAudio(role: Role, locks: Locks): boolean {
  return role === 'moderator' || !locks.mic;
}

/** Video, screen sharing included (both are video sections of one connection): a participant only while cameras are open to all. */
export function mayVideo(role: Role, locks: Locks): boolean {
  return role === 'moderator' || (!locks.cam && !locks.cams_moderators_only);
}
