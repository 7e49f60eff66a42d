import type { Clock } from '../clock.js';
import { EngineError, invalidField } from '../errors.js';
import { hashAccessCode } from './access-code.js';
import type { AsyncPort } from '../async-port.js';
import type { Room, RoomEntry, RoomStore, WaitingRoomScope } from './room.js';
import { roomIdPattern } from '../../protocol/room-code.js';
import { newReadableId } from './readable-id.js';
import { checkRoomFields, checkRoomId, moderatorLinkTtlBounds, timeoutBounds, type RoomFields } from './room-fields.js';
import { allowedMode, allowedScope, type WaitingRoomPolicy } from './waiting-room-policy.js';

export interface RoomPage {
  readonly rooms: Room[];
  readonly nextCursor: string | null;
}

/**
 * How a room is reached, set by the code that owns the room (the meeting API), never by a
 * rooms-API body: rooms made through the rooms API are open and listed.
 */
export interface RoomReach {
  readonly entry?: RoomEntry;
  readonly unlisted?: boolean;
  readonly moderatorSuccession?: boolean;
  /** Deleted once unused (`expireUnused`): rooms made by anonymous arrivals. */
  readonly ephemeral?: boolean;
  /** The organiser account it is made for (the rooms API with her session); a sub-group takes its parent's. */
  readonly ownerAccountId?: string;
}

/** A new room's "microphones off on entry" when its creator does not say: the instance's rule (a sub-group never waits). */
function micsOffByDefault(policy: WaitingRoomPolicy, scope: WaitingRoomScope, subgroup: boolean): boolean {
  const rule = policy.micsOffOnEntry ?? 'waiting_room';
  if (rule !== 'waiting_room') return rule === 'on';
  return !subgroup && scope !== 'off' && policy.waitingRoom !== 'off';
}

export const pageBounds = { fallback: 50, max: 200 } as const;

/** Readable ids drawn for one room before giving up (each taken one is a 1 in 2^47 event while rooms are few). */
const newIdAttempts = 5;

export class RoomService {
  constructor(
    /** The rooms on the asynchronous port (issue 34 point 2): SQLite's or PostgreSQL's. */
    private readonly store: AsyncPort<RoomStore>,
    private readonly clock: Clock,
    private readonly policy: WaitingRoomPolicy,
    /** Told after a room is gone, so live state of its meeting can be dropped. */
    private readonly onDeleted: (roomId: string) => void = () => {},
    /** A new room's id when its creator chooses none: a readable one (a test passes its own). */
    private readonly newId: () => string = () => newReadableId(),
  ) {}

