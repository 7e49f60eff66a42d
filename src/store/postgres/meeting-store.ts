import type { AsyncMeetingStore, AsyncWaitingRequestStore } from '../../engine/async-ports.js';
import type { Meeting, Participant } from '../../engine/meetings/meeting.js';
import type { TimelineEntry } from '../../engine/meetings/timeline.js';
import type { WaitingRequest } from '../../engine/waiting/waiting-request.js';
import { postgresColumns, type PostgresTypes } from '../rows/columns.js';
import * as meetingRows from '../rows/meeting-row.js';
import { requestFromRow, requestToRow, type RequestRow } from '../rows/waiting-request-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

// Times are ISO-8601 text, as on SQLite; they are compared and ordered COLLATE "C" (byte order, as
// SQLite's BINARY), whatever the database's own collation.

/** The columns of a participant row: hers, with her meeting's room. */
const participantColumns =
  'p.participant_id, p.meeting_id, m.room_id, p.role, p.name, p.joined_at, p.left_at, p.external_id';

type Row = meetingRows.MeetingRow<PostgresTypes>;
const toMeeting = (row: Row): Meeting => meetingRows.meetingFromRow(row, postgresColumns);

/** Meetings, participants and the timeline on PostgreSQL (the engine's MeetingStore, asynchronous). */
export class PostgresMeetingStore implements AsyncMeetingStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insertMeeting(meeting: Meeting): Promise<void> {
    const m = meetingRows.meetingToRow(meeting, postgresColumns);
    await this.unit.fenceRoom(meeting.roomId);
    await this.db`INSERT INTO meetings (meeting_id, room_id, started_at, ended_at, waiting_disabled, subject)
      VALUES (${m.meeting_id}, ${m.room_id}, ${m.started_at}, ${m.ended_at}, ${m.waiting_disabled}, ${m.subject})`;
  }

  async updateMeeting(meeting: Meeting): Promise<void> {
    const m = meetingRows.meetingToRow(meeting, postgresColumns);
    await this.unit.fenceRoom(meeting.roomId);
    await this
      .db`UPDATE meetings SET ended_at = ${m.ended_at}, waiting_disabled = ${m.waiting_disabled}, subject = ${m.subject}
      WHERE meeting_id = ${m.meeting_id}`;
  }

  /** The open meetings; on a clustered node only those of the rooms whose lease it holds (their owners read the others). */
  async openMeetings(): Promise<Meeting[]> {
    const node = this.unit.fencedNode();
    const rows = await this.db<Row[]>`
      SELECT * FROM meetings m WHERE ended_at IS NULL AND (${node}::text IS NULL OR EXISTS (
        SELECT 1 FROM rooms r JOIN room_leases l ON l.room_id = coalesce(r.parent_room_id, r.room_id)
        WHERE r.room_id = m.room_id AND l.owner_node = ${node}::text))
      ORDER BY started_at COLLATE "C", ordinal`;
    return rows.map(toMeeting);
  }

  async getMeeting(meetingId: string): Promise<Meeting | null> {
    const [row] = await this.db<Row[]>`SELECT * FROM meetings WHERE meeting_id = ${meetingId}`;
    return row ? toMeeting(row) : null;
  }

  async meetingsOf(roomId: string): Promise<Meeting[]> {
    const rows = await this.db<Row[]>`
      SELECT * FROM meetings WHERE room_id = ${roomId} ORDER BY started_at COLLATE "C" DESC, ordinal DESC`;
    return rows.map(toMeeting);
  }

  async insertParticipant(participant: Participant): Promise<void> {
    const p = meetingRows.participantToRow(participant);
    await this.unit.fenceRoom(participant.roomId);
    await this.db`INSERT INTO participants (participant_id, meeting_id, role, name, joined_at, left_at, external_id)
      VALUES (${p.participant_id}, ${p.meeting_id}, ${p.role}, ${p.name}, ${p.joined_at}, ${p.left_at}, ${p.external_id})`;
  }

  async updateParticipant(p: Participant): Promise<void> {
    await this.unit.fenceRoom(p.roomId);
    await this.db`UPDATE participants SET left_at = ${p.leftAt}, role = ${p.role}, name = ${p.name}
      WHERE participant_id = ${p.participantId}`;
  }

  async participantsOf(meetingId: string): Promise<Participant[]> {
    const rows = await this.db.unsafe<meetingRows.ParticipantRow[]>(
      `SELECT ${participantColumns} FROM participants p JOIN meetings m USING (meeting_id)
       WHERE p.meeting_id = $1 ORDER BY p.joined_at COLLATE "C", p.ordinal`,
      [meetingId],
    );
    return rows.map(meetingRows.participantFromRow);
  }

  async appendTimeline(entry: TimelineEntry): Promise<void> {
    const e = meetingRows.entryToRow(entry);
    await this.unit.fenceMeeting(entry.meetingId);
    await this.db`INSERT INTO timeline_entries (meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
        subject_request_id, subject_participant_id, subject_name, count, skipped)
      VALUES (${e.meeting_id}, ${e.at}, ${e.kind}, ${e.actor_kind}, ${e.actor_participant_id}, ${e.actor_name},
        ${e.subject_request_id}, ${e.subject_participant_id}, ${e.subject_name}, ${e.count}, ${e.skipped})`;
  }

  /** As on SQLite: the entries, and each knock (kept in its request row) right after the entry it followed. */
  async timelineOf(meetingId: string): Promise<TimelineEntry[]> {
    const rows = await this.db<meetingRows.TimelineRow[]>`
      SELECT seq AS after, 0 AS knock, 0::bigint AS n, meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
        subject_request_id, subject_participant_id, subject_name, count, skipped
      FROM timeline_entries WHERE meeting_id = ${meetingId}
      UNION ALL
      SELECT knock_after_seq, 1, ordinal, meeting_id, knocked_at, 'knock', NULL, NULL, NULL, request_id, NULL, name, NULL, NULL
      FROM waiting_requests WHERE meeting_id = ${meetingId} AND knock_after_seq IS NOT NULL
      ORDER BY 1, 2, 3`;
    return rows.map(meetingRows.entryFromRow);
  }
}

