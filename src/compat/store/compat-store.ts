import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { openDurable } from '../../platform/sqlite.js';
import {
  plainMeeting,
  type CallbackJob,
  type ChatRecord,
  type CompatMeeting,
  type CompatStore,
  type EndReason,
  type GuestPolicy,
  type NewCallbackJob,
  type RecordingRecord,
} from '../confapi/model.js';
import { migrate, readMigrations } from '../../platform/migrate.js';

const migrationsDir = fileURLToPath(new URL('./migrations', import.meta.url));

export const compatDatabaseFileName = 'confapi.sqlite';

/** The schema version this code migrates the meeting API's database to (its last migration). */
export function compatSchemaVersion(): number {
  return Math.max(0, ...readMigrations(migrationsDir).map((m) => m.version));
}

export interface MeetingRow {
  internal_id: string;
  tenant_id: string;
  meeting_id: string;
  room_id: string;
  name: string;
  attendee_pw: string;
  moderator_pw: string;
  create_time: number;
  voice_bridge: string;
  dial_number: string;
  duration_min: number;
  max_participants: number;
  record: number;
  guest_policy: string;
  settings_json: string;
  metadata_json: string;
  presentations_json: string;
  engine_meeting_id: string | null;
  start_time: number | null;
  end_time: number | null;
  forcibly_ended: number;
  end_reason: string | null;
}

export interface ChatRow {
  internal_id: string;
  at: number;
  sender: string;
  text: string;
  delivered: number;
}

export interface CallbackRow {
  id: number;
  kind: string;
  tenant_id: string;
  internal_id: string;
  method: string;
  url: string;
  body: string | null;
  content_type: string | null;
  attempts: number;
  next_at: number;
  created_at: number;
  done_at: number | null;
  outcome: string | null;
  last_error: string | null;
}

export interface RecordingRow {
  record_id: string;
  tenant_id: string;
  meeting_id: string;
  internal_id: string;
  name: string;
  published: number;
  protected: number;
  start_time: number;
  end_time: number;
  participants: number;
  metadata_json: string;
}

export const toMeeting = (r: MeetingRow): CompatMeeting => ({
  internalId: r.internal_id,
  tenantId: r.tenant_id,
  meetingId: r.meeting_id,
  roomId: r.room_id,
  name: r.name,
  attendeePw: r.attendee_pw,
  moderatorPw: r.moderator_pw,
  createTime: r.create_time,
  voiceBridge: r.voice_bridge,
  dialNumber: r.dial_number,
  durationMin: r.duration_min,
  maxParticipants: r.max_participants,
  record: r.record === 1,
  guestPolicy: r.guest_policy as GuestPolicy,
  settings: JSON.parse(r.settings_json) as CompatMeeting['settings'],
  metadata: JSON.parse(r.metadata_json) as CompatMeeting['metadata'],
  presentations: JSON.parse(r.presentations_json) as CompatMeeting['presentations'],
  engineMeetingId: r.engine_meeting_id,
  startTime: r.start_time,
  endTime: r.end_time,
  forciblyEnded: r.forcibly_ended === 1,
  endReason: r.end_reason as EndReason | null,
});

export const meetingRow = (m: CompatMeeting): MeetingRow => ({
  internal_id: m.internalId,
  tenant_id: m.tenantId,
  meeting_id: m.meetingId,
  room_id: m.roomId,
  name: m.name,
  attendee_pw: m.attendeePw,
  moderator_pw: m.moderatorPw,
  create_time: m.createTime,
  voice_bridge: m.voiceBridge,
  dial_number: m.dialNumber,
  duration_min: m.durationMin,
  max_participants: m.maxParticipants,
  record: m.record ? 1 : 0,
  guest_policy: m.guestPolicy,
  settings_json: JSON.stringify(m.settings),
  metadata_json: JSON.stringify(m.metadata),
  presentations_json: JSON.stringify(m.presentations),
  engine_meeting_id: m.engineMeetingId,
  start_time: m.startTime,
  end_time: m.endTime,
  forcibly_ended: m.forciblyEnded ? 1 : 0,
  end_reason: m.endReason,
});

