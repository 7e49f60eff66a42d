import type { Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import type { MeetingStats } from '../stats/meeting-stats.js';
import { guarded } from './live-errors.js';
import { viewOf, type LiveRooms, type Member, type RoomState } from './room-state.js';

export interface MediaFlushDeps {
  readonly scheduler: Scheduler;
  readonly stats: Pick<MeetingStats, 'state' | 'speaking'>;
  /** A room is told at most once per this many milliseconds. */
  readonly flushMs: number;
  /** Deliveries a room's flushes may make per second; a flush that made more pushes the next one later. */
  readonly sendsPerSecond: number;
  /** A recorder's failure is logged here: the room was told, the statistics are not worth a socket. */
  readonly log: EngineLog;
}

/**
 * A member's media state and speaking are values, not events: a change marks her, and the room
 * is told the latest value of each marked member at most once per `flushMs` (one timer per
 * room). A toggle undone before the flush sends nothing and writes nothing; statistics record
 * what the room was told, queued through the group commit (MeetingStats), so one flush is one
 * transaction whatever the number of toggles. The first change after a quiet spell goes out at
 * once. Each flush costs its deliveries against the room's `sendsPerSecond`, so the flushes of
 * a room whose members all flicker come further apart instead of taking the event loop from
 * the other rooms: delaying a value loses nothing, the latest one still goes out.
 */
export class MediaFlush {
  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: MediaFlushDeps,
  ) {}

  /** Her media or speaking changed in memory: the room hears it at the next flush. */
  changed(state: RoomState, member: Member): void {
    const flush = state.flush;
    flush.dirty.add(member);
    if (flush.timer !== null) return;
    const wait = flush.earliestMs - this.rooms.nowMs();
    if (wait <= 0) {
      this.run(state);
      return;
    }
    flush.timer = this.deps.scheduler.setTimeout(() => {
      flush.timer = null;
      // The meeting ended (or a later one took the room) meanwhile: nobody is left to tell.
      if (this.rooms.states.get(state.roomId) === state) this.run(state);
    }, wait);
  }

  /** Her whole view to everyone now, her too (a rename): what it says of her media counts as told. */
  publish(state: RoomState, member: Member): void {
    this.recordMedia(state, member);
    this.spend(state, this.rooms.broadcast(state, { type: 'state', participant: viewOf(member) }));
  }

  /** Every marked member of the room now (a lock turned media off: it must not wait). */
  now(state: RoomState): void {
    const flush = state.flush;
    if (flush.timer !== null) this.deps.scheduler.clearTimeout(flush.timer);
    flush.timer = null;
    this.run(state);
  }

  /** The room's meeting ended: its pending flush is dropped with it. */
  forget(state: RoomState): void {
    if (state.flush.timer !== null) this.deps.scheduler.clearTimeout(state.flush.timer);
    state.flush.timer = null;
    state.flush.dirty.clear();
  }

  /** The hub closes: no flush may run after it. */
  close(): void {
    for (const state of this.rooms.states.values()) this.forget(state);
  }

  private run(state: RoomState): void {
    const marked = [...state.flush.dirty];
    state.flush.dirty.clear();
    let sent = 0;
    for (const member of marked) {
      if (member.gone) continue;
      const { told } = member;
      // Speaking ends before the audio that carried it; it starts after.
      if (told.speaking && !member.speaking) sent += this.tellSpeaking(state, member);
      if (this.recordMedia(state, member))
        sent += this.rooms.broadcast(state, { type: 'state', participant: viewOf(member) });
      if (!told.speaking && member.speaking) sent += this.tellSpeaking(state, member);
    }
    this.spend(state, sent);
  }

  /** Takes her media as told (statistics follow); true when it differs from what the room heard last. */
  private recordMedia(state: RoomState, member: Member): boolean {
    const { told } = member;
    if (told.audio === member.audio && told.video === member.video && told.screen === member.screen) return false;
    told.audio = member.audio;
    told.video = member.video;
    told.screen = member.screen;
    const media = { audio: member.audio, video: member.video };
    guarded(this.deps.log, 'statistics', () => this.deps.stats.state(state.meetingId, member.participantId, media));
    return true;
  }

  private tellSpeaking(state: RoomState, member: Member): number {
    member.told.speaking = member.speaking;
    const { speaking: now } = member;
    guarded(this.deps.log, 'statistics', () => this.deps.stats.speaking(state.meetingId, member.participantId, now));
    const { participantId, speaking } = member;
    return this.rooms.broadcast(state, { type: 'speaking', participant_id: participantId, speaking }, participantId);
  }

  /** The next flush of the room comes no sooner than `flushMs`, later when this one delivered more than the budget allows. */
  private spend(state: RoomState, sent: number): void {
    const budgetMs = (sent * 1_000) / this.deps.sendsPerSecond;
    state.flush.earliestMs = Math.max(
      state.flush.earliestMs,
      this.rooms.nowMs() + Math.max(this.deps.flushMs, budgetMs),
    );
  }
}
