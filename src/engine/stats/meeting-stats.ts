import type { Clock } from '../clock.js';
import { AsyncGroupCommit, type AsyncDefer } from '../async-group-commit.js';
import type { AsyncPort } from '../async-port.js';
import { plainStep, type UnitOfWork } from '../unit-of-work.js';

/**
 * Per participant and meeting: audio and video on or off (now), talk time (the sum of
 * speaking intervals), webcam intervals (each time video was on) and the number of chat
 * messages. The live connection feeds it with what it observes (`state`, `speaking`,
 * `chat`); totals reported by a client are never taken. Every change is written through, in
 * a group commit when the daemon gives a `defer` (setImmediate), so the changes of one turn of
 * the event loop share one transaction instead of paying a durable commit each. Its own group,
 * not MeetingService's: a read or a settling flushes it, and may do so inside a meeting's
 * transaction (a savepoint then), which must not commit the knocks queued there.
 *
 * Reading (for the compat module's getMeetingInfo and learningDashboard):
 *   `stats.of(meetingId): ParticipantStats[]` — participants who ever connected, in order of
 *   first connection; times are ISO 8601; talk time includes a running interval up to now.
 */
export interface StatsRecord {
  readonly participantId: string;
  readonly meetingId: string;
  readonly audio: boolean;
  readonly video: boolean;
  /** Milliseconds of closed speaking intervals. */
  readonly talkMs: number;
  /** Start of the running speaking interval, if any. */
  readonly talkingSince: string | null;
  readonly lastTalkAt: string | null;
  readonly chatMessages: number;
}

export interface WebcamInterval {
  readonly participantId: string;
  readonly startedAt: string;
  /** Null while the video is still on. */
  readonly endedAt: string | null;
}

export interface StatsStore {
  getStats(participantId: string): StatsRecord | null;
  /** Inserts or replaces the record of `record.participantId`. */
  saveStats(record: StatsRecord): void;
  /** Records of a meeting in order of creation. */
  statsOf(meetingId: string): StatsRecord[];
  /** Records with a running interval or media on, in any meeting (to settle after a restart). */
  unsettledStats(): StatsRecord[];
  openWebcam(meetingId: string, participantId: string, startedAt: string): void;
  /** Ends the participant's running webcam interval, if any. */
  closeWebcam(participantId: string, endedAt: string): void;
  /** Intervals of a meeting in order of start. */
  webcamsOf(meetingId: string): WebcamInterval[];
}

