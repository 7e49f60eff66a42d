import type { AsyncMeetingStore, AsyncWaitingRequestStore } from '../../engine/async-ports.js';
import type { Meeting, Participant } from '../../engine/meetings/meeting.js';
import type { TimelineEntry, TimelineKind } from '../../engine/meetings/timeline.js';
import type { WaitingRequest } from '../../engine/waiting/waiting-request.js';
import { requestFromRow, requestToRow, type RequestRow } from '../rows/waiting-request-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

// Times are ISO-8601 text, as on SQLite; they are compared and ordered COLLATE "C" (byte order, as
// SQLite's BINARY), whatever the database's own collation.

interface MeetingRow {
  meeting_id: string;
  room_id: string;
  started_at: string;
  ended_at: string | null;
  waiting_disabled: boolean;
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
  waitingDisabled: row.waiting_disabled,
  subject: row.subject,
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

const participantColumns =
  'p.participant_id, p.meeting_id, m.room_id, p.role, p.name, p.joined_at, p.left_at, p.external_id';

/** Meetings, participants and the timeline on PostgreSQL (the engine's MeetingStore, asynchronous). */
export class PostgresMeetingStore implements AsyncMeetingStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insertMeeting(m: Meeting): Promise<void> {
    await this.db`INSERT INTO meetings (meeting_id, room_id, started_at, ended_at, waiting_disabled, subject)
      VALUES (${m.meetingId}, ${m.roomId}, ${m.startedAt}, ${m.endedAt}, ${m.waitingDisabled}, ${m.subject})`;
  }

  async updateMeeting(m: Meeting): Promise<void> {
    await this
      .db`UPDATE meetings SET ended_at = ${m.endedAt}, waiting_disabled = ${m.waitingDisabled}, subject = ${m.subject}
      WHERE meeting_id = ${m.meetingId}`;
  }

  async openMeetings(): Promise<Meeting[]> {
    const rows = await this.db<MeetingRow[]>`
      SELECT * FROM meetings WHERE ended_at IS NULL ORDER BY started_at COLLATE "C", ordinal`;
    return rows.map(toMeeting);
  }

  async getMeeting(meetingId: string): Promise<Meeting | null> {
    const [row] = await this.db<MeetingRow[]>`SELECT * FROM meetings WHERE meeting_id = ${meetingId}`;
    return row ? toMeeting(row) : null;
  }

  async meetingsOf(roomId: string): Promise<Meeting[]> {
    const rows = await this.db<MeetingRow[]>`
      SELECT * FROM meetings WHERE room_id = ${roomId} ORDER BY started_at COLLATE "C" DESC, ordinal DESC`;
    return rows.map(toMeeting);
  }

  async insertParticipant(p: Participant): Promise<void> {
    await this.db`INSERT INTO participants (participant_id, meeting_id, role, name, joined_at, left_at, external_id)
      VALUES (${p.participantId}, ${p.meetingId}, ${p.role}, ${p.name}, ${p.joinedAt}, ${p.leftAt}, ${p.externalId ?? null})`;
  }

  async updateParticipant(p: Participant): Promise<void> {
    await this.db`UPDATE participants SET left_at = ${p.leftAt}, role = ${p.role}, name = ${p.name}
      WHERE participant_id = ${p.participantId}`;
  }

  async participantsOf(meetingId: string): Promise<Participant[]> {
    const rows = await this.db.unsafe<ParticipantRow[]>(
      `SELECT ${participantColumns} FROM participants p JOIN meetings m USING (meeting_id)
       WHERE p.meeting_id = $1 ORDER BY p.joined_at COLLATE "C", p.ordinal`,
      [meetingId],
    );
    return rows.map((row) => ({
      participantId: row.participant_id,
      meetingId: row.meeting_id,
      roomId: row.room_id,
      role: row.role,
      name: row.name,
      joinedAt: row.joined_at,
      leftAt: row.left_at,
      ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    }));
  }

  async appendTimeline(e: TimelineEntry): Promise<void> {
    await this.db`INSERT INTO timeline_entries (meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
        subject_request_id, subject_participant_id, subject_name, count, skipped)
      VALUES (${e.meetingId}, ${e.at}, ${e.kind}, ${e.actor?.kind ?? null}, ${e.actor?.participantId ?? null},
        ${e.actor?.name ?? null}, ${e.subject?.requestId ?? null}, ${e.subject?.participantId ?? null},
        ${e.subject?.name ?? null}, ${e.count}, ${e.skipped ?? null})`;
  }

  /** As on SQLite: the entries, and each knock (kept in its request row) right after the entry it followed. */
  async timelineOf(meetingId: string): Promise<TimelineEntry[]> {
    const rows = await this.db<TimelineRow[]>`
      SELECT seq AS after, 0 AS knock, 0::bigint AS n, meeting_id, at, kind, actor_kind, actor_participant_id, actor_name,
        subject_request_id, subject_participant_id, subject_name, count, skipped
      FROM timeline_entries WHERE meeting_id = ${meetingId}
      UNION ALL
      SELECT knock_after_seq, 1, ordinal, meeting_id, knocked_at, 'knock', NULL, NULL, NULL, request_id, NULL, name, NULL, NULL
      FROM waiting_requests WHERE meeting_id = ${meetingId} AND knock_after_seq IS NOT NULL
      ORDER BY 1, 2, 3`;
    return rows.map(toEntry);
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
    await this
      .db`INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at,
        decided_at, participant_id, avatar_url, knock_after_seq)
      VALUES (${r.request_id}, ${r.meeting_id}, ${r.secret_hash}, ${r.name}, ${r.note}, ${r.state},
        ${r.knocked_at}, ${r.expires_at}, ${r.decided_at}, ${r.participant_id}, ${r.avatar_url},
        coalesce((SELECT seq FROM timeline_entries WHERE meeting_id = ${r.meeting_id} ORDER BY seq DESC LIMIT 1), 0))`;
  }

  async updateRequest(r: WaitingRequest): Promise<void> {
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
