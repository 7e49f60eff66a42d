import type { Meeting, MeetingStore, Participant } from '../engine/meetings/meeting.js';
import type { TimelineEntry } from '../engine/meetings/timeline.js';
import type { Db } from './database.js';
import { sqliteColumns, type SqliteTypes } from './rows/columns.js';
import * as meetingRows from './rows/meeting-row.js';

/** The columns of a participant row: hers, with her meeting's room. */
const participantColumns =
  'p.participant_id, p.meeting_id, m.room_id, p.role, p.name, p.joined_at, p.left_at, p.external_id';

type Row = meetingRows.MeetingRow<SqliteTypes>;
const toMeeting = (row: Row): Meeting => meetingRows.meetingFromRow(row, sqliteColumns);

export class SqliteMeetingStore implements MeetingStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insertMeeting: db.prepare<[Row]>(
        `INSERT INTO meetings (meeting_id, room_id, started_at, ended_at, waiting_disabled, subject)
         VALUES (@meeting_id, @room_id, @started_at, @ended_at, @waiting_disabled, @subject)`,
      ),
      updateMeeting: db.prepare<[Row]>(
        'UPDATE meetings SET ended_at = @ended_at, waiting_disabled = @waiting_disabled, subject = @subject WHERE meeting_id = @meeting_id',
      ),
      openMeetings: db.prepare<[], Row>('SELECT * FROM meetings WHERE ended_at IS NULL ORDER BY started_at, rowid'),
      getMeeting: db.prepare<[string], Row>('SELECT * FROM meetings WHERE meeting_id = ?'),
      meetingsOf: db.prepare<[string], Row>(
        'SELECT * FROM meetings WHERE room_id = ? ORDER BY started_at DESC, rowid DESC',
      ),
      insertParticipant: db.prepare<[Omit<meetingRows.ParticipantRow, 'room_id'>]>(
        `INSERT INTO participants (participant_id, meeting_id, role, name, joined_at, left_at, external_id)
         VALUES (@participant_id, @meeting_id, @role, @name, @joined_at, @left_at, @external_id)`,
      ),
      updateParticipant: db.prepare<[string | null, string, string, string]>(
        'UPDATE participants SET left_at = ?, role = ?, name = ? WHERE participant_id = ?',
      ),
      participantsOf: db.prepare<[string], meetingRows.ParticipantRow>(
        `SELECT ${participantColumns} FROM participants p JOIN meetings m USING (meeting_id)
         WHERE p.meeting_id = ? ORDER BY p.joined_at, p.rowid`,
      ),
      appendTimeline: db.prepare<[meetingRows.TimelineRow]>(
        `INSERT INTO timeline_entries (meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
           subject_request_id, subject_participant_id, subject_name, count, skipped)
         VALUES (@meeting_id, @at, @kind, @actor_kind, @actor_participant_id, @actor_name,
           @subject_request_id, @subject_participant_id, @subject_name, @count, @skipped)`,
      ),
      // The entries of timeline_entries, and the knocks kept in their request rows (migration 006),
      // each right after the entry it followed when it was written; among knocks after the same
      // entry, in the order they were written (rowid).
      timelineOf: db.prepare<[string, string], meetingRows.TimelineRow>(
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
    this.statements.insertMeeting.run(meetingRows.meetingToRow(meeting, sqliteColumns));
  }

  updateMeeting(meeting: Meeting): void {
    this.statements.updateMeeting.run(meetingRows.meetingToRow(meeting, sqliteColumns));
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
    this.statements.insertParticipant.run(meetingRows.participantToRow(p));
  }

  updateParticipant(p: Participant): void {
    this.statements.updateParticipant.run(p.leftAt, p.role, p.name, p.participantId);
  }

  participantsOf(meetingId: string): Participant[] {
    return this.statements.participantsOf.all(meetingId).map(meetingRows.participantFromRow);
  }

  appendTimeline(entry: TimelineEntry): void {
    this.statements.appendTimeline.run(meetingRows.entryToRow(entry));
  }

  timelineOf(meetingId: string): TimelineEntry[] {
    return this.statements.timelineOf.all(meetingId, meetingId).map(meetingRows.entryFromRow);
  }
}
