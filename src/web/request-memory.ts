import { storedGet, storedRemove, storedSet } from './stored.js';

/**
 * Whether this tab has a waiting request in a room, so that the page polls only a request it
 * made. The request itself is named by an httpOnly cookie the page cannot read; without this
 * note every arrival's first poll asked about a request that did not exist, and the server's
 * honest 404 showed as an error in the browser's console. Per tab (session storage), like the
 * typed name: a reload finds it, a new tab starts afresh. Where storage is refused (a
 * third-party frame), nothing is remembered and an embedded page knocks again on load, which
 * the server answers with the request the cookie already names.
 */
const key = (roomId: string) => `meet.knocked.${roomId}`;

export function rememberRequest(roomId: string): void {
  storedSet('session', key(roomId), '1');
}

/** The request is over (withdrawn, answered, or its admission spent): a reload starts afresh. */
export function forgetRequest(roomId: string): void {
  storedRemove('session', key(roomId));
}

export function madeRequest(roomId: string): boolean {
  return storedGet('session', key(roomId)) === '1';
}
