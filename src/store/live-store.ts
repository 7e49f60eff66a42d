import type { ChatEntry, ChatStore } from '../engine/live/chat-log.js';
import type { LockSettings, LockStore } from '../engine/live/meeting-locks.js';
import type { SubgroupTimerRow, SubgroupTimerStore } from '../engine/live/subgroup-timer.js';
import type { GroupMessageRow, GroupMessageStore } from '../engine/live/subgroups.js';
import type { StatsRecord, StatsStore, WebcamInterval } from '../engine/stats/meeting-stats.js';
import type { Db } from './database.js';
import { sqliteColumns, type SqliteTypes } from './rows/columns.js';
import * as liveRows from './rows/live-row.js';

type Stats = liveRows.StatsRow<SqliteTypes>;
const toStats = (row: Stats): StatsRecord => liveRows.statsFromRow(row, sqliteColumns);

/**
 * Chat, lock settings and statistics of the live connection (migration 004), the sub-groups' timers (014) and
 * message to all groups (016).
 */
export class SqliteLiveStore implements ChatStore, LockStore, StatsStore, SubgroupTimerStore, GroupMessageStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      appendChat: db.prepare<[liveRows.ChatRow]>(
        'INSERT INTO chat_messages (meeting_id, at, participant_id, name, text) VALUES (@meeting_id, @at, @participant_id, @name, @text)',
      ),
      recentChat: db.prepare<[string, number], liveRows.ChatRow>(
        `SELECT * FROM (SELECT seq, meeting_id, at, participant_id, name, text FROM chat_messages
           WHERE meeting_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
      ),
      getLocks: db.prepare<[string], liveRows.LocksRow<SqliteTypes>>(
        'SELECT mic, cam, cams_moderators_only FROM meeting_locks WHERE meeting_id = ?',
      ),
      saveLocks: db.prepare<[liveRows.SavedLocksRow<SqliteTypes>]>(
        `INSERT INTO meeting_locks (meeting_id, mic, cam, cams_moderators_only, updated_at)
         VALUES (@meeting_id, @mic, @cam, @cams_moderators_only, @updated_at)
         ON CONFLICT (meeting_id) DO UPDATE SET mic = excluded.mic, cam = excluded.cam,
           cams_moderators_only = excluded.cams_moderators_only, updated_at = excluded.updated_at`,
      ),
      getStats: db.prepare<[string], Stats>('SELECT * FROM participant_stats WHERE participant_id = ?'),
      saveStats: db.prepare<[Stats]>(
        `INSERT INTO participant_stats (participant_id, meeting_id, audio, video, talk_ms, talking_since, last_talk_at, chat_messages)
         VALUES (@participant_id, @meeting_id, @audio, @video, @talk_ms, @talking_since, @last_talk_at, @chat_messages)
         ON CONFLICT (participant_id) DO UPDATE SET audio = excluded.audio, video = excluded.video, talk_ms = excluded.talk_ms,
           talking_since = excluded.talking_since, last_talk_at = excluded.last_talk_at, chat_messages = excluded.chat_messages`,
      ),
      statsOf: db.prepare<[string], Stats>('SELECT * FROM participant_stats WHERE meeting_id = ? ORDER BY rowid'),
      unsettledStats: db.prepare<[], Stats>(
        'SELECT * FROM participant_stats WHERE audio = 1 OR video = 1 OR talking_since IS NOT NULL ORDER BY rowid',
      ),
      openWebcam: db.prepare<[string, string, string]>(
        'INSERT INTO webcam_intervals (meeting_id, participant_id, started_at) VALUES (?, ?, ?)',
      ),
      closeWebcam: db.prepare<[string, string]>(
        'UPDATE webcam_intervals SET ended_at = ? WHERE participant_id = ? AND ended_at IS NULL',
      ),
      subgroupTimers: db.prepare<[], liveRows.TimerRow>(
        'SELECT room_id, ends_at FROM subgroup_timers ORDER BY room_id',
      ),
      saveSubgroupTimer: db.prepare<[string, string]>(
        `INSERT INTO subgroup_timers (room_id, ends_at) VALUES (?, ?)
         ON CONFLICT (room_id) DO UPDATE SET ends_at = excluded.ends_at`,
      ),
      dropSubgroupTimer: db.prepare<[string]>('DELETE FROM subgroup_timers WHERE room_id = ?'),
      groupMessages: db.prepare<[], liveRows.MessageRow>(
        'SELECT room_id, text, sender_name FROM group_messages ORDER BY room_id',
      ),
      saveGroupMessage: db.prepare<[string, string, string]>(
        `INSERT INTO group_messages (room_id, text, sender_name) VALUES (?, ?, ?)
         ON CONFLICT (room_id) DO UPDATE SET text = excluded.text, sender_name = excluded.sender_name`,
      ),
      dropGroupMessage: db.prepare<[string]>('DELETE FROM group_messages WHERE room_id = ?'),
      webcamsOf: db.prepare<[string], liveRows.WebcamRow>(
        'SELECT participant_id, started_at, ended_at FROM webcam_intervals WHERE meeting_id = ? ORDER BY seq',
      ),
    };
  }

  appendChat(entry: ChatEntry): void {
    this.statements.appendChat.run(liveRows.chatToRow(entry));
  }

  recentChat(meetingId: string, limit: number): ChatEntry[] {
    return this.statements.recentChat.all(meetingId, limit).map(liveRows.chatFromRow);
  }

  getLocks(meetingId: string): LockSettings | null {
    const row = this.statements.getLocks.get(meetingId);
    return row ? liveRows.locksFromRow(row, sqliteColumns) : null;
  }

  saveLocks(meetingId: string, locks: LockSettings, at: string): void {
    this.statements.saveLocks.run(liveRows.locksToRow(meetingId, locks, at, sqliteColumns));
  }

  getStats(participantId: string): StatsRecord | null {
    const row = this.statements.getStats.get(participantId);
    return row ? toStats(row) : null;
  }

  saveStats(record: StatsRecord): void {
    this.statements.saveStats.run(liveRows.statsToRow(record, sqliteColumns));
  }

  statsOf(meetingId: string): StatsRecord[] {
    return this.statements.statsOf.all(meetingId).map(toStats);
  }

  unsettledStats(): StatsRecord[] {
    return this.statements.unsettledStats.all().map(toStats);
  }

  openWebcam(meetingId: string, participantId: string, startedAt: string): void {
    this.statements.openWebcam.run(meetingId, participantId, startedAt);
  }

  closeWebcam(participantId: string, endedAt: string): void {
    this.statements.closeWebcam.run(endedAt, participantId);
  }

  subgroupTimers(): SubgroupTimerRow[] {
    return this.statements.subgroupTimers.all().map(liveRows.timerFromRow);
  }

  saveSubgroupTimer(roomId: string, endsAt: string | null): void {
    if (endsAt === null) this.statements.dropSubgroupTimer.run(roomId);
    else this.statements.saveSubgroupTimer.run(roomId, endsAt);
  }

  groupMessages(): GroupMessageRow[] {
    return this.statements.groupMessages.all().map(liveRows.groupMessageFromRow);
  }

  saveGroupMessage(roomId: string, message: { readonly text: string; readonly from: string } | null): void {
    if (message === null) this.statements.dropGroupMessage.run(roomId);
    else this.statements.saveGroupMessage.run(roomId, message.text, message.from);
  }

  webcamsOf(meetingId: string): WebcamInterval[] {
    return this.statements.webcamsOf.all(meetingId).map(liveRows.webcamFromRow);
  }
}