export interface ParticipantStats {
  readonly participantId: string;
  readonly audio: boolean;
  readonly video: boolean;
  readonly talking: boolean;
  /** Talk time in milliseconds, a running interval included. */
  readonly talkTimeMs: number;
  readonly lastTalkAt: string | null;
  readonly webcams: readonly { readonly startedAt: string; readonly endedAt: string | null }[];
  readonly chatMessages: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class MeetingStats {
  private readonly records = new Map<string, StatsRecord>();
  /** Writes waiting for their group's commit; whoever reads the store or writes outside it flushes first. */
  private readonly group: AsyncGroupCommit | null;

  /**
   * Reads nothing and writes nothing until used: a CLI command may open it next to a running
   * daemon. Without `defer` every change is its own transaction. Its writes commit through the
   * engine's unit of work, the one the knocks and the chat commit through.
   */
  constructor(
    private readonly store: AsyncPort<StatsStore>,
    private readonly unitOfWork: UnitOfWork<'async'>,
    private readonly clock: Clock,
    defer?: AsyncDefer,
  ) {
    this.group = defer
      ? new AsyncGroupCommit(async (fn) => ({ value: await unitOfWork.run(() => fn(plainStep)), durable: null }), defer)
      : null;
  }

  /**
   * For the serving daemon, once at start: intervals left running by a process that stopped
   * without closing them (kill -9) end now, as their sockets are gone; the clients report
   * afresh when they reconnect. Returns how many records were settled.
   */
  async settleUnfinished(): Promise<number> {
    await this.group?.flush();
    const now = this.nowIso();
    // Nothing left running (a clean stop): no unit, whose context would be the process's first
    // AsyncLocalStorage run and slow every later promise on Node 20 (issue 34 point 7).
    if ((await this.store.unsettledStats()).length === 0) return 0;
    return this.unitOfWork.run(async () => {
      const unsettled = await this.store.unsettledStats();
      for (const record of unsettled) await this.settle(record, now);
      return unsettled.length;
    });
  }

  /** A participant connected: their record exists from now on (media off until reported). */
  async joined(meetingId: string, participantId: string): Promise<void> {
    await this.load(meetingId, participantId);
  }

  /** What the participant's page reports as on; a change of video opens or closes a webcam interval. */
  async state(
    meetingId: string,
    participantId: string,
    media: { readonly audio: boolean; readonly video: boolean },
  ): Promise<void> {
    const current = await this.load(meetingId, participantId);
    if (current.audio === media.audio && current.video === media.video) return;
    const now = this.nowIso();
    const next: Mutable<StatsRecord> = { ...current, audio: media.audio, video: media.video };
    // Without audio nobody is heard: a running speaking interval ends.
    if (!media.audio && current.talkingSince !== null) this.endTalk(next, now);
    await this.save(next, async () => {
      if (media.video && !current.video) await this.store.openWebcam(meetingId, participantId, now);
      if (!media.video && current.video) await this.store.closeWebcam(participantId, now);
    });
  }

  /**
   * Speaking starts or stops. Speaking counts only while audio is on; returns whether the
   * report was taken (false: audio is off, or nothing changed).
   */
  async speaking(meetingId: string, participantId: string, speaking: boolean): Promise<boolean> {
    const current = await this.load(meetingId, participantId);
    const now = this.nowIso();
    if (speaking) {
      if (!current.audio || current.talkingSince !== null) return false;
      await this.save({ ...current, talkingSince: now, lastTalkAt: now });
      return true;
    }
    if (current.talkingSince === null) return false;
    const next: Mutable<StatsRecord> = { ...current };
    this.endTalk(next, now);
    await this.save(next);
    return true;
  }

  /**
   * Counted inside the caller's transaction (the chat message's), not in a later group: the
   * message goes out to the room once that commits, so a kill -9 right after cannot lose the count.
   * The caller flushes the group before its transaction (a flush inside would wait for a group
   * that waits for the caller's transaction).
   */
  async chat(meetingId: string, participantId: string): Promise<void> {
    const current = await this.load(meetingId, participantId);
    const next = { ...current, chatMessages: current.chatMessages + 1 };
    this.records.set(participantId, next);
    await this.store.saveStats(next);
  }

  /** The participant's connection is gone: audio and video are off, intervals end. */
  async disconnected(meetingId: string, participantId: string): Promise<void> {
    await this.group?.flush();
    const current = this.records.get(participantId) ?? (await this.store.getStats(participantId));
    if (!current || current.meetingId !== meetingId) return;
    await this.unitOfWork.run(() => this.settle(current, this.nowIso()));
    this.records.delete(participantId);
  }

  /** Ends every running interval of the meeting and forgets it from memory. */
  async meetingEnded(meetingId: string): Promise<void> {
    await this.group?.flush();
    const now = this.nowIso();
    await this.unitOfWork.run(async () => {
      for (const stored of await this.store.statsOf(meetingId)) {
        await this.settle(this.records.get(stored.participantId) ?? stored, now);
        this.records.delete(stored.participantId);
      }
    });
  }

  /** Commits the queued writes now (the daemon stops, a chat message is about to be counted). */
  async flush(): Promise<void> {
    await this.group?.flush();
  }

  async of(meetingId: string): Promise<ParticipantStats[]> {
    await this.group?.flush();
    const nowMs = this.clock.now().getTime();
    const webcams = await this.store.webcamsOf(meetingId);
    return (await this.store.statsOf(meetingId)).map((stored) => {
      const record = this.records.get(stored.participantId) ?? stored;
      const running = record.talkingSince === null ? 0 : Math.max(0, nowMs - Date.parse(record.talkingSince));
      return {
        participantId: record.participantId,
        audio: record.audio,
        video: record.video,
        talking: record.talkingSince !== null,
        talkTimeMs: record.talkMs + running,
        lastTalkAt: record.lastTalkAt,
        webcams: webcams
          .filter((w) => w.participantId === record.participantId)
          .map(({ startedAt, endedAt }) => ({ startedAt, endedAt })),
        chatMessages: record.chatMessages,
      };
    });
  }

  private async settle(record: StatsRecord, now: string): Promise<void> {
    if (!record.audio && !record.video && record.talkingSince === null) return;
    const next: Mutable<StatsRecord> = { ...record, audio: false, video: false };
    if (record.talkingSince !== null) this.endTalk(next, now);
    if (record.video) await this.store.closeWebcam(record.participantId, now);
    await this.store.saveStats(next);
    if (this.records.has(record.participantId)) this.records.set(record.participantId, next);
  }

  private endTalk(record: Mutable<StatsRecord>, now: string): void {
    if (record.talkingSince === null) return;
    record.talkMs += Math.max(0, Date.parse(now) - Date.parse(record.talkingSince));
    record.talkingSince = null;
    record.lastTalkAt = now;
  }

  private async load(meetingId: string, participantId: string): Promise<StatsRecord> {
    const cached = this.records.get(participantId);
    if (cached && cached.meetingId === meetingId) return cached;
    const stored = await this.store.getStats(participantId);
    // Loaded meanwhile by another report of hers: memory is the newer.
    const loaded = this.records.get(participantId);
    if (loaded && loaded.meetingId === meetingId) return loaded;
    if (stored && stored.meetingId === meetingId) {
      this.records.set(participantId, stored);
      return stored;
    }
    const fresh: StatsRecord = {
      participantId,
      meetingId,
      audio: false,
      video: false,
      talkMs: 0,
      talkingSince: null,
      lastTalkAt: null,
      chatMessages: 0,
    };
    await this.save(fresh);
    return fresh;
  }

  /**
   * Memory now; the record (and `also`, interval rows) on disk in one transaction, the group's
   * when there is one. The write saves what memory holds when it runs, so an older copy of the
   * record never lands after a newer one (the chat's count, written in its own transaction).
   */
  private async save(record: StatsRecord, also?: () => Promise<void>): Promise<void> {
    this.records.set(record.participantId, record);
    const write = async () => {
      await also?.();
      await this.store.saveStats(this.records.get(record.participantId) ?? record);
    };
    // Without a group (a CLI command, a test) the write is done when the report returns.
    if (!this.group) return this.unitOfWork.run(write);
    const forget = () => {
      // Memory must not stay ahead of a write that failed: the next use reads the disk again.
      if (this.records.get(record.participantId) === record) this.records.delete(record.participantId);
    };
    // A failed group is the store's failure, reported by the writes that answer someone (knocks,
    // chat); statistics have nobody waiting on them, so the rejection is only kept from going unhandled.
    this.group.add({ write, failed: forget }).catch(() => undefined);
  }

  private nowIso(): string {
    return this.clock.now().toISOString();
  }
}
