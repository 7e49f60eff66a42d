import type { AsyncCompatStore } from '../confapi/async-store.js';
import type { CallbackJob, ChatRecord, CompatMeeting, NewCallbackJob, RecordingRecord } from '../confapi/model.js';
import type { Sql } from '../../platform/postgres.js';
import {
  chatRow,
  recordingsMatching,
  meetingColumns,
  newCallbackRow,
  meetingRow,
  recordingRow,
  toCallback,
  toChat,
  toMeeting,
  toRecording,
  type CallbackRow,
  type ChatRow,
  type MeetingRow,
  type RecordingRow,
} from './compat-store.js';

/**
 * Where the store's statements run: the open unit of work's transaction, else the pool. The
 * engine's PostgresUnitOfWork (store/postgres/unit-of-work.ts) is one: given the engine's, the
 * meeting API's writes join the engine's units, so on one database a `create` (the meeting's row
 * and its engine room) is one transaction.
 */
export interface PostgresConnections {
  connection(): Sql;
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * On a clustered node (issue 35), the epoch fence of the room's lease (the engine's unit of
   * work): LeaseLostError when another node serves the room. A meeting row's end and its link to
   * the engine meeting are concluded from the room's live state, which only its owner holds.
   */
  fenceRoom?(roomId: string): Promise<void>;
  /** The node whose leases fence the writes; null on a single node (nothing is checked). */
  fencedNode?(): string | null;
}

/**
 * Thrown for a text PostgreSQL cannot hold: a NUL character (U+0000), which SQLite keeps. Refused
 * before the statement is sent (the transaction stays usable), naming the column.
 */
export class UnstorableText extends Error {
  override readonly name = 'UnstorableText';

  constructor(readonly field: string) {
    super(`${field} holds a NUL character (U+0000), which PostgreSQL's text cannot store`);
  }
}

/** postgres.js answers bigint (int8) columns as strings: the times and ids are numbers here. */
function numbers<R extends object>(row: R, columns: readonly (keyof R)[]): R {
  const out = { ...row } as Record<keyof R, unknown>;
  for (const c of columns) if (out[c] !== null && out[c] !== undefined) out[c] = Number(out[c]);
  return out as R;
}

const meetingTimes = ['create_time', 'start_time', 'end_time'] as const;
const meetingOf = (row: MeetingRow) => toMeeting(numbers(row, meetingTimes));
const chatOf = (row: ChatRow) => toChat(numbers(row, ['at']));
const callbackOf = (row: CallbackRow) => toCallback(numbers(row, ['id', 'next_at', 'created_at', 'done_at']));
const recordingOf = (row: RecordingRow) => toRecording(numbers(row, ['start_time', 'end_time']));

/** Refuses a row with a NUL in any text, naming table.column. */
function storable<R extends object>(table: string, row: R): R {
  for (const [column, value] of Object.entries(row))
    if (typeof value === 'string' && value.includes('\0')) throw new UnstorableText(`${table}.${column}`);
  return row;
}

/**
 * The meeting API's store on PostgreSQL (schema meet_compat, migrated beforehand from the `.pg.sql`
 * twins). Tables are named with their schema, so the pool's search_path does not matter (the
 * engine's pool has meet_engine). It keeps no copy of what it read: with several nodes on one
 * database, another node may have written since; the meeting's parameters are all in its row,
 * so any node can answer a `join` without a new `create`. Orderings are those of the SQLite store
 * (text in byte order, ordinal for rowid).
 */
export class PostgresCompatStore implements AsyncCompatStore {
  constructor(private readonly unit: PostgresConnections) {}

  private get db(): Sql {
    return this.unit.connection();
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.unit.run(work);
  }

  /**
   * A write of a meeting row, fenced by its room's lease on a clustered node: the check and the
   * write in one transaction, so the lease (read FOR SHARE) cannot move between them.
   */
  private fenced(roomId: string | null, write: () => Promise<unknown>): Promise<void> {
    const fence = this.clustered() ? this.unit.fenceRoom?.bind(this.unit) : undefined;
    if (!fence || roomId === null) return write().then(() => undefined);
    return this.unit.run(async () => {
      await fence(roomId);
      await write();
    });
  }

  async insertMeeting(meeting: CompatMeeting): Promise<void> {
    const row = storable('compat_meetings', meetingRow(meeting));
    await this.fenced(
      meeting.roomId,
      () => this.db`INSERT INTO meet_compat.compat_meetings ${this.db(row as never, meetingColumns as never)}`,
    );
  }

