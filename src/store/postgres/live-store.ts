import type {
  AsyncChatStore,
  AsyncGroupMessageStore,
  AsyncLockStore,
  AsyncStatsStore,
  AsyncSubgroupTimerStore,
} from '../../engine/async-ports.js';
import type { ChatEntry } from '../../engine/live/chat-log.js';
import type { LockSettings } from '../../engine/live/meeting-locks.js';
import type { SubgroupTimerRow } from '../../engine/live/subgroup-timer.js';
import type { GroupMessageRow } from '../../engine/live/subgroups.js';
import type { StatsRecord, WebcamInterval } from '../../engine/stats/meeting-stats.js';
import { postgresColumns, type PostgresTypes } from '../rows/columns.js';
import * as liveRows from '../rows/live-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

type Stats = liveRows.StatsRow<PostgresTypes>;
const toStats = (row: Stats): StatsRecord => liveRows.statsFromRow(row, postgresColumns);

const statsColumns = 'participant_id, meeting_id, audio, video, talk_ms, talking_since, last_talk_at, chat_messages';

/**
 * The live connection's chat, lock settings and statistics, the sub-groups' timers and message to
 * all groups, on PostgreSQL. Where SQLite orders by rowid this orders by seq (chat, webcams) or by
 * ordinal (statistics, migration 020); room ids are ordered COLLATE "C", as SQLite's bytes.
 */
export class PostgresLiveStore
  implements AsyncChatStore, AsyncLockStore, AsyncStatsStore, AsyncSubgroupTimerStore, AsyncGroupMessageStore
{
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async appendChat(entry: ChatEntry): Promise<void> {
    await this.unit.fenceMeeting(entry.meetingId);
    await this.db`INSERT INTO chat_messages ${this.db(liveRows.chatToRow(entry))}`;
  }

  async recentChat(meetingId: string, limit: number): Promise<ChatEntry[]> {
    const rows = await this.db<liveRows.ChatRow[]>`
      SELECT meeting_id, at, participant_id, name, text FROM (
        SELECT * FROM chat_messages WHERE meeting_id = ${meetingId} ORDER BY seq DESC LIMIT ${limit}) recent
      ORDER BY seq`;
    return rows.map(liveRows.chatFromRow);
  }

  async getLocks(meetingId: string): Promise<LockSettings | null> {
    const [row] = await this.db<liveRows.LocksRow<PostgresTypes>[]>`
      SELECT mic, cam, cams_moderators_only FROM meeting_locks WHERE meeting_id = ${meetingId}`;
    return row ? liveRows.locksFromRow(row, postgresColumns) : null;
  }

  async saveLocks(meetingId: string, locks: LockSettings, at: string): Promise<void> {
    await this.unit.fenceMeeting(meetingId);
    await this.db`INSERT INTO meeting_locks ${this.db(liveRows.locksToRow(meetingId, locks, at, postgresColumns))}
      ON CONFLICT (meeting_id) DO UPDATE SET mic = excluded.mic, cam = excluded.cam,
        cams_moderators_only = excluded.cams_moderators_only, updated_at = excluded.updated_at`;
  }

  async getStats(participantId: string): Promise<StatsRecord | null> {
    const [row] = await this.db.unsafe<Stats[]>(
      `SELECT ${statsColumns} FROM participant_stats WHERE participant_id = $1`,
      [participantId],
    );
    return row ? toStats(row) : null;
  }

  async saveStats(record: StatsRecord): Promise<void> {
    await this.unit.fenceMeeting(record.meetingId);
    await this.db`INSERT INTO participant_stats ${this.db(liveRows.statsToRow(record, postgresColumns))}
      ON CONFLICT (participant_id) DO UPDATE SET audio = excluded.audio, video = excluded.video,
        talk_ms = excluded.talk_ms, talking_since = excluded.talking_since, last_talk_at = excluded.last_talk_at,
        chat_messages = excluded.chat_messages`;
  }

  async statsOf(meetingId: string): Promise<StatsRecord[]> {
    const rows = await this.db.unsafe<Stats[]>(
      `SELECT ${statsColumns} FROM participant_stats WHERE meeting_id = $1 ORDER BY ordinal`,
      [meetingId],
    );
    return rows.map(toStats);
  }

  async unsettledStats(): Promise<StatsRecord[]> {
    const rows = await this.db.unsafe<Stats[]>(
      `SELECT ${statsColumns} FROM participant_stats WHERE audio OR video OR talking_since IS NOT NULL ORDER BY ordinal`,
    );
    return rows.map(toStats);
  }

  async openWebcam(meetingId: string, participantId: string, startedAt: string): Promise<void> {
    await this.unit.fenceMeeting(meetingId);
    await this.db`INSERT INTO webcam_intervals (meeting_id, participant_id, started_at)
      VALUES (${meetingId}, ${participantId}, ${startedAt})`;
  }

  async closeWebcam(participantId: string, endedAt: string): Promise<void> {
    await this.unit.fenceParticipant(participantId);
    await this.db`UPDATE webcam_intervals SET ended_at = ${endedAt}
      WHERE participant_id = ${participantId} AND ended_at IS NULL`;
  }

  async webcamsOf(meetingId: string): Promise<WebcamInterval[]> {
    const rows = await this.db<liveRows.WebcamRow[]>`
      SELECT participant_id, started_at, ended_at FROM webcam_intervals WHERE meeting_id = ${meetingId} ORDER BY seq`;
    return rows.map(liveRows.webcamFromRow);
  }

  async subgroupTimers(): Promise<SubgroupTimerRow[]> {
    const rows = await this.db<liveRows.TimerRow[]>`
      SELECT room_id, ends_at FROM subgroup_timers ORDER BY room_id COLLATE "C"`;
    return rows.map(liveRows.timerFromRow);
  }

  async saveSubgroupTimer(roomId: string, endsAt: string | null): Promise<void> {
    await this.unit.fenceRoom(roomId);
    if (endsAt === null) await this.db`DELETE FROM subgroup_timers WHERE room_id = ${roomId}`;
    else
      await this.db`INSERT INTO subgroup_timers (room_id, ends_at) VALUES (${roomId}, ${endsAt})
        ON CONFLICT (room_id) DO UPDATE SET ends_at = excluded.ends_at`;
  }

  async groupMessages(): Promise<GroupMessageRow[]> {
    const rows = await this.db<liveRows.MessageRow[]>`
      SELECT room_id, text, sender_name FROM group_messages ORDER BY room_id COLLATE "C"`;
    return rows.map(liveRows.groupMessageFromRow);
  }

  async saveGroupMessage(
    roomId: string,
    message: { readonly text: string; readonly from: string } | null,
  ): Promise<void> {
    await this.unit.fenceRoom(roomId);
    if (message === null) await this.db`DELETE FROM group_messages WHERE room_id = ${roomId}`;
    else
      await this
        .db`INSERT INTO group_messages (room_id, text, sender_name) VALUES (${roomId}, ${message.text}, ${message.from})
        ON CONFLICT (room_id) DO UPDATE SET text = excluded.text, sender_name = excluded.sender_name`;
  }
}
