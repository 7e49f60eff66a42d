import type { Meeting, Participant } from '../../engine/meetings/meeting.js';
import type { TimelineEntry, TimelineKind } from '../../engine/meetings/timeline.js';
import type { Columns, StoreTypes } from './columns.js';

/** A row of `meetings`, on either store. */
export interface MeetingRow<S extends StoreTypes> {
  meeting_id: string;
  room_id: string;
  started_at: string;
  ended_at: string | null;
  waiting_disabled: S['flag'];
  subject: string;
}

/** A participant as both stores read her: her row of `participants` with her meeting's room. */
export interface ParticipantRow {
  participant_id: string;
  meeting_id: string;
  room_id: string;
  role: Participant['role'];
  name: string;
  joined_at: string;
  left_at: string | null;
  external_id: string | null;
}

/** A row of `timeline_entries` (a knock's entry is read from its request row in this shape). */
export interface TimelineRow {
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

export const meetingFromRow = <S extends StoreTypes>(row: MeetingRow<S>, c: Columns<S>): Meeting => ({
  meetingId: row.meeting_id,
  roomId: row.room_id,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  waitingDisabled: c.flag(row.waiting_disabled),
  subject: row.subject,
});

export const meetingToRow = <S extends StoreTypes>(m: Meeting, c: Columns<S>): MeetingRow<S> => ({
  meeting_id: m.meetingId,
  room_id: m.roomId,
  started_at: m.startedAt,
  ended_at: m.endedAt,
  waiting_disabled: c.toFlag(m.waitingDisabled),
  subject: m.subject,
});

export const participantFromRow = (row: ParticipantRow): Participant => ({
  participantId: row.participant_id,
  meetingId: row.meeting_id,
  roomId: row.room_id,
  role: row.role,
  name: row.name,
  joinedAt: row.joined_at,
  leftAt: row.left_at,
  ...(row.external_id !== null ? { externalId: row.external_id } : {}),
});

/** Her row of `participants` (the room is her meeting's, not a column of hers). */
export const participantToRow = (p: Participant): Omit<ParticipantRow, 'room_id'> => ({
  participant_id: p.participantId,
  meeting_id: p.meetingId,
  role: p.role,
  name: p.name,
  joined_at: p.joinedAt,
  left_at: p.leftAt,
  external_id: p.externalId ?? null,
});

export const entryFromRow = (row: TimelineRow): TimelineEntry => ({
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

export const entryToRow = (e: TimelineEntry): TimelineRow => ({
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
