import type { WaitingRequest, WaitingRequestStore } from '../engine/waiting/waiting-request.js';
import type { Db } from './database.js';
import { requestFromRow, requestToRow, type RequestRow } from './rows/waiting-request-row.js';

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
    this.statements.insertKnock.run(requestToRow(request));
  }

  updateRequest(request: WaitingRequest): void {
    this.statements.update.run(requestToRow(request));
  }

  pollableRequests(meetingId: string): WaitingRequest[] {
    return this.statements.pollable.all(meetingId).map(requestFromRow);
  }

  refusedRequests(meetingId: string): WaitingRequest[] {
    return this.statements.refused.all(meetingId).map(requestFromRow);
  }
}