export const toChat = (r: ChatRow): ChatRecord => ({
  internalId: r.internal_id,
  at: r.at,
  sender: r.sender,
  text: r.text,
  delivered: r.delivered === 1,
});

export const toCallback = (r: CallbackRow): CallbackJob => ({
  id: r.id,
  kind: r.kind as CallbackJob['kind'],
  tenantId: r.tenant_id,
  internalId: r.internal_id,
  method: r.method as CallbackJob['method'],
  url: r.url,
  body: r.body,
  contentType: r.content_type,
  attempts: r.attempts,
  nextAt: r.next_at,
  createdAt: r.created_at,
  doneAt: r.done_at,
  outcome: r.outcome as CallbackJob['outcome'],
  lastError: r.last_error,
});

/** A tenant's recordings narrowed as getRecordings asks: by record ids, else by meeting ids, else all. */
export function recordingsMatching(
  all: RecordingRecord[],
  filter: { meetingIds?: readonly string[]; recordIds?: readonly string[] },
): RecordingRecord[] {
  if (filter.recordIds && filter.recordIds.length > 0) {
    const ids = new Set(filter.recordIds);
    return all.filter((r) => ids.has(r.recordId));
  }
  if (filter.meetingIds && filter.meetingIds.length > 0) {
    const ids = new Set(filter.meetingIds);
    return all.filter((r) => ids.has(r.meetingId));
  }
  return all;
}

/** A new callback job's columns, as both stores insert them. */
export const newCallbackRow = (job: NewCallbackJob) => ({
  kind: job.kind,
  tenant_id: job.tenantId,
  internal_id: job.internalId,
  method: job.method,
  url: job.url,
  body: job.body,
  content_type: job.contentType,
  next_at: job.nextAt,
  created_at: job.createdAt,
});

/** A chat record's columns, as both stores insert them (the flag 0/1 on both). */
export const chatRow = (record: ChatRecord) => ({
  internal_id: record.internalId,
  at: record.at,
  sender: record.sender,
  text: record.text,
  delivered: record.delivered ? 1 : 0,
});

export const toRecording = (r: RecordingRow): RecordingRecord => ({
  recordId: r.record_id,
  tenantId: r.tenant_id,
  meetingId: r.meeting_id,
  internalId: r.internal_id,
  name: r.name,
  published: r.published === 1,
  protected: r.protected === 1,
  startTime: r.start_time,
  endTime: r.end_time,
  participants: r.participants,
  metadata: JSON.parse(r.metadata_json) as RecordingRecord['metadata'],
});

export const recordingRow = (r: RecordingRecord): RecordingRow => ({
  record_id: r.recordId,
  tenant_id: r.tenantId,
  meeting_id: r.meetingId,
  internal_id: r.internalId,
  name: r.name,
  published: r.published ? 1 : 0,
  protected: r.protected ? 1 : 0,
  start_time: r.startTime,
  end_time: r.endTime,
  participants: r.participants,
  metadata_json: JSON.stringify(r.metadata),
});

export const meetingColumns = Object.keys(
  meetingRow(plainMeeting({ internalId: '', tenantId: '', meetingId: '', roomId: '', name: '', createTime: 0 })),
);

/**
 * The meeting API's SQLite database (`confapi.sqlite` in COMPAT_API_DATA_DIR), with its own
 * migrations in ./migrations. Same durability rules as the engine's: WAL, synchronous=FULL.
 */
export class SqliteCompatStore implements CompatStore {
  /** The connection, for the asynchronous adapter's hand-made transactions (async-sqlite.ts). */
  readonly db: Database.Database;
  private readonly stmts;

