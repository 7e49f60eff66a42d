import { Type, type Static } from '#typebox';
import { waitingRoomModes, waitingRoomScopes } from '../../engine/rooms/room.js';
import { moderatorLinkTtlBounds, timeoutBounds } from '../../engine/rooms/room-fields.js';
import { pageBounds } from '../../engine/rooms/room-service.js';
import { refusal } from '../validation.js';

// Shape only: the id's pattern, the lengths and the timeout's bounds are the engine's rules
// (engine/rooms/room-fields.ts), which also guard the rooms the meeting API and sub-groups make.
const roomIdRefusal = (field: string) =>
  refusal({ message: `${field} must be 1 to 64 characters of A-Z a-z 0-9 . _ -` });

const fields = {
  room_id: Type.String(roomIdRefusal('room_id')),
  name: Type.String(),
  waiting_room: Type.Enum(waitingRoomScopes),
  waiting_room_mode: Type.Enum(waitingRoomModes),
  waiting_room_timeout_secs: Type.Integer(
    refusal({
      message: `waiting_room_timeout_secs must be an integer from ${timeoutBounds.min} to ${timeoutBounds.max}`,
    }),
  ),
  moderator_link_ttl_secs: Type.Integer(
    refusal({
      message: `moderator_link_ttl_secs must be an integer from ${moderatorLinkTtlBounds.min} to ${moderatorLinkTtlBounds.max}`,
    }),
  ),
  access_code: Type.String(),
  mics_off_on_entry: Type.Boolean(refusal({ message: 'mics_off_on_entry must be true or false' })),
  parent_room_id: Type.String(roomIdRefusal('parent_room_id')),
};

// Unknown fields are refused: a misspelt field silently ignored would leave a room open.
const room = {
  additionalProperties: false,
  ...refusal({ code: 'invalid_field', field: 'body', message: 'the body must be a JSON object', unknownOf: 'a room' }),
};

export const CreateRoomBody = Type.Object(
  {
    room_id: Type.Optional(fields.room_id),
    name: fields.name,
    waiting_room: Type.Optional(fields.waiting_room),
    waiting_room_mode: Type.Optional(fields.waiting_room_mode),
    waiting_room_timeout_secs: Type.Optional(fields.waiting_room_timeout_secs),
    moderator_link_ttl_secs: Type.Optional(fields.moderator_link_ttl_secs),
    access_code: Type.Optional(fields.access_code),
    mics_off_on_entry: Type.Optional(fields.mics_off_on_entry),
    parent_room_id: Type.Optional(fields.parent_room_id),
  },
  room,
);
export type CreateRoomBody = Static<typeof CreateRoomBody>;

/** Any subset; `access_code: null` removes the code; room_id and parent_room_id are named so the engine can say they cannot change. */
export const UpdateRoomBody = Type.Object(
  {
    room_id: Type.Optional(fields.room_id),
    name: Type.Optional(fields.name),
    waiting_room: Type.Optional(fields.waiting_room),
    waiting_room_mode: Type.Optional(fields.waiting_room_mode),
    waiting_room_timeout_secs: Type.Optional(fields.waiting_room_timeout_secs),
    moderator_link_ttl_secs: Type.Optional(fields.moderator_link_ttl_secs),
    access_code: Type.Optional(Type.Union([fields.access_code, Type.Null()])),
    mics_off_on_entry: Type.Optional(fields.mics_off_on_entry),
    parent_room_id: Type.Optional(fields.parent_room_id),
    /** An admin (or an access token) hands the room to the organiser account with this email. */
    owner_email: Type.Optional(Type.String(refusal({ message: 'owner_email must be the email of an account' }))),
  },
  room,
);
export type UpdateRoomBody = Static<typeof UpdateRoomBody>;

/** GET /api/rooms: text as sent (the engine reads the number and the cursor); each once. */
export const RoomListQuery = Type.Object({
  limit: Type.Optional(Type.String(refusal({ message: `limit must be an integer from 1 to ${pageBounds.max}` }))),
  cursor: Type.Optional(Type.String(refusal({ message: 'cursor is not one this API returned' }))),
});
export type RoomListQuery = Static<typeof RoomListQuery>;
