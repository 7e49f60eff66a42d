import type { RequestState, WaitingRequest } from '../../engine/waiting/waiting-request.js';

/**
 * A row of `waiting_requests`, the same on both stores (the secret's hash a BLOB on SQLite, a
 * bytea on PostgreSQL: a Buffer on either). A knock writes one; a start maps every open one.
 */
export interface RequestRow {
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

export const requestFromRow = (row: RequestRow): WaitingRequest => ({
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

export const requestToRow = (r: WaitingRequest): RequestRow => ({
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
