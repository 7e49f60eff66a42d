import { WaitingItem } from '../../protocol/live-schemas.js';
import { Type, type TSchema } from '#typebox';
import { timelineKinds } from '../../engine/meetings/timeline.js';
import { waitingRoomModes, waitingRoomScopes } from '../../engine/rooms/room.js';
import type { ErrorCode } from '../error-codes.js';
import { statusByCode } from '../errors.js';

// What the rooms API answers, per status. Fastify serialises every answer through these schemas
// (fast-json-stringify), so a field a schema does not name never leaves the service, whatever
// the engine's objects come to hold; /api/openapi.json is generated from the same schemas.

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The room record; the access code itself never leaves the store (room-view.ts). */
export const RoomAnswer = Type.Object({
  room_id: Type.String(),
  name: Type.String(),
  waiting_room: Type.Enum(waitingRoomScopes),
  waiting_room_mode: Type.Enum(waitingRoomModes),
  waiting_room_timeout_secs: Type.Integer(),
  moderator_link_ttl_secs: Type.Integer(),
  access_code_set: Type.Boolean(),
  mics_off_on_entry: Type.Boolean(),
  parent_room_id: nullable(Type.String()),
  /** The organiser account the room belongs to, and its email; null for a room made with an access token. */
  owner_account_id: nullable(Type.String()),
  owner_email: nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  /** A cluster's node that serves the room now, null when none does; shown to admins by GET only. */
  owner_node: Type.Optional(nullable(Type.String())),
});

export const RoomListAnswer = Type.Object({ rooms: Type.Array(RoomAnswer), next_cursor: nullable(Type.String()) });

/** A join link: its path (with the join token) and how long it is good for. */
export const LinkAnswer = Type.Object({ url: Type.String(), expires_in: Type.Integer() });

/** The waiting list in knock order, as moderators see it on the live socket: nothing about a request's browser or address. */
export const WaitingListAnswer = Type.Array(WaitingItem);

/** `skipped` (admit all only): those left waiting because their name is that of a person barred in this meeting. */
export const AdmitAnswer = Type.Object({ admitted: Type.Integer(), skipped: Type.Optional(Type.Integer()) });

export const RefuseAnswer = Type.Object({ refused: Type.Boolean(), barred: Type.Boolean() });

const person = { participant_id: nullable(Type.String()), name: nullable(Type.String()) };

export const TimelineAnswer = Type.Object({
  meeting_id: nullable(Type.String()),
  entries: Type.Array(
    Type.Object({
      at: Type.String(),
      kind: Type.Enum(timelineKinds),
      actor: nullable(Type.Object({ kind: Type.Enum(['participant', 'api']), ...person })),
      subject: nullable(Type.Object({ request_id: nullable(Type.String()), ...person })),
      count: Type.Optional(Type.Integer()),
      /** admit_all only: those it left waiting because their name is that of a person barred in this meeting. */
      skipped: Type.Optional(Type.Integer()),
    }),
  ),
});

/** The attendance of a meeting as CSV (served as text/csv, not serialised as JSON). */
export const AttendanceCsv = Type.String({ contentMediaType: 'text/csv' });

/** The error body of one status, its code one of those the route may answer with that status. */
const errorAnswer = (codes: readonly ErrorCode[]) =>
  Type.Object({
    error: Type.Object({ code: Type.Enum(codes), message: Type.String(), field: Type.Optional(Type.String()) }),
  });

/** Every route of the API may answer these: no or a bad access token or session, a change without the CSRF defence, a failure of the service, the database out of reach (PostgreSQL). */
const always: readonly ErrorCode[] = ['unauthorized', 'csrf_refused', 'internal_error', 'store_unavailable'];

/** And a route that reads a JSON body these (Fastify's framing and the body's schema). */
export const bodyCodes: readonly ErrorCode[] = [
  'invalid_json',
  'invalid_field',
  'body_too_large',
  'unsupported_media_type',
];

/**
 * A route's `response` schemas: its successful answers, then one error body per status of the
 * codes it may answer with (the one table of errors.ts gives each code its status).
 */
export function answers(
  ok: Readonly<Record<number, TSchema | null>>,
  codes: readonly ErrorCode[],
): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...always, ...codes])) {
    const status = statusByCode[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const response: Record<number, TSchema> = {};
  // An answer without a body (204) is declared as such: Fastify then serialises nothing.
  for (const [status, schema] of Object.entries(ok))
    response[Number(status)] = schema ?? Type.Null({ description: 'no body' });
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) response[status] = errorAnswer(list.sort());
  return response;
}
