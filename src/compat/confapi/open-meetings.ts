import type { CompatMeeting } from './model.js';

/**
 * The compat meetings not ended, indexed the ways the API asks for them: by (tenant,
 * meetingID), by engine room, by tenant, and the owners of a meetingID. Plain data: it knows
 * nothing of SQLite; `CachedCompatStore` keeps it equal to what is committed.
 *
 * Each record is stored as the immutable object it was written as, so an unchanged meeting is
 * the same object from one read to the next (answers built from it can be cached by identity).
 */
/**
 * Freezes a record and everything in it. The record read is shared by every call and its
 * identity stands for its version (answer-cache.ts): a change made in place would leave a
 * stale answer behind, so it must fail loudly instead (ES modules are strict: a TypeError).
 */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

export class OpenMeetings {
  /** Oldest first: insertion order is create order (the store loads them in that order). */
  private readonly byInternalId = new Map<string, CompatMeeting>();
  private readonly byKey = new Map<string, CompatMeeting>();
  private readonly byRoom = new Map<string, CompatMeeting>();
  private readonly byTenant = new Map<string, Map<string, CompatMeeting>>();
  /** meetingID → tenants holding an open meeting of that id (one per tenant, by the store's unique index). */
  private readonly owners = new Map<string, string[]>();

  private static key(tenantId: string, meetingId: string): string {
    // A tenant id never holds a line feed (registry pattern), so the pair cannot be forged by a meetingID.
    return `${tenantId}\n${meetingId}`;
  }

  get size(): number {
    return this.byInternalId.size;
  }

  /** Records the meeting as written: added or replaced while open, removed once ended. */
  put(meeting: CompatMeeting): void {
    deepFreeze(meeting);
    const previous = this.byInternalId.get(meeting.internalId);
    // The identity fields never change on update; if they did, the old entries must go first.
    const moved =
      previous !== undefined &&
      (previous.tenantId !== meeting.tenantId ||
        previous.meetingId !== meeting.meetingId ||
        previous.roomId !== meeting.roomId);
    if (previous !== undefined && (moved || meeting.endTime !== null)) this.remove(previous);
    if (meeting.endTime !== null) return;
    // Map.set on a present key keeps its place, so an update does not reorder the lists.
    this.byInternalId.set(meeting.internalId, meeting);
    this.byKey.set(OpenMeetings.key(meeting.tenantId, meeting.meetingId), meeting);
    this.byRoom.set(meeting.roomId, meeting);
    let ofTenant = this.byTenant.get(meeting.tenantId);
    if (!ofTenant) this.byTenant.set(meeting.tenantId, (ofTenant = new Map<string, CompatMeeting>()));
    ofTenant.set(meeting.internalId, meeting);
    const owners = this.owners.get(meeting.meetingId);
    if (!owners) this.owners.set(meeting.meetingId, [meeting.tenantId]);
    else if (!owners.includes(meeting.tenantId)) owners.push(meeting.tenantId);
  }

  /** Forgets a meeting that was taken back (its creation failed). */
  drop(internalId: string): void {
    const meeting = this.byInternalId.get(internalId);
    if (meeting) this.remove(meeting);
  }

  private remove(meeting: CompatMeeting): void {
    this.byInternalId.delete(meeting.internalId);
    const key = OpenMeetings.key(meeting.tenantId, meeting.meetingId);
    if (this.byKey.get(key)?.internalId === meeting.internalId) {
      this.byKey.delete(key);
      const owners = this.owners.get(meeting.meetingId)?.filter((t) => t !== meeting.tenantId) ?? [];
      if (owners.length === 0) this.owners.delete(meeting.meetingId);
      else this.owners.set(meeting.meetingId, owners);
    }
    if (this.byRoom.get(meeting.roomId)?.internalId === meeting.internalId) this.byRoom.delete(meeting.roomId);
    const ofTenant = this.byTenant.get(meeting.tenantId);
    ofTenant?.delete(meeting.internalId);
    if (ofTenant?.size === 0) this.byTenant.delete(meeting.tenantId);
  }

  byId(internalId: string): CompatMeeting | null {
    return this.byInternalId.get(internalId) ?? null;
  }

  of(tenantId: string, meetingId: string): CompatMeeting | null {
    return this.byKey.get(OpenMeetings.key(tenantId, meetingId)) ?? null;
  }

  inRoom(roomId: string): CompatMeeting | null {
    return this.byRoom.get(roomId) ?? null;
  }

  /** Oldest first. A copy: callers may end meetings while they walk it. */
  all(): CompatMeeting[] {
    return [...this.byInternalId.values()];
  }

  /** The tenant's open meetings, oldest first. */
  ofTenant(tenantId: string): CompatMeeting[] {
    return [...(this.byTenant.get(tenantId)?.values() ?? [])];
  }

  /** Tenants holding an open meeting of this meetingID. */
  ownersOf(meetingId: string): readonly string[] {
    return this.owners.get(meetingId) ?? [];
  }
}
