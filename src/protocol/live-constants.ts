/**
 * The plain constants of the live protocol (live.ts re-exports them). They sit apart from the
 * schemas (live-schemas.ts) so that the page, which imports them as values, never loads typebox:
 * its bundle takes these constants and, from the schemas, types only.
 */

/** The most ids one `view` may name: a page of the grid (25) and then some. */
export const viewLimit = 64;

/** The longest participant id a `view` may name (ids are far shorter; this bounds what a client can make the server hold). */
export const viewIdMaxLength = 128;

/**
 * The reactions a participant may send (`react`): shown briefly on her tile to everyone in the
 * room. A closed list, so a reaction is never text someone typed.
 */
export const reactions = ['thumbs_up', 'thumbs_down', 'clap', 'celebrate', 'laugh', 'surprised', 'heart'] as const;

export const sfuPeers = { publish: 'sfu:publish', subscribe: 'sfu:subscribe' } as const;

/**
 * The one table of the `error` message's codes: code → when it is sent. A code not here does not
 * compile on either side. Some are the engine's refusal of a gesture passed on with its own code
 * and words (`isLiveErrorCode` decides which may pass).
 */
export const liveErrorCodes = {
  invalid_message: 'the frame is not a message of this protocol, or a value in it is out of range',
  rate_limited: 'too many messages of this kind in a short time; the message was dropped',
  not_moderator: 'only a moderator may do this',
  locked: 'a moderator locked the microphone or camera for participants',
  invalid_signal: 'a signal that is not a session description or candidate this service relays',
  participant_not_found: 'the participant named is not connected here, or the sender is no longer present',
  invalid_field: 'a value the meeting refuses (a name, a subject, a sub-group room, herself as the one to remove)',
  room_exists: 'a sub-group room id is taken by a room that is not a sub-group of this one',
  meeting_not_found: 'the room has no meeting in progress',
  waiting_room_unavailable: 'this room has no waiting room to turn on',
  waiting_room_forced: 'the instance forces the waiting room; it cannot be turned off',
} as const satisfies Record<string, string>;

export type LiveErrorCode = keyof typeof liveErrorCodes;

export function isLiveErrorCode(code: string): code is LiveErrorCode {
  return Object.hasOwn(liveErrorCodes, code);
}

/**
 * WebSocket close codes the server uses (4000-4999 are the application's). `restarting`: the
 * daemon is stopping (SIGTERM/SIGINT); the page says so and comes back once the service answers.
 * `removed`: a moderator removed her (after the `removed` message); the page must not reconnect.
 */
export const closeCodes = { unauthorized: 4401, removed: 4403, replaced: 4409, ended: 4410, restarting: 4503 } as const;

/**
 * A socket that kept sending far beyond its allowance (twice the count of a window, after
 * `rate_limited`) is closed with the WebSocket's own "policy violation". It is not one of
 * `closeCodes`, so the page treats it as a lost connection and comes back after its back-off.
 */
export const floodCloseCode = 1008;
