import type { AsyncCompatStore } from './async-store.js';
import { DelegatingCompatStore } from './delegating-store.js';
import type { CompatMeeting } from './model.js';
import { OpenMeetings } from './open-meetings.js';

/**
 * The meeting API's store on a node of a cluster (issue 35): every node writes the one PostgreSQL
 * database, so no node's memory may answer for it. Every asynchronous read is a query: a meeting
 * created through another node is found by the next call here. (`CachedCompatStore` stays where
 * one process is the only writer: SQLite, and a single node on PostgreSQL.)
 *
 * Two callers cannot wait for a query: the live connection's lock defaults and mute on start
 * (`openInRoom`, read when a meeting starts in a room this node serves) and the signer's first
 * guesses (`ownersNow`, a shortcut only: every tenant is tried after them). They read the open
 * meetings as this node last read them: the sweep reads the whole list every second, and a node
 * that gains a room reads its meeting before serving it (`readRoom`).
 */
export class SharedCompatStore extends DelegatingCompatStore implements AsyncCompatStore {
  private seen = new OpenMeetings();

  constructor(inner: AsyncCompatStore) {
    super(inner);
  }

  /** How many open meetings the last full read found (for the start log). */
  get openCount(): number {
    return this.seen.size;
  }

  private saw(meeting: CompatMeeting | null): CompatMeeting | null {
    if (meeting) this.seen.put(meeting);
    return meeting;
  }

  /** Reads the open meeting of a room this node just gained, before it serves the room. */
  async readRoom(roomId: string): Promise<void> {
    this.saw(await this.inner.openMeetingInRoom(roomId));
  }

  transaction: AsyncCompatStore['transaction'] = (work) => this.inner.transaction(work);
  insertMeeting: AsyncCompatStore['insertMeeting'] = (meeting) => this.inner.insertMeeting(meeting);
  deleteMeeting: AsyncCompatStore['deleteMeeting'] = (internalId) => this.inner.deleteMeeting(internalId);
  updateMeeting: AsyncCompatStore['updateMeeting'] = (meeting) => this.inner.updateMeeting(meeting);

  async meeting(internalId: string): Promise<CompatMeeting | null> {
    return this.inner.meeting(internalId);
  }

  async openMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    return this.saw(await this.inner.openMeeting(tenantId, meetingId));
  }

  async latestMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    return this.inner.latestMeeting(tenantId, meetingId);
  }

  /** One query; the list read becomes what the synchronous reads answer from. */
  async openMeetings(): Promise<CompatMeeting[]> {
    const open = await this.inner.openMeetings();
    const seen = new OpenMeetings();
    for (const meeting of open) seen.put(meeting);
    this.seen = seen;
    return open;
  }

  async openMeetingsOf(tenantId: string): Promise<CompatMeeting[]> {
    return this.inner.openMeetingsOf(tenantId);
  }

  async openMeetingInRoom(roomId: string): Promise<CompatMeeting | null> {
    return this.saw(await this.inner.openMeetingInRoom(roomId));
  }

  /** The room's open meeting as this node last read it, at once. */
  openInRoom(roomId: string): CompatMeeting | null {
    return this.seen.inRoom(roomId);
  }

  ownersOf: AsyncCompatStore['ownersOf'] = (meetingId) => this.inner.ownersOf(meetingId);

  /** The tenants of an open meeting of that id, as this node last read them, at once. */
  ownersNow(meetingId: string): readonly string[] {
    return this.seen.ownersOf(meetingId);
  }
}
