import type { Clock } from '../clock.js';
import type { AsyncPort } from '../async-port.js';
import { invalidField } from '../errors.js';

/**
 * The chat of a meeting: every message is written through to the store before it is
 * broadcast, and the latest ones are kept in memory for people who arrive later.
 * Text is stored and sent as typed; clients render it as text, never as HTML.
 */
export interface ChatEntry {
  readonly meetingId: string;
  readonly at: string;
  /** Null for messages of the system (for example from an integration). */
  readonly participantId: string | null;
  readonly name: string;
  readonly text: string;
}

export interface ChatStore {
  appendChat(entry: ChatEntry): void;
  /** The latest `limit` messages of a meeting, oldest first. */
  recentChat(meetingId: string, limit: number): ChatEntry[];
}

export const chatBounds = { minLength: 1, maxLength: 2000, history: 100 } as const;

/** The text of a chat message, or invalid_field (`text`): 1 to 2000 characters, not blank. */
export function checkChatText(text: unknown, field = 'text'): string {
  if (typeof text !== 'string') throw invalidField(field, `${field} must be a string`);
  const length = [...text].length;
  if (length < chatBounds.minLength || length > chatBounds.maxLength) {
    throw invalidField(
      field,
      `${field} must be ${chatBounds.minLength} to ${chatBounds.maxLength} characters long (got ${length})`,
    );
  }
  if (text.trim() === '') throw invalidField(field, `${field} must not be blank`);
  return text;
}

export class ChatLog {
  /** Per meeting, the latest messages once read (a promise: two first readers share one read). */
  private readonly recent = new Map<string, Promise<ChatEntry[]>>();

  constructor(
    private readonly store: AsyncPort<ChatStore>,
    private readonly clock: Clock,
    private readonly history: number = chatBounds.history,
  ) {}

  /**
   * Checks and stores a message; rejects with invalid_field for a bad text. Inside the caller's
   * transaction when there is one (the live chat: its count commits with the message).
   */
  async post(
    meetingId: string,
    from: { readonly participantId: string | null; readonly name: string },
    text: unknown,
  ): Promise<ChatEntry> {
    const entry: ChatEntry = {
      meetingId,
      at: this.clock.now().toISOString(),
      participantId: from.participantId,
      name: from.name,
      text: checkChatText(text),
    };
    const cached = await this.kept(meetingId);
    await this.store.appendChat(entry);
    cached.push(entry);
    if (cached.length > this.history) cached.splice(0, cached.length - this.history);
    return entry;
  }

  /**
   * The latest messages, oldest first (read from the store once per meeting and process): the
   * array kept in memory, which later messages extend, so a welcome built after the await still
   * lists a message posted during it.
   */
  async latest(meetingId: string): Promise<readonly ChatEntry[]> {
    return this.kept(meetingId);
  }

  private kept(meetingId: string): Promise<ChatEntry[]> {
    let cached = this.recent.get(meetingId);
    if (!cached) {
      cached = this.store.recentChat(meetingId, this.history);
      this.recent.set(meetingId, cached);
      // A failed read is tried again by the next reader.
      cached.catch(() => {
        if (this.recent.get(meetingId) === cached) this.recent.delete(meetingId);
      });
    }
    return cached;
  }

  /** Drops the memory of an ended meeting; its messages stay in the store. */
  forget(meetingId: string): void {
    this.recent.delete(meetingId);
  }
}
