import type { ChatEntry } from '../../engine/live/chat-log.js';
import type { LockSettings } from '../../engine/live/meeting-locks.js';
import type { SubgroupTimerRow } from '../../engine/live/subgroup-timer.js';
import type { GroupMessageRow } from '../../engine/live/subgroups.js';
import type { StatsRecord, WebcamInterval } from '../../engine/stats/meeting-stats.js';
import type { Columns, StoreTypes } from './columns.js';

/** A row of `chat_messages` (without its seq), the same on both stores. */
export interface ChatRow {
  meeting_id: string;
  at: string;
  participant_id: string | null;
  name: string;
  text: string;
}

/** The settings of a row of `meeting_locks`, on either store. */
export interface LocksRow<S extends StoreTypes> {
  mic: S['flag'];
  cam: S['flag'];
  cams_moderators_only: S['flag'];
}

/** A whole row of `meeting_locks`: a meeting's settings as of `updated_at`. */
export interface SavedLocksRow<S extends StoreTypes> extends LocksRow<S> {
  meeting_id: string;
  updated_at: string;
}

/** A row of `participant_stats`, on either store (talk_ms a bigint on PostgreSQL). */
export interface StatsRow<S extends StoreTypes> {
  participant_id: string;
  meeting_id: string;
  audio: S['flag'];
  video: S['flag'];
  talk_ms: S['big'];
  talking_since: string | null;
  last_talk_at: string | null;
  chat_messages: number;
}

/** The columns of `webcam_intervals` the store reads, the same on both stores. */
export interface WebcamRow {
  participant_id: string;
  started_at: string;
  ended_at: string | null;
}

/** A row of `subgroup_timers`: when a main room's sub-groups end. */
export interface TimerRow {
  room_id: string;
  ends_at: string;
}

/** A row of `group_messages`: the message to all sub-groups of a main room. */
export interface MessageRow {
  room_id: string;
  text: string;
  sender_name: string;
}

export const chatFromRow = (row: ChatRow): ChatEntry => ({
  meetingId: row.meeting_id,
  at: row.at,
  participantId: row.participant_id,
  name: row.name,
  text: row.text,
});

export const chatToRow = (entry: ChatEntry): ChatRow => ({
  meeting_id: entry.meetingId,
  at: entry.at,
  participant_id: entry.participantId,
  name: entry.name,
  text: entry.text,
});

export const locksFromRow = <S extends StoreTypes>(row: LocksRow<S>, c: Columns<S>): LockSettings => ({
  mic: c.flag(row.mic),
  cam: c.flag(row.cam),
  camsModeratorsOnly: c.flag(row.cams_moderators_only),
});

export const locksToRow = <S extends StoreTypes>(
  meetingId: string,
  locks: LockSettings,
  at: string,
  c: Columns<S>,
): SavedLocksRow<S> => ({
  meeting_id: meetingId,
  mic: c.toFlag(locks.mic),
  cam: c.toFlag(locks.cam),
  cams_moderators_only: c.toFlag(locks.camsModeratorsOnly),
  updated_at: at,
});

export const statsFromRow = <S extends StoreTypes>(row: StatsRow<S>, c: Columns<S>): StatsRecord => ({
  participantId: row.participant_id,
  meetingId: row.meeting_id,
  audio: c.flag(row.audio),
  video: c.flag(row.video),
  talkMs: c.big(row.talk_ms),
  talkingSince: row.talking_since,
  lastTalkAt: row.last_talk_at,
  chatMessages: row.chat_messages,
});

/** The row of a record; its talking time in whole milliseconds (the column is an integer). */
export const statsToRow = <S extends StoreTypes>(r: StatsRecord, c: Columns<S>): StatsRow<S> => ({
  participant_id: r.participantId,
  meeting_id: r.meetingId,
  audio: c.toFlag(r.audio),
  video: c.toFlag(r.video),
  talk_ms: c.toBig(Math.round(r.talkMs)),
  talking_since: r.talkingSince,
  last_talk_at: r.lastTalkAt,
  chat_messages: r.chatMessages,
});

export const webcamFromRow = (row: WebcamRow): WebcamInterval => ({
  participantId: row.participant_id,
  startedAt: row.started_at,
  endedAt: row.ended_at,
});

export const timerFromRow = (row: TimerRow): SubgroupTimerRow => ({
  roomId: row.room_id,
  endsAt: row.ends_at,
});

export const groupMessageFromRow = (row: MessageRow): GroupMessageRow => ({
  roomId: row.room_id,
  text: row.text,
  from: row.sender_name,
});
