import type { RequestState, WaitingRequest, WaitingRequestStore } from '../engine/waiting/waiting-request.js';
import type { Db } from './database.js';

interface RequestRow {
  request_id: string;
  meeting_id: string;
  secret_hash: Buffer;
  name: string;
  note: string;
  state: RequestState;
  knocked_at: string;
  expires_at: string;
  decided_at: string | null;
  participant_id: string | null;
  avatar_url: string | null;
}

const toRequest = (row: RequestRow): WaitingRequest => ({
  requestId: row.request_id,
  meetingId: row.meeting_id,
  secretHash: row.secret_hash.toString('base64url'),
  name: row.name,
  note: row.note,
  state: row.state,
  knockedAt: row.knocked_at,
  expiresAt: row.expires_at,
  decidedAt: row.decided_at,
  participantId: row.participant_id,
  avatarUrl: row.avatar_url,
});

const toRow = (r: WaitingRequest): RequestRow => ({
  request_id: r.requestId,
  meeting_id: r.meetingId,
  secret_hash: Buffer.from(r.secretHash, 'base64url'),
  name: r.name,
  note: r.note,
  state: r.state,
  knocked_at: r.knockedAt,
  expires_at: r.expiresAt,
  decided_at: r.decidedAt,
  participant_id: r.participantId,
  avatar_url: r.avatarUrl,
});

export class SqliteWaitingRequestStore implements WaitingRequestStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      // The knock's timeline entry is this row (migration 006): it goes after the meeting's latest
      // entry, read from the end of timeline_entries_by_meeting (a read; that page is not written).
      // The meeting's, not the table's: deleting a room deletes the table's newest entries with it
      // and SQLite then hands their seq numbers out again, to entries that must sort after this knock.
      insertKnock: db.prepare<[RequestRow]>(
        `INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id,
           avatar_url, knock_after_seq)
         VALUES (@request_id, @meeting_id, @secret_hash, @name, @note, @state, @knocked_at, @expires_at, @decided_at, @participant_id,
           @avatar_url, coalesce((SELECT seq FROM timeline_entries WHERE meeting_id = @meeting_id ORDER BY seq DESC LIMIT 1), 0))`,
      ),
      update: db.prepare<[RequestRow]>(
        `UPDATE waiting_requests SET state = @state, decided_at = @decided_at, participant_id = @participant_id
         WHERE request_id = @request_id`,
      ),
      pollable: db.prepare<[string], RequestRow>(
        `SELECT * FROM waiting_requests
         WHERE meeting_id = ? AND state IN ('waiting', 'admitted', 'refused', 'barred', 'expired')
         ORDER BY knocked_at, rowid`,
      ),
      refused: db.prepare<[string], RequestRow>(
        `SELECT * FROM waiting_requests WHERE meeting_id = ? AND state IN ('refused', 'barred') ORDER BY decided_at, rowid`,
      ),
    };
  }

  insertKnock(request: WaitingRequest): void {
    this.statements.insertKnock.run(toRow(request));
  }

  updateRequest(request: WaitingRequest): void {
    this.statements.update.run(toRow(request));
  }

  pollableRequests(meetingId: string): WaitingRequest[] {
    return this.statements.pollable.all(meetingId).map(toRequest);
  }

  refusedRequests(meetingId: string): WaitingRequest[] {
    return this.statements.refused.all(meetingId).map(toRequest);
  }
}