  constructor(dataDir: string) {
    this.db = openDurable(join(dataDir, compatDatabaseFileName));
    migrate(this.db, readMigrations(migrationsDir));
    const db = this.db;
    const set = meetingColumns
      .filter((c) => c !== 'internal_id')
      .map((c) => `${c} = @${c}`)
      .join(', ');
    this.stmts = {
      insertMeeting: db.prepare(
        `INSERT INTO compat_meetings (${meetingColumns.join(', ')}) VALUES (${meetingColumns.map((c) => `@${c}`).join(', ')})`,
      ),
      deleteMeeting: db.prepare('DELETE FROM compat_meetings WHERE internal_id = ?'),
      updateMeeting: db.prepare(`UPDATE compat_meetings SET ${set} WHERE internal_id = @internal_id`),
      meeting: db.prepare('SELECT * FROM compat_meetings WHERE internal_id = ?'),
      openMeeting: db.prepare(
        'SELECT * FROM compat_meetings WHERE tenant_id = ? AND meeting_id = ? AND end_time IS NULL',
      ),
      latestMeeting: db.prepare(
        'SELECT * FROM compat_meetings WHERE tenant_id = ? AND meeting_id = ? ORDER BY create_time DESC, rowid DESC LIMIT 1',
      ),
      openMeetings: db.prepare('SELECT * FROM compat_meetings WHERE end_time IS NULL ORDER BY create_time, rowid'),
      openMeetingsOf: db.prepare(
        'SELECT * FROM compat_meetings WHERE tenant_id = ? AND end_time IS NULL ORDER BY create_time, rowid',
      ),
      openMeetingInRoom: db.prepare(
        'SELECT * FROM compat_meetings WHERE room_id = ? AND end_time IS NULL ORDER BY create_time DESC LIMIT 1',
      ),
      ownersOf: db.prepare('SELECT DISTINCT tenant_id FROM compat_meetings WHERE meeting_id = ? AND end_time IS NULL'),
      endedRoomIds: db.prepare('SELECT DISTINCT room_id FROM compat_meetings WHERE end_time IS NOT NULL'),
      appendChat: db.prepare(
        'INSERT INTO compat_chat (internal_id, at, sender, text, delivered) VALUES (@internal_id, @at, @sender, @text, @delivered)',
      ),
      chatOf: db.prepare('SELECT * FROM compat_chat WHERE internal_id = ? ORDER BY seq'),
      setCustomData: db.prepare(
        'INSERT OR REPLACE INTO compat_customdata (internal_id, user_key, data_json) VALUES (?, ?, ?)',
      ),
      customDataOf: db.prepare('SELECT user_key, data_json FROM compat_customdata WHERE internal_id = ?'),
      insertCallback: db.prepare(
        `INSERT INTO compat_callbacks (kind, tenant_id, internal_id, method, url, body, content_type, next_at, created_at)
         VALUES (@kind, @tenant_id, @internal_id, @method, @url, @body, @content_type, @next_at, @created_at) RETURNING *`,
      ),
      updateCallback: db.prepare(
        `UPDATE compat_callbacks SET attempts = @attempts, next_at = @next_at, done_at = @done_at, outcome = @outcome, last_error = @last_error
         WHERE id = @id`,
      ),
      pendingCallbacks: db.prepare('SELECT * FROM compat_callbacks WHERE done_at IS NULL ORDER BY next_at, id'),
      insertRecording: db.prepare(
        `INSERT INTO compat_recordings (record_id, tenant_id, meeting_id, internal_id, name, published, protected, start_time, end_time, participants, metadata_json)
         VALUES (@record_id, @tenant_id, @meeting_id, @internal_id, @name, @published, @protected, @start_time, @end_time, @participants, @metadata_json)`,
      ),
      updateRecording: db.prepare(
        `UPDATE compat_recordings SET name = @name, published = @published, protected = @protected, metadata_json = @metadata_json
         WHERE record_id = @record_id`,
      ),
      deleteRecording: db.prepare('DELETE FROM compat_recordings WHERE record_id = ?'),
      recordingsOf: db.prepare(
        'SELECT * FROM compat_recordings WHERE tenant_id = ? ORDER BY start_time DESC, record_id',
      ),
    };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  insertMeeting(meeting: CompatMeeting): void {
    this.stmts.insertMeeting.run(meetingRow(meeting));
  }

  deleteMeeting(internalId: string): void {
    this.stmts.deleteMeeting.run(internalId);
  }

  updateMeeting(meeting: CompatMeeting): void {
    this.stmts.updateMeeting.run(meetingRow(meeting));
  }

  meeting(internalId: string): CompatMeeting | null {
    const row = this.stmts.meeting.get(internalId) as MeetingRow | undefined;
    return row ? toMeeting(row) : null;
  }

  openMeeting(tenantId: string, meetingId: string): CompatMeeting | null {
    const row = this.stmts.openMeeting.get(tenantId, meetingId) as MeetingRow | undefined;
    return row ? toMeeting(row) : null;
  }

  latestMeeting(tenantId: string, meetingId: string): CompatMeeting | null {
    const row = this.stmts.latestMeeting.get(tenantId, meetingId) as MeetingRow | undefined;
    return row ? toMeeting(row) : null;
  }

  openMeetings(): CompatMeeting[] {
    return (this.stmts.openMeetings.all() as MeetingRow[]).map(toMeeting);
  }

  openMeetingsOf(tenantId: string): CompatMeeting[] {
    return (this.stmts.openMeetingsOf.all(tenantId) as MeetingRow[]).map(toMeeting);
  }

  openMeetingInRoom(roomId: string): CompatMeeting | null {
    const row = this.stmts.openMeetingInRoom.get(roomId) as MeetingRow | undefined;
    return row ? toMeeting(row) : null;
  }

  endedRoomIds(): string[] {
    return (this.stmts.endedRoomIds.all() as { room_id: string }[]).map((r) => r.room_id);
  }

  ownersOf(meetingId: string): string[] {
    return (this.stmts.ownersOf.all(meetingId) as { tenant_id: string }[]).map((r) => r.tenant_id);
  }

  appendChat(record: ChatRecord): void {
    this.stmts.appendChat.run(chatRow(record));
  }

  chatOf(internalId: string): ChatRecord[] {
    return (this.stmts.chatOf.all(internalId) as ChatRow[]).map(toChat);
  }

  setCustomData(internalId: string, userKey: string, data: readonly (readonly [string, string])[]): void {
    this.stmts.setCustomData.run(internalId, userKey, JSON.stringify(data));
  }

  customDataOf(internalId: string): ReadonlyMap<string, readonly (readonly [string, string])[]> {
    const rows = this.stmts.customDataOf.all(internalId) as { user_key: string; data_json: string }[];
    return new Map(rows.map((r) => [r.user_key, JSON.parse(r.data_json) as [string, string][]]));
  }

  insertCallback(job: NewCallbackJob): CallbackJob {
    const row = this.stmts.insertCallback.get(newCallbackRow(job)) as CallbackRow;
    return toCallback(row);
  }

  updateCallback(job: CallbackJob): void {
    this.stmts.updateCallback.run({
      id: job.id,
      attempts: job.attempts,
      next_at: job.nextAt,
      done_at: job.doneAt,
      outcome: job.outcome,
      last_error: job.lastError,
    });
  }

  pendingCallbacks(): CallbackJob[] {
    return (this.stmts.pendingCallbacks.all() as CallbackRow[]).map(toCallback);
  }

  insertRecording(recording: RecordingRecord): void {
    this.stmts.insertRecording.run(recordingRow(recording));
  }

  updateRecording(recording: RecordingRecord): void {
    this.stmts.updateRecording.run(recordingRow(recording));
  }

  deleteRecording(recordId: string): void {
    this.stmts.deleteRecording.run(recordId);
  }

  recordings(
    tenantId: string,
    filter: { meetingIds?: readonly string[]; recordIds?: readonly string[] },
  ): RecordingRecord[] {
    return recordingsMatching((this.stmts.recordingsOf.all(tenantId) as RecordingRow[]).map(toRecording), filter);
  }

  close(): void {
    this.db.close();
  }
}