  /**
   * A room with the id its creator chose, or (none chosen) a new readable one: drawn again if it
   * is taken, which at 47 bits hardly ever happens; a chosen id that is taken is `room_exists`.
   */
  async create(body: RoomFields, reach: RoomReach = {}): Promise<Room> {
    if (body.room_id !== undefined) return this.createAs(body, reach);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createAs({ ...body, room_id: this.newId() }, reach);
      } catch (err) {
        if (!(err instanceof EngineError && err.code === 'room_exists') || attempt >= newIdAttempts) throw err;
      }
    }
  }

  private async createAs(body: RoomFields, reach: RoomReach): Promise<Room> {
    const fields = checkRoomFields(body, 'create');
    const parent = fields.parent_room_id === undefined ? null : await this.parentOf(fields.parent_room_id);
    const now = this.clock.now().toISOString();
    // A sub-group never waits whatever it says, so the instance policy has nothing to refuse there.
    const waitingRoom = parent ? (fields.waiting_room ?? 'off') : allowedScope(this.policy, fields.waiting_room, null);
    const room: Room = {
      roomId: fields.room_id!,
      name: fields.name!,
      waitingRoom,
      waitingRoomMode: parent
        ? (fields.waiting_room_mode ?? 'approval')
        : allowedMode(this.policy, fields.waiting_room_mode, null),
      waitingRoomTimeoutSecs: fields.waiting_room_timeout_secs ?? timeoutBounds.fallback,
      moderatorLinkTtlSecs:
        fields.moderator_link_ttl_secs ?? this.policy.moderatorLinkTtlSecs ?? moderatorLinkTtlBounds.fallback,
      accessCodeHash: fields.access_code ? hashAccessCode(fields.access_code) : null,
      parentRoomId: parent?.roomId ?? null,
      entry: reach.entry ?? 'open',
      unlisted: reach.unlisted ?? false,
      moderatorSuccession: reach.moderatorSuccession ?? false,
      ephemeral: reach.ephemeral ?? false,
      micsOffOnEntry: fields.mics_off_on_entry ?? micsOffByDefault(this.policy, waitingRoom, parent !== null),
      ownerAccountId: parent ? parent.ownerAccountId : (reach.ownerAccountId ?? null),
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.store.insert(room))) {
      throw new EngineError('room_exists', `a room with room_id ${room.roomId} exists already`, 'room_id');
    }
    return room;
  }

  private async parentOf(roomId: string): Promise<Room> {
    const parent = await this.lookup(roomId);
    if (!parent) throw invalidField('parent_room_id', `no room has room_id ${roomId}`);
    if (parent.parentRoomId !== null)
      throw invalidField('parent_room_id', 'a sub-group cannot have sub-groups of its own');
    return parent;
  }

  /** The room, or null: for callers to whom a missing room is an answer, not an error. */
  async find(roomId: string): Promise<Room | null> {
    return this.lookup(roomId);
  }

  async get(roomId: string): Promise<Room> {
    return this.existing(roomId);
  }

  async update(roomId: string, body: RoomFields, reach: RoomReach = {}): Promise<Room> {
    const current = await this.existing(roomId);
    const fields = checkRoomFields(body, 'update');
    if (fields.room_id !== undefined && fields.room_id !== roomId) {
      throw invalidField('room_id', 'room_id cannot be changed');
    }
    const subgroup = current.parentRoomId !== null;
    const room: Room = {
      ...current,
      name: fields.name ?? current.name,
      waitingRoom: subgroup
        ? (fields.waiting_room ?? current.waitingRoom)
        : allowedScope(this.policy, fields.waiting_room, current.waitingRoom),
      waitingRoomMode: subgroup
        ? (fields.waiting_room_mode ?? current.waitingRoomMode)
        : allowedMode(this.policy, fields.waiting_room_mode, current.waitingRoomMode),
      waitingRoomTimeoutSecs: fields.waiting_room_timeout_secs ?? current.waitingRoomTimeoutSecs,
      moderatorLinkTtlSecs: fields.moderator_link_ttl_secs ?? current.moderatorLinkTtlSecs,
      accessCodeHash:
        fields.access_code === undefined
          ? current.accessCodeHash
          : fields.access_code === null
            ? null
            : hashAccessCode(fields.access_code),
      entry: reach.entry ?? current.entry,
      unlisted: reach.unlisted ?? current.unlisted,
      moderatorSuccession: reach.moderatorSuccession ?? current.moderatorSuccession,
      ephemeral: reach.ephemeral ?? current.ephemeral,
      micsOffOnEntry: fields.mics_off_on_entry ?? current.micsOffOnEntry,
      updatedAt: this.clock.now().toISOString(),
    };
    await this.store.update(room);
    return room;
  }

  /**
   * Gives the room, with its sub-groups, to another organiser account (an admin's gesture; the
   * caller checks who asks and that the account exists). A sub-group follows its parent only.
   */
  async handOver(roomId: string, ownerAccountId: string): Promise<Room> {
    const current = await this.existing(roomId);
    if (current.parentRoomId !== null)
      throw invalidField('owner_email', "a sub-group belongs to its parent room's organiser");
    const updatedAt = this.clock.now().toISOString();
    for (const id of [roomId, ...(await this.store.children(roomId))]) {
      const room = await this.store.get(id);
      if (room) await this.store.update({ ...room, ownerAccountId, updatedAt });
    }
    return this.existing(roomId);
  }

  /** Deletes the room and, by cascade, its sub-groups; each one's live meeting is dropped too. */
  async delete(roomId: string): Promise<void> {
    const children = checkRoomIdOrMissing(roomId) ? await this.store.children(roomId) : [];
    if (!checkRoomIdOrMissing(roomId) || !(await this.store.delete(roomId))) {
      throw new EngineError('room_not_found', `no room has room_id ${roomId}`);
    }
    for (const id of [roomId, ...children]) this.onDeleted(id);
  }

  /**
   * Deletes ephemeral rooms (with their meetings' records) unused for `idleMs`: no change and no
   * meeting in that time, none open now. At most `limit` a call, so a backlog is spread over
   * several sweeps instead of holding the database in one long turn. Returns the ids deleted.
   */
  async expireUnused(idleMs: number, limit = 200): Promise<string[]> {
    const before = new Date(this.clock.now().getTime() - idleMs).toISOString();
    const expired = await this.store.unusedEphemeral(before, limit);
    for (const roomId of expired) {
      if (await this.store.delete(roomId)) this.onDeleted(roomId);
    }
    return expired;
  }

  /** Keyset pagination by room id; the cursor is opaque to callers. Only the rooms of `owner` when given. */
  async list(query: { limit?: string; cursor?: string }, owner?: string): Promise<RoomPage> {
    const limit = parseLimit(query.limit);
    const after = query.cursor === undefined || query.cursor === '' ? null : decodeCursor(query.cursor);
    const rooms = await this.store.list(after, limit + 1, owner);
    const page = rooms.slice(0, limit);
    const last = page.at(-1);
    return {
      rooms: page,
      nextCursor: rooms.length > limit && last ? Buffer.from(last.roomId).toString('base64url') : null,
    };
  }

  private async lookup(roomId: string): Promise<Room | null> {
    return checkRoomIdOrMissing(roomId) ? this.store.get(roomId) : null;
  }

  private async existing(roomId: string): Promise<Room> {
    const room = await this.lookup(roomId);
    if (!room) throw new EngineError('room_not_found', `no room has room_id ${roomId}`);
    return room;
  }
}

function checkRoomIdOrMissing(roomId: string): boolean {
  return roomIdPattern.test(roomId);
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return pageBounds.fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > pageBounds.max) {
    throw invalidField('limit', `limit must be an integer from 1 to ${pageBounds.max}`);
  }
  return value;
}

function decodeCursor(raw: string): string {
  const decoded = Buffer.from(raw, 'base64url').toString('utf8');
  try {
    return checkRoomId(decoded, 'cursor');
  } catch {
    throw invalidField('cursor', 'cursor is not one this API returned');
  }
}
