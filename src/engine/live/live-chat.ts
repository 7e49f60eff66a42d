import type { ChatMessage, Role } from '../../protocol/live.js';
import { systemName } from '../display-name.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { MeetingStats } from '../stats/meeting-stats.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { ChatEntry, ChatLog } from './chat-log.js';
import { liveError } from './live-errors.js';
import type { RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

/**
 * A chat message on the wire. The sender's marker travels as fields (`system`, `role`) so the
 * client draws it as a badge; nothing about who sent it is ever put into `name` or `text`.
 * The role is the author's in this meeting now (a moderator's old messages show the badge).
 */
export function wireChat(entry: ChatEntry, roleOf: (participantId: string) => Role | undefined): ChatMessage {
  const system = entry.participantId === null;
  const role = system ? null : (roleOf(entry.participantId) ?? 'participant');
  return {
    from: { participant_id: entry.participantId, name: entry.name, role, system },
    text: entry.text,
    at: entry.at,
  };
}

export interface LiveChatDeps {
  readonly meetings: Pick<MeetingService, 'participant' | 'current'>;
  readonly transactions: Pick<AsyncTransactions, 'atomically'>;
  readonly chat: Pick<ChatLog, 'post'>;
  readonly stats: Pick<MeetingStats, 'chat' | 'flush'>;
  readonly chatLimit: RateLimit;
}

/**
 * The meeting's chat on the live connection: a message is stored with its count in the
 * statistics, in one transaction, before anyone is told; each member has her own rate window.
 */
export class LiveChat {
  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: LiveChatDeps,
  ) {}

  /** The latest messages (`ChatLog.latest`) as a welcome lists them. */
  onWire(entries: readonly ChatEntry[]): ChatMessage[] {
    return entries.map((entry) => this.wire(entry));
  }

  async post(state: RoomState, member: Member, text: string): Promise<void> {
    if (!member.windows.chats.admit(this.rooms.nowMs(), this.deps.chatLimit)) {
      member.outbox.send(liveError('rate_limited', 'too many chat messages; wait a few seconds'));
      return;
    }
    let entry: ChatEntry;
    try {
      // The statistics' queued writes first, outside: a flush inside would wait for a group that waits for this transaction.
      await this.deps.stats.flush();
      entry = await this.deps.transactions.atomically(async () => {
        const posted = await this.deps.chat.post(
          state.meetingId,
          { participantId: member.participantId, name: member.name },
          text,
        );
        await this.deps.stats.chat(state.meetingId, member.participantId);
        return posted;
      });
    } catch (err) {
      if (err instanceof EngineError) {
        member.outbox.send(liveError('invalid_message', err.message));
        return;
      }
      throw err;
    }
    this.rooms.broadcast(state, { type: 'chat', message: this.wire(entry) });
  }

  /** In the name of 'System' to the room's open meeting (the compat module's sendChatMessage); null without one. */
  async system(roomId: string, text: string): Promise<ChatEntry | null> {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) return null;
    const entry = await this.deps.chat.post(meeting.meetingId, { participantId: null, name: systemName }, text);
    const state = this.rooms.live(roomId, meeting.meetingId);
    if (state) this.rooms.broadcast(state, { type: 'chat', message: this.wire(entry) });
    return entry;
  }

  private wire(entry: ChatEntry): ChatMessage {
    return wireChat(entry, (id) => this.deps.meetings.participant(id)?.role);
  }
}
