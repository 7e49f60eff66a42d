import type { FastifyRequest } from 'fastify';
import { Type, type Static } from '#typebox';
import { refusal } from './validation.js';

// A room id in a path is only a name to look up: a malformed one names no room, so the engine
// answers room_not_found (not a 400), as it always has.
export const RoomParams = Type.Object({ id: Type.String() });
export type RoomParams = Static<typeof RoomParams>;

export const RequestParams = Type.Object({ id: Type.String(), request_id: Type.String() });
export type RequestParams = Static<typeof RequestParams>;

/**
 * A preValidation hook for routes where no body means no fields (arrivals, gestures, links):
 * an absent body or a JSON `null` is validated as `{}`, so a missing field is named as missing.
 */
export function absentBodyIsEmpty(request: FastifyRequest, _reply: unknown, done: () => void): void {
  request.body ??= {};
  done();
}

/** The root refusal of the bodies that were always read as "a JSON object or nothing". */
export const notAnObject = { code: 'invalid_json', message: 'the body must be a JSON object' } as const;

/** Refusing a waiting request: whether to bar the browser too (the room's and the API's refuse). */
export const BarField = Type.Boolean(refusal({ message: 'bar must be true or false' }));
