import type { CompatMeeting, CompatStore } from './model.js';
import { OpenMeetings } from './open-meetings.js';

/**
 * The meeting API's store with its open meetings served from memory. Every call of the API
 * on an existing meeting reads the meeting (and the signer's candidates, its owners); those
 * reads come from `OpenMeetings` instead of SQLite. Memory is only ever a copy of what is
 * committed: it is loaded from the durable store at start, and a meeting write changes it
 * after the inner store accepted the write, or, inside a transaction, once that transaction
 * committed (a rolled-back write never reaches memory). Ended meetings, chat, callbacks and
 * recordings are read from the inner store as before.
 *
 * Only this process writes the database (the daemon's compat module), so nothing can change
 * it behind memory's back.
 */
export class CachedCompatStore implements CompatStore {
  private readonly open = new OpenMeetings();
  /** Memory changes waiting for the outermost transaction to commit; null outside one. */
  private pending: (() => void)[] | null = null;

  constructor(private readonly inner: CompatStore) {
    for (const meeting of inner.openMeetings()) this.open.put(meeting);
  }

  /** How many open meetings memory holds (for the start log and tests). */
  get openCount(): number {
    return this.open.size;
  }

  private afterCommit(change: () => void): void {
    if (this.pending) this.pending.push(change);
    else change();
  }

  /** Reads inside `fn` see memory as it was before the transaction (no caller reads back its own writes). */
  transaction<T>(fn: () => T): T {
    const outermost = this.pending === null;
    if (outermost) this.pending = [];
    const pending = this.pending!;
    // A nested transaction is a savepoint: when it rolls back, so do the changes it queued.
    const mark = pending.length;
    try {
      const result = this.inner.transaction(fn);
      if (outermost) {
        this.pending = null;
        for (const change of pending) change();
      }
      return result;
    } catch (err) {
      if (outermost) this.pending = null;
      else pending.length = mark;
      throw err;
    }
  }

  insertMeeting(meeting: CompatMeeting): void {
    this.inner.insertMeeting(meeting);
    this.afterCommit(() => this.open.put(meeting));
  }

  deleteMeeting(internalId: string): void {
    this.inner.deleteMeeting(internalId);
    this.afterCommit(() => this.open.drop(internalId));
  }

  updateMeeting(meeting: CompatMeeting): void {
    this.inner.updateMeeting(meeting);
    this.afterCommit(() => this.open.put(meeting));
  }

  meeting(internalId: string): CompatMeeting | null {
    return this.open.byId(internalId) ?? this.inner.meeting(internalId);
  }

  openMeeting(tenantId: string, meetingId: string): CompatMeeting | null {
    return this.open.of(tenantId, meetingId);
  }

  latestMeeting(tenantId: string, meetingId: string): CompatMeeting | null {
    // The open meeting is the newest one: a create makes a new meeting only when none is open.
    return this.open.of(tenantId, meetingId) ?? this.inner.latestMeeting(tenantId, meetingId);
  }

  openMeetings(): CompatMeeting[] {
    return this.open.all();
  }

  openMeetingsOf(tenantId: string): CompatMeeting[] {
    return this.open.ofTenant(tenantId);
  }

  openMeetingInRoom(roomId: string): CompatMeeting | null {
    return this.open.inRoom(roomId);
  }

  ownersOf(meetingId: string): readonly string[] {
    return this.open.ownersOf(meetingId);
  }

  endedRoomIds: CompatStore['endedRoomIds'] = () => this.inner.endedRoomIds();
  setCustomData: CompatStore['setCustomData'] = (internalId, userKey, data) =>
    this.inner.setCustomData(internalId, userKey, data);
  customDataOf: CompatStore['customDataOf'] = (internalId) => this.inner.customDataOf(internalId);
  appendChat: CompatStore['appendChat'] = (record) => this.inner.appendChat(record);
  chatOf: CompatStore['chatOf'] = (internalId) => this.inner.chatOf(internalId);
  insertCallback: CompatStore['insertCallback'] = (job) => this.inner.insertCallback(job);
  updateCallback: CompatStore['updateCallback'] = (job) => this.inner.updateCallback(job);
  pendingCallbacks: CompatStore['pendingCallbacks'] = () => this.inner.pendingCallbacks();
  insertRecording: CompatStore['insertRecording'] = (recording) => this.inner.insertRecording(recording);
  updateRecording: CompatStore['updateRecording'] = (recording) => this.inner.updateRecording(recording);
  deleteRecording: CompatStore['deleteRecording'] = (recordId) => this.inner.deleteRecording(recordId);
  recordings: CompatStore['recordings'] = (tenantId, filter) => this.inner.recordings(tenantId, filter);

  close(): void {
    this.inner.close();
  }
}