  private clustered(): boolean {
    return (this.unit.fencedNode?.() ?? null) !== null;
  }

  /** The room of a meeting row, for the fence (null: no such row, or not clustered: not read). */
  private async roomOf(internalId: string): Promise<string | null> {
    if (!this.clustered()) return null;
    const [row] = await this.db<{ room_id: string }[]>`
      SELECT room_id FROM meet_compat.compat_meetings WHERE internal_id = ${internalId}`;
    return row?.room_id ?? null;
  }

  async deleteMeeting(internalId: string): Promise<void> {
    await this.fenced(
      await this.roomOf(internalId),
      () => this.db`DELETE FROM meet_compat.compat_meetings WHERE internal_id = ${internalId}`,
    );
  }

  async updateMeeting(meeting: CompatMeeting): Promise<void> {
    const row = storable('compat_meetings', meetingRow(meeting));
    const set = meetingColumns.filter((c) => c !== 'internal_id');
    await this.fenced(
      meeting.roomId,
      () => this.db`UPDATE meet_compat.compat_meetings SET ${this.db(row as never, set as never)}
        WHERE internal_id = ${row.internal_id}`,
    );
  }

  async meeting(internalId: string): Promise<CompatMeeting | null> {
    const [row] = await this.db<
      MeetingRow[]
    >`SELECT * FROM meet_compat.compat_meetings WHERE internal_id = ${internalId}`;
    return row ? meetingOf(row) : null;
  }

