import { contextSlot } from '../../platform/async-context.js';
import type { AsyncCompatStore } from './async-store.js';
import { DelegatingCompatStore } from './delegating-store.js';
import type { CompatMeeting } from './model.js';
import { OpenMeetings } from './open-meetings.js';

/**
 * The meeting API's store with its open meetings served from memory. Every call of the API
 * on an existing meeting reads the meeting (and the signer's candidates, its owners); those
 * reads come from `OpenMeetings` instead of the database. Memory is only ever a copy of what is
 * committed: it is loaded from the durable store at start (`load`), and a meeting write changes
 * it after the inner store accepted the write, or, inside a transaction, once that transaction
 * committed (a rolled-back write never reaches memory). Ended meetings, chat, callbacks and
 * recordings are read from the inner store as before. The inner store is the asynchronous port
 * (SQLite or PostgreSQL); the memory reads are also offered synchronously (`openInRoom`,
 * `ownersNow`) for callers that cannot wait (the live connection's lock defaults, the signer).
 *
 * Only this process writes the database (the daemon's compat module), so nothing can change
 * it behind memory's back.
 */
export class CachedCompatStore extends DelegatingCompatStore implements AsyncCompatStore {
  private readonly open = new OpenMeetings();
  /** Memory changes waiting for the outermost transaction of this async context to commit. */
  private readonly pending = contextSlot<(() => void)[]>();

  private constructor(inner: AsyncCompatStore) {
    super(inner);
  }

  /** The store over `inner`, its open meetings loaded into memory. */
  static async load(inner: AsyncCompatStore): Promise<CachedCompatStore> {
    const store = new CachedCompatStore(inner);
    for (const meeting of await inner.openMeetings()) store.open.put(meeting);
    return store;
  }

  /** How many open meetings memory holds (for the start log and tests). */
  get openCount(): number {
    return this.open.size;
  }

  private afterCommit(change: () => void): void {
    const pending = this.pending.getStore();
    if (pending) pending.push(change);
    else change();
  }

  /** Reads inside `work` see memory as it was before the transaction (no caller reads back its own writes). */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.pending.getStore();
    if (outer) {
      // A nested transaction is a savepoint: when it rolls back, so do the changes it queued.
      const mark = outer.length;
      try {
        return await this.inner.transaction(work);
      } catch (err) {
        outer.length = mark;
        throw err;
      }
    }
    const pending: (() => void)[] = [];
    const result = await this.pending.run(pending, () => this.inner.transaction(work));
    for (const change of pending) change();
    return result;
  }

  async insertMeeting(meeting: CompatMeeting): Promise<void> {
    await this.inner.insertMeeting(meeting);
    this.afterCommit(() => this.open.put(meeting));
  }

  async deleteMeeting(internalId: string): Promise<void> {
    await this.inner.deleteMeeting(internalId);
    this.afterCommit(() => this.open.drop(internalId));
  }

  async updateMeeting(meeting: CompatMeeting): Promise<void> {
    await this.inner.updateMeeting(meeting);
    this.afterCommit(() => this.open.put(meeting));
  }

  async meeting(internalId: string): Promise<CompatMeeting | null> {
    return this.open.byId(internalId) ?? this.inner.meeting(internalId);
  }

  async openMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    return this.open.of(tenantId, meetingId);
  }

  async latestMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    // The open meeting is the newest one: a create makes a new meeting only when none is open.
    return this.open.of(tenantId, meetingId) ?? this.inner.latestMeeting(tenantId, meetingId);
  }

  async openMeetings(): Promise<CompatMeeting[]> {
    return this.open.all();
  }

  async openMeetingsOf(tenantId: string): Promise<CompatMeeting[]> {
    return this.open.ofTenant(tenantId);
  }

  async openMeetingInRoom(roomId: string): Promise<CompatMeeting | null> {
    return this.open.inRoom(roomId);
  }

  /** `openMeetingInRoom` from memory, at once. */
  openInRoom(roomId: string): CompatMeeting | null {
    return this.open.inRoom(roomId);
  }

  async ownersOf(meetingId: string): Promise<readonly string[]> {
    return this.open.ownersOf(meetingId);
  }

  /** `ownersOf` from memory, at once. */
  ownersNow(meetingId: string): readonly string[] {
    return this.open.ownersOf(meetingId);
  }
}
