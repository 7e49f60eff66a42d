import { roomIdPattern } from '../../protocol/room-code.js';
import { invalidField } from '../errors.js';
import { waitingRoomModes, waitingRoomScopes, type WaitingRoomMode, type WaitingRoomScope } from './room.js';

export const timeoutBounds = { min: 30, max: 3600, fallback: 600 } as const;
/** A moderator's link: an hour to a year; by default 120 days, a school term (issue 31: a teacher comes back to her lesson). */
export const moderatorLinkTtlBounds = { min: 3600, max: 365 * 86_400, fallback: 120 * 86_400 } as const;

/** Fields a caller may set on a room; absent ones are undefined, a removed access code is null. */
export interface RoomFields {
  readonly room_id?: string;
  readonly name?: string;
  readonly waiting_room?: WaitingRoomScope;
  readonly waiting_room_mode?: WaitingRoomMode;
  readonly waiting_room_timeout_secs?: number;
  readonly moderator_link_ttl_secs?: number;
  readonly access_code?: string | null;
  readonly mics_off_on_entry?: boolean;
  /** Create only: makes the room a sub-group of that room. */
  readonly parent_room_id?: string;
}

function stringWithin(field: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string') throw invalidField(field, `${field} must be a string`);
  if (value.length < min || value.length > max) {
    throw invalidField(field, `${field} must be ${min} to ${max} characters long (got ${value.length})`);
  }
  return value;
}

function integerWithin(field: string, value: unknown, bounds: { readonly min: number; readonly max: number }): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw invalidField(
      field,
      `${field} must be an integer from ${bounds.min} to ${bounds.max} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function member<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalidField(field, `${field} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
}

export function checkRoomId(value: unknown, field = 'room_id'): string {
  if (typeof value !== 'string' || !roomIdPattern.test(value)) {
    throw invalidField(field, `${field} must be 1 to 64 characters of A-Z a-z 0-9 . _ -`);
  }
  return value;
}

/**
 * Checks the values of a create (all required ones present) or an update (any subset). The
 * shape (an object, known fields, their types) is the caller's: the rooms API declares it as a
 * schema (http/api/rooms-schemas.ts) and the other callers are typed; the types are still
 * checked here, cheaply, since the rules must hold whoever calls.
 */
export function checkRoomFields(raw: RoomFields, kind: 'create' | 'update'): RoomFields {
  const out: { -readonly [K in keyof RoomFields]: RoomFields[K] } = {};
  // A create without one gets a readable id from the service (issue 32 point 5).
  if (raw.room_id !== undefined) out.room_id = checkRoomId(raw.room_id);
  if (raw.name !== undefined || kind === 'create') {
    if (raw.name === undefined) throw invalidField('name', 'name is required');
    out.name = stringWithin('name', raw.name, 1, 200);
    if (out.name.trim() === '') throw invalidField('name', 'name must not be blank');
  }
  if (raw.waiting_room !== undefined) out.waiting_room = member('waiting_room', raw.waiting_room, waitingRoomScopes);
  if (raw.waiting_room_mode !== undefined) {
    out.waiting_room_mode = member('waiting_room_mode', raw.waiting_room_mode, waitingRoomModes);
  }
  if (raw.waiting_room_timeout_secs !== undefined) {
    const value = raw.waiting_room_timeout_secs;
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < timeoutBounds.min ||
      value > timeoutBounds.max
    ) {
      throw invalidField(
        'waiting_room_timeout_secs',
        `waiting_room_timeout_secs must be an integer from ${timeoutBounds.min} to ${timeoutBounds.max} (got ${JSON.stringify(value)})`,
      );
    }
    out.waiting_room_timeout_secs = value;
  }
  if (raw.mics_off_on_entry !== undefined) {
    if (typeof raw.mics_off_on_entry !== 'boolean')
      throw invalidField('mics_off_on_entry', 'mics_off_on_entry must be true or false');
    out.mics_off_on_entry = raw.mics_off_on_entry;
  }
  if (raw.moderator_link_ttl_secs !== undefined) {
    out.moderator_link_ttl_secs = integerWithin(
      'moderator_link_ttl_secs',
      raw.moderator_link_ttl_secs,
      moderatorLinkTtlBounds,
    );
  }
  if (raw.parent_room_id !== undefined) {
    if (kind === 'update') throw invalidField('parent_room_id', 'parent_room_id cannot be changed');
    out.parent_room_id = checkRoomId(raw.parent_room_id, 'parent_room_id');
  }
  if (raw.access_code === null && kind === 'update') out.access_code = null;
  else if (raw.access_code !== undefined) out.access_code = stringWithin('access_code', raw.access_code, 4, 64);
  return out;
}