  async openMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    const [row] = await this.db<MeetingRow[]>`SELECT * FROM meet_compat.compat_meetings
      WHERE tenant_id = ${tenantId} AND meeting_id = ${meetingId} AND end_time IS NULL`;
    return row ? meetingOf(row) : null;
  }

  async latestMeeting(tenantId: string, meetingId: string): Promise<CompatMeeting | null> {
    const [row] = await this.db<MeetingRow[]>`SELECT * FROM meet_compat.compat_meetings
      WHERE tenant_id = ${tenantId} AND meeting_id = ${meetingId} ORDER BY create_time DESC, ordinal DESC LIMIT 1`;
    return row ? meetingOf(row) : null;
  }

  async openMeetings(): Promise<CompatMeeting[]> {
    const rows = await this.db<MeetingRow[]>`SELECT * FROM meet_compat.compat_meetings
      WHERE end_time IS NULL ORDER BY create_time, ordinal`;
    return rows.map(meetingOf);
  }

  async openMeetingsOf(tenantId: string): Promise<CompatMeeting[]> {
    const rows = await this.db<MeetingRow[]>`SELECT * FROM meet_compat.compat_meetings
      WHERE tenant_id = ${tenantId} AND end_time IS NULL ORDER BY create_time, ordinal`;
    return rows.map(meetingOf);
  }

  async openMeetingInRoom(roomId: string): Promise<CompatMeeting | null> {
    const [row] = await this.db<MeetingRow[]>`SELECT * FROM meet_compat.compat_meetings
      WHERE room_id = ${roomId} AND end_time IS NULL ORDER BY create_time DESC, ordinal DESC LIMIT 1`;
    return row ? meetingOf(row) : null;
  }

  async endedRoomIds(): Promise<string[]> {
    const rows = await this.db<{ room_id: string }[]>`SELECT DISTINCT room_id COLLATE "C" AS room_id
      FROM meet_compat.compat_meetings WHERE end_time IS NOT NULL ORDER BY 1`;
    return rows.map((r) => r.room_id);
  }

  async ownersOf(meetingId: string): Promise<string[]> {
    const rows = await this.db<{ tenant_id: string }[]>`SELECT DISTINCT tenant_id COLLATE "C" AS tenant_id
      FROM meet_compat.compat_meetings WHERE meeting_id = ${meetingId} AND end_time IS NULL ORDER BY 1`;
    return rows.map((r) => r.tenant_id);
  }

  async setCustomData(internalId: string, userKey: string, data: readonly (readonly [string, string])[]) {
    const row = storable('compat_customdata', { internal_id: internalId, user_key: userKey });
    await this.db`INSERT INTO meet_compat.compat_customdata (internal_id, user_key, data_json)
      VALUES (${row.internal_id}, ${row.user_key}, ${JSON.stringify(data)})
      ON CONFLICT (internal_id, user_key) DO UPDATE SET data_json = excluded.data_json`;
  }

  async customDataOf(internalId: string): Promise<ReadonlyMap<string, readonly (readonly [string, string])[]>> {
    const rows = await this.db<{ user_key: string; data_json: string }[]>`SELECT user_key, data_json
      FROM meet_compat.compat_customdata WHERE internal_id = ${internalId} ORDER BY user_key COLLATE "C"`;
    return new Map(rows.map((r) => [r.user_key, JSON.parse(r.data_json) as [string, string][]]));
  }

  /** Fenced: whether it was delivered is the owner's live connection's to say. */
  async appendChat(record: ChatRecord): Promise<void> {
    const row = storable('compat_chat', chatRow(record));
    await this.fenced(
      await this.roomOf(record.internalId),
      () => this.db`INSERT INTO meet_compat.compat_chat ${this.db(row)}`,
    );
  }

  async chatOf(internalId: string): Promise<ChatRecord[]> {
    const rows = await this.db<ChatRow[]>`SELECT internal_id, at, sender, text, delivered
      FROM meet_compat.compat_chat WHERE internal_id = ${internalId} ORDER BY seq`;
    return rows.map(chatOf);
  }

  async insertCallback(job: NewCallbackJob): Promise<CallbackJob> {
    const row = storable('compat_callbacks', newCallbackRow(job));
    const [stored] = await this.db<CallbackRow[]>`INSERT INTO meet_compat.compat_callbacks ${this.db(row)} RETURNING *`;
    return callbackOf(stored!);
  }

  async updateCallback(job: CallbackJob): Promise<void> {
    const row = storable('compat_callbacks', { outcome: job.outcome, last_error: job.lastError });
    await this.db`UPDATE meet_compat.compat_callbacks SET attempts = ${job.attempts}, next_at = ${job.nextAt},
      done_at = ${job.doneAt}, outcome = ${row.outcome}, last_error = ${row.last_error} WHERE id = ${job.id}`;
  }

  async pendingCallbacks(): Promise<CallbackJob[]> {
    const rows = await this.db<CallbackRow[]>`SELECT * FROM meet_compat.compat_callbacks
      WHERE done_at IS NULL ORDER BY next_at, id`;
    return rows.map(callbackOf);
  }

  async claimDueCallbacks(now: number, leaseUntil: number, limit: number): Promise<CallbackJob[]> {
    // SKIP LOCKED: a job another node's claim is taking right now is left to it, not waited for.
    const rows = await this.db<(CallbackRow & { due_at: string })[]>`
      WITH due AS (
        SELECT id, next_at AS due_at FROM meet_compat.compat_callbacks
        WHERE done_at IS NULL AND next_at <= ${now} ORDER BY next_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE meet_compat.compat_callbacks c SET next_at = ${leaseUntil} FROM due WHERE c.id = due.id
      RETURNING c.*, due.due_at`;
    const order = (r: CallbackRow & { due_at: string }) => [Number(r.due_at), Number(r.id)] as const;
    return rows
      .sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1])
      .map(({ due_at: _due, ...row }) => callbackOf(row));
  }

  async insertRecording(recording: RecordingRecord): Promise<void> {
    const row = storable('compat_recordings', recordingRow(recording));
    await this.db`INSERT INTO meet_compat.compat_recordings ${this.db(row)}`;
  }

  async updateRecording(recording: RecordingRecord): Promise<void> {
    const r = storable('compat_recordings', recordingRow(recording));
    await this.db`UPDATE meet_compat.compat_recordings SET name = ${r.name}, published = ${r.published},
      protected = ${r.protected}, metadata_json = ${r.metadata_json} WHERE record_id = ${r.record_id}`;
  }

  async deleteRecording(recordId: string): Promise<void> {
    await this.db`DELETE FROM meet_compat.compat_recordings WHERE record_id = ${recordId}`;
  }

  async recordings(
    tenantId: string,
    filter: { meetingIds?: readonly string[]; recordIds?: readonly string[] },
  ): Promise<RecordingRecord[]> {
    const rows = await this.db<RecordingRow[]>`SELECT * FROM meet_compat.compat_recordings
      WHERE tenant_id = ${tenantId} ORDER BY start_time DESC, record_id COLLATE "C"`;
    return recordingsMatching(rows.map(recordingOf), filter);
  }

  /** The pool is its owner's (the daemon's, shared with the engine): nothing to close here. */
  async close(): Promise<void> {}
}