/** Waiting requests on PostgreSQL; a knock's timeline entry lives in its row, as on SQLite (migration 006). */
export class PostgresWaitingRequestStore implements AsyncWaitingRequestStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insertKnock(request: WaitingRequest): Promise<void> {
    const r = requestToRow(request);
    await this.unit.fenceMeeting(request.meetingId);
    await this
      .db`INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at,
        decided_at, participant_id, avatar_url, knock_after_seq)
      VALUES (${r.request_id}, ${r.meeting_id}, ${r.secret_hash}, ${r.name}, ${r.note}, ${r.state},
        ${r.knocked_at}, ${r.expires_at}, ${r.decided_at}, ${r.participant_id}, ${r.avatar_url},
        coalesce((SELECT seq FROM timeline_entries WHERE meeting_id = ${r.meeting_id} ORDER BY seq DESC LIMIT 1), 0))`;
  }

  async updateRequest(r: WaitingRequest): Promise<void> {
    await this.unit.fenceMeeting(r.meetingId);
    await this
      .db`UPDATE waiting_requests SET state = ${r.state}, decided_at = ${r.decidedAt}, participant_id = ${r.participantId}
      WHERE request_id = ${r.requestId}`;
  }

  async pollableRequests(meetingId: string): Promise<WaitingRequest[]> {
    const rows = await this.db<RequestRow[]>`
      SELECT * FROM waiting_requests
      WHERE meeting_id = ${meetingId} AND state IN ('waiting', 'admitted', 'refused', 'barred', 'expired')
      ORDER BY knocked_at COLLATE "C", ordinal`;
    return rows.map(requestFromRow);
  }

  async refusedRequests(meetingId: string): Promise<WaitingRequest[]> {
    const rows = await this.db<RequestRow[]>`
      SELECT * FROM waiting_requests WHERE meeting_id = ${meetingId} AND state IN ('refused', 'barred')
      ORDER BY decided_at COLLATE "C", ordinal`;
    return rows.map(requestFromRow);
  }
}
