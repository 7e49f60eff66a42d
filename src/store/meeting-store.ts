import type { Meeting, MeetingStore, Participant } from '../engine/meetings/meeting.js';
import type { TimelineEntry, TimelineKind } from '../engine/meetings/timeline.js';
import type { Db } from './database.js';

interface MeetingRow {
  meeting_id: string;
  room_id: string;
  started_at: string;
  ended_at: string | null;
  waiting_disabled: number;
  subject: string;
}

interface ParticipantRow {
  participant_id: string;
  meeting_id: string;
  room_id: string;
  role: Participant['role'];
  name: string;
  joined_at: string;
  left_at: string | null;
  external_id: string | null;
}

interface TimelineRow {
  meeting_id: string;
  at: string;
  kind: TimelineKind;
  actor_kind: 'participant' | 'api' | null;
  actor_participant_id: string | null;
  actor_name: string | null;
  subject_request_id: string | null;
  subject_participant_id: string | null;
  subject_name: string | null;
  count: number | null;
  skipped: number | null;
}

const toMeeting = (row: MeetingRow): Meeting => ({
  meetingId: row.meeting_id,
  roomId: row.room_id,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  waitingDisabled: row.waiting_disabled === 1,
  subject: row.subject,
});

const meetingRow = (m: Meeting): MeetingRow => ({
  meeting_id: m.meetingId,
  room_id: m.roomId,
  started_at: m.startedAt,
  ended_at: m.endedAt,
  waiting_disabled: m.waitingDisabled ? 1 : 0,
  subject: m.subject,
});

const toParticipant = (row: ParticipantRow): Participant => ({
  participantId: row.participant_id,
  meetingId: row.meeting_id,
  roomId: row.room_id,
  role: row.role,
  name: row.name,
  joinedAt: row.joined_at,
  leftAt: row.left_at,
  ...(row.external_id !== null ? { externalId: row.external_id } : {}),
});

const toEntry = (row: TimelineRow): TimelineEntry => ({
  meetingId: row.meeting_id,
  at: row.at,
  kind: row.kind,
  actor:
    row.actor_kind === null
      ? null
      : { kind: row.actor_kind, participantId: row.actor_participant_id, name: row.actor_name ?? '' },
  subject:
    row.subject_name === null
      ? null
      : { requestId: row.subject_request_id, participantId: row.subject_participant_id, name: row.subject_name },
  count: row.count,
  ...(row.skipped === null ? {} : { skipped: row.skipped }),
});

const entryRow = (e: TimelineEntry): TimelineRow => ({
  meeting_id: e.meetingId,
  at: e.at,
  kind: e.kind,
  actor_kind: e.actor?.kind ?? null,
  actor_participant_id: e.actor?.participantId ?? null,
  actor_name: e.actor?.name ?? null,
  subject_request_id: e.subject?.requestId ?? null,
  subject_participant_id: e.subject?.participantId ?? null,
  subject_name: e.subject?.name ?? null,
  count: e.count,
  skipped: e.skipped ?? null,
});

const participantColumns =
  'p.participant_id, p.meeting_id, m.room_id, p.role, p.name, p.joined_at, p.left_at, p.external_id';

export class SqliteMeetingStore implements MeetingStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insertMeeting: db.prepare<[MeetingRow]>(
        `INSERT INTO meetings (meeting_id, room_id, started_at, ended_at, waiting_disabled, subject)
         VALUES (@meeting_id, @room_id, @started_at, @ended_at, @waiting_disabled, @subject)`,
      ),
      updateMeeting: db.prepare<[MeetingRow]>(
        'UPDATE meetings SET ended_at = @ended_at, waiting_disabled = @waiting_disabled, subject = @subject WHERE meeting_id = @meeting_id',
      ),
      openMeetings: db.prepare<[], MeetingRow>(
        'SELECT * FROM meetings WHERE ended_at IS NULL ORDER BY started_at, rowid',
      ),
      getMeeting: db.prepare<[string], MeetingRow>('SELECT * FROM meetings WHERE meeting_id = ?'),
      meetingsOf: db.prepare<[string], MeetingRow>(
        'SELECT * FROM meetings WHERE room_id = ? ORDER BY started_at DESC, rowid DESC',
      ),
      insertParticipant: db.prepare<[Omit<ParticipantRow, 'room_id'>]>(
        `INSERT INTO participants (participant_id, meeting_id, role, name, joined_at, left_at, external_id)
         VALUES (@participant_id, @meeting_id, @role, @name, @joined_at, @left_at, @external_id)`,
      ),
      updateParticipant: db.prepare<[string | null, string, string, string]>(
        'UPDATE participants SET left_at = ?, role = ?, name = ? WHERE participant_id = ?',
      ),
      participantsOf: db.prepare<[string], ParticipantRow>(
        `SELECT ${participantColumns} FROM participants p JOIN meetings m USING (meeting_id)
         WHERE p.meeting_id = ? ORDER BY p.joined_at, p.rowid`,
      ),
      appendTimeline: db.prepare<[TimelineRow]>(
        `INSERT INTO timeline_entries (meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
           subject_request_id, subject_participant_id, subject_name, count, skipped)
         VALUES (@meeting_id, @at, @kind, @actor_kind, @actor_participant_id, @actor_name,
           @subject_request_id, @subject_participant_id, @subject_name, @count, @skipped)`,
      ),
      // The entries of timeline_entries, and the knocks kept in their request rows (migration 006),
      // each right after the entry it followed when it was written; among knocks after the same
      // entry, in the order they were written (rowid).
      timelineOf: db.prepare<[string, string], TimelineRow>(
        `SELECT seq AS after, 0 AS knock, 0 AS n, meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
           subject_request_id, subject_participant_id, subject_name, count, skipped
         FROM timeline_entries WHERE meeting_id = ?
         UNION ALL
         SELECT knock_after_seq, 1, rowid, meeting_id, knocked_at, 'knock', NULL, NULL, NULL, request_id, NULL, name, NULL,
           NULL
         FROM waiting_requests WHERE meeting_id = ? AND knock_after_seq IS NOT NULL
         ORDER BY 1, 2, 3`,
      ),
    };
  }

  insertMeeting(meeting: Meeting): void {
    this.statements.insertMeeting.run(meetingRow(meeting));
  }

  updateMeeting(meeting: Meeting): void {
    this.statements.updateMeeting.run(meetingRow(meeting));
  }

  openMeetings(): Meeting[] {
    return this.statements.openMeetings.all().map(toMeeting);
  }

  getMeeting(meetingId: string): Meeting | null {
    const row = this.statements.getMeeting.get(meetingId);
    return row ? toMeeting(row) : null;
  }

  meetingsOf(roomId: string): Meeting[] {
    return this.statements.meetingsOf.all(roomId).map(toMeeting);
  }

  insertParticipant(p: Participant): void {
    this.statements.insertParticipant.run({
      participant_id: p.participantId,
      meeting_id: p.meetingId,
      role: p.role,
      name: p.name,
      joined_at: p.joinedAt,
      left_at: p.leftAt,
      external_id: p.externalId ?? null,
    });
  }

  updateParticipant(p: Participant): void {
    this.statements.updateParticipant.run(p.leftAt, p.role, p.name, p.participantId);
  }

  participantsOf(meetingId: string): Participant[] {
    return this.statements.participantsOf.all(meetingId).map(toParticipant);
  }

  appendTimeline(entry: TimelineEntry): void {
    this.statements.appendTimeline.run(entryRow(entry));
  }

  timelineOf(meetingId: string): TimelineEntry[] {
    return this.statements.timelineOf.all(meetingId, meetingId).map(toEntry);
  }
}
