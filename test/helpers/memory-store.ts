import type { Meeting, MeetingStore, Participant } from '../../src/engine/meetings/meeting.js';
import type { TimelineEntry } from '../../src/engine/meetings/timeline.js';
import type { Room, RoomStore } from '../../src/engine/rooms/room.js';
import {
  pollableStates,
  type WaitingRequest,
  type WaitingRequestStore,
} from '../../src/engine/waiting/waiting-request.js';

type ParticipantRow = Omit<Participant, 'roomId'> & { seq: number };

/**
 * Every table of the engine in plain maps. Records are copied in and out, as a database
 * would, so a test sees what was written, not the service's live object. `reads` counts
 * read calls so a test can assert the poll path touches no store.
 */
export class MemoryStore implements MeetingStore, WaitingRequestStore, Pick<RoomStore, 'get'> {
  readonly rooms = new Map<string, Room>();
  readonly meetings = new Map<string, Meeting>();
  readonly participants = new Map<string, ParticipantRow>();
  readonly requests = new Map<string, WaitingRequest & { seq: number }>();
  readonly timeline: TimelineEntry[] = [];
  reads = 0;
  writes = 0;
  /** Outermost units committed (memory-unit.ts): what a durable commit (an fsync) costs on disk. */
  commits = 0;
  /** Set to make every commit fail from now on, as a full disk would (the writes are rolled back). */
  commitError: Error | null = null;
  private seq = 0;

  /** Every table as it is now (the asynchronous unit of work's rollback point, memory-unit.ts). */
  snapshot() {
    return {
      meetings: new Map(this.meetings),
      participants: new Map(this.participants),
      requests: new Map(this.requests),
      timeline: [...this.timeline],
      seq: this.seq,
    };
  }

  /** Every table back to `saved`. */
  restore(saved: ReturnType<MemoryStore['snapshot']>): void {
    for (const [table, rows] of [
      [this.meetings, saved.meetings],
      [this.participants, saved.participants],
      [this.requests, saved.requests],
    ] as const) {
      (table as Map<string, unknown>).clear();
      for (const [key, row] of rows) (table as Map<string, unknown>).set(key, row);
    }
    this.timeline.splice(0, this.timeline.length, ...saved.timeline);
    this.seq = saved.seq;
  }

  get(roomId: string): Room | null {
    this.reads++;
    return this.rooms.get(roomId) ?? null;
  }

  insertMeeting(meeting: Meeting): void {
    this.write();
    if (this.meetings.has(meeting.meetingId)) throw new Error('duplicate meeting');
    if ([...this.meetings.values()].some((m) => m.roomId === meeting.roomId && m.endedAt === null)) {
      throw new Error('a second open meeting for one room');
    }
    this.meetings.set(meeting.meetingId, { ...meeting });
  }

  updateMeeting(meeting: Meeting): void {
    this.write();
    this.meetings.set(meeting.meetingId, { ...meeting });
  }

  openMeetings(): Meeting[] {
    this.reads++;
    return [...this.meetings.values()].filter((m) => m.endedAt === null).map((m) => ({ ...m }));
  }

  getMeeting(meetingId: string): Meeting | null {
    this.reads++;
    const m = this.meetings.get(meetingId);
    return m ? { ...m } : null;
  }

  meetingsOf(roomId: string): Meeting[] {
    this.reads++;
    return [...this.meetings.values()]
      .filter((m) => m.roomId === roomId)
      .reverse()
      .map((m) => ({ ...m }));
  }

  insertParticipant(p: Participant): void {
    this.write();
    const { roomId: _roomId, ...rest } = p;
    this.participants.set(p.participantId, { ...rest, seq: this.seq++ });
  }

  updateParticipant(p: Participant): void {
    this.write();
    const row = this.participants.get(p.participantId);
    if (row) this.participants.set(p.participantId, { ...row, leftAt: p.leftAt, role: p.role, name: p.name });
  }

  participantsOf(meetingId: string): Participant[] {
    this.reads++;
    const roomId = this.meetings.get(meetingId)?.roomId ?? '';
    return [...this.participants.values()]
      .filter((p) => p.meetingId === meetingId)
      .sort((a, b) => a.seq - b.seq)
      .map(({ seq: _seq, ...p }) => ({ ...p, roomId }));
  }

  appendTimeline(entry: TimelineEntry): void {
    this.write();
    this.timeline.push(structuredClone(entry));
  }

  timelineOf(meetingId: string): TimelineEntry[] {
    this.reads++;
    return this.timeline.filter((e) => e.meetingId === meetingId).map((e) => structuredClone(e));
  }

  /** The request, and its knock as a timeline entry of its own (the SQLite store derives it from the row instead). */
  insertKnock(request: WaitingRequest): void {
    this.write();
    this.requests.set(request.requestId, { ...request, seq: this.seq++ });
    this.timeline.push({
      meetingId: request.meetingId,
      at: request.knockedAt,
      kind: 'knock',
      actor: null,
      subject: { requestId: request.requestId, participantId: null, name: request.name },
      count: null,
    });
  }

  updateRequest(request: WaitingRequest): void {
    this.write();
    const row = this.requests.get(request.requestId);
    if (!row) throw new Error(`no request ${request.requestId}`);
    this.requests.set(request.requestId, {
      ...row,
      state: request.state,
      decidedAt: request.decidedAt,
      participantId: request.participantId,
    });
  }

  pollableRequests(meetingId: string): WaitingRequest[] {
    this.reads++;
    return this.requestRows(meetingId)
      .filter((r) => pollableStates.includes(r.state))
      .sort((a, b) => a.knockedAt.localeCompare(b.knockedAt) || a.seq - b.seq)
      .map(strip);
  }

  refusedRequests(meetingId: string): WaitingRequest[] {
    this.reads++;
    return this.requestRows(meetingId)
      .filter((r) => r.state === 'refused' || r.state === 'barred')
      .sort((a, b) => (a.decidedAt ?? '').localeCompare(b.decidedAt ?? '') || a.seq - b.seq)
      .map(strip);
  }

  private requestRows(meetingId: string): (WaitingRequest & { seq: number })[] {
    return [...this.requests.values()].filter((r) => r.meetingId === meetingId);
  }

  private write(): void {
    this.writes++;
  }
}

function strip({ seq: _seq, ...request }: WaitingRequest & { seq: number }): WaitingRequest {
  return { ...request };
}
