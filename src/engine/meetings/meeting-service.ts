import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import { Listeners, type EngineLog } from '../listeners.js';
import type { Attendance } from './attendance.js';
import { noHooks, type MeetingHooks } from './meeting-hooks.js';
import type { AsyncPort } from '../async-port.js';
import type { Actor, Meeting, MeetingStore, Participant, Role } from './meeting.js';
import { MeetingHistory } from './meeting-history.js';
import { openInRoom, OpenMeetings, type LiveMeeting, type OpenAtStart } from './open-meetings.js';
import { checkName } from '../waiting/knock-fields.js';
import { randomId } from './random-id.js';
import { checkSubject } from './subject.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { RecordedActor, TimelineEntry, TimelineKind, TimelineSubject } from './timeline.js';

export const defaultEmptyGraceMs = 5 * 60_000;

export interface MeetingOptions {
  /** How long a meeting stays open with nobody present and nobody waiting. */
  readonly emptyGraceMs?: number;
  /** Where a failing listener is logged (the daemon's logger). */
  readonly log: EngineLog;
}

/**
 * Meetings, participants and presence, the timeline and attendance.
 *
 * Public API (for routes and the live connection):
 * - `current(roomId): Meeting | null` — the room's open meeting.
 * - `participant(participantId): Participant | null` — of an OPEN meeting (present or left); null once it ended.
 * - `present(roomId): Participant[]` — who is in the room now, in join order.
 * - `leave(participantId, removedBy?): Promise<Participant | null>` — presence ends; idempotent; null if unknown. A moderator's
 *   removal (`removedBy`, see live/removal.ts) is written with its `participant_removed` entry: her session is spent.
 * - `end(roomId, actor?): Promise<boolean>` — ends the open meeting; false when none. A participant actor must be a moderator.
 * - `roomDeleted(roomId): void` — forget a room's meeting after its rows were cascaded away.
 * - `adopt(roomId): Promise<Meeting | null>` — read the room's open meeting anew (a room taken over from another node).
 * - `list(roomId): Promise<Meeting[]>` — the room's meetings, newest first (from the store).
 * - `timeline(roomId, meetingId?)` and `attendance(roomId, meetingId?)` (Promises)
 *   — of the given meeting, else the open one, else the latest; `meeting_not_found`.
 * - `sweep(): Promise<void>` — ends meetings empty for the grace period; WaitingRoomService.sweep() calls it.
 * - `onEnded(listener): () => void` — told of every meeting that is over: ended (by `end` or
 *   the sweep; `endedAt` set) or dropped with its room (`endedAt` null). Runs after the end is
 *   committed and the meeting left memory. Returns an unsubscribe function.
 * - `onLeft(listener): () => void` — told after a presence ends through `leave` (not when a meeting ends), with the remover.
 * - `promote(participantId): Promise<Participant | null>` — a present participant becomes a moderator
 *   (moderator succession, see moderator-succession.ts): written to the store, recorded in the
 *   timeline, the waiting room told as for a moderator's arrival, all in one transaction taken in the room's
 *   turn (the requests it admits are not decided twice); null when she is not present.
 * - `onRoleChanged(listener): () => void` — told after a promotion is committed.
 * - `rename(participantId, name): Promise<{participant, changed}>` — a present participant's own new name,
 *   checked by the rule of every arrival (checkName: invalid_field); written before it returns, so
 *   a kill -9 keeps it; participant_not_found once she left.
 * - `setSubject(roomId, actor, subject): Promise<{meeting, changed}>` — the open meeting's subject (a
 *   moderator's; checkSubject: 0-128 characters, one line), written with a `subject_changed` entry.
 *   Listeners run after the change is committed: one that throws is logged with the event's name
 *   (`options.log`), the others still run, and the caller that changed the state never sees it.
 *
 * The other public methods are for WaitingRoomService and are not meant for routes.
 */
export class MeetingService {
  private readonly open = new OpenMeetings();
  private readonly closing = new WeakSet<LiveMeeting>();
  private readonly history: MeetingHistory;
  private hooks: MeetingHooks = noHooks;
  private readonly emptyGraceMs: number;
  private readonly endedListeners: Listeners<[meeting: Meeting]>;
  private readonly leftListeners: Listeners<[participant: Participant, removedBy: RecordedActor | null]>;
  private readonly roleListeners: Listeners<[participant: Participant]>;

  constructor(
    private readonly store: AsyncPort<MeetingStore>,
    /** Shared with the waiting room: memory changed here is taken back when its transaction fails. */
    private readonly transactions: AsyncTransactions,
    private readonly clock: Clock,
    options: MeetingOptions,
    /** What the store held open when the service was made (`openAtStart`), read before. */
    loaded: OpenAtStart = { meetings: [], participants: new Map() },
  ) {
    this.endedListeners = new Listeners('meeting ended', options.log);
    this.leftListeners = new Listeners('participant left', options.log);
    this.roleListeners = new Listeners('role changed', options.log);
    this.emptyGraceMs = options.emptyGraceMs ?? defaultEmptyGraceMs;
    this.history = new MeetingHistory(
      store,
      (roomId) => this.current(roomId),
      (meeting) => this.hooks.refusals(meeting),
    );
    this.open.load(loaded, this.nowMs());
  }

  /**
   * The room's open meeting, its participants and their roles as the store holds them now,
   * replacing what memory held of the room (nothing is told: the meeting did not end). For a room
   * taken over from another node (issue 35), before this node serves it; null when none is open.
   */
  async adopt(roomId: string): Promise<Meeting | null> {
    const loaded = await openInRoom(this.store, roomId);
    const stale = this.open.ofRoom(roomId);
    if (stale) {
      this.open.forget(stale);
      this.hooks.forgotten(stale.meeting);
    }
    this.open.load(loaded, this.nowMs());
    return loaded.meetings[0] ?? null;
  }

  attach(hooks: MeetingHooks): void {
    if (this.hooks !== noHooks) throw new Error('MeetingService already has hooks attached');
    this.hooks = hooks;
  }

  onEnded(listener: (meeting: Meeting) => void): () => void {
    return this.endedListeners.add(listener);
  }

  onLeft(listener: (participant: Participant, removedBy: RecordedActor | null) => unknown): () => void {
    return this.leftListeners.add(listener);
  }

  onRoleChanged(listener: (participant: Participant) => void): () => void {
    return this.roleListeners.add(listener);
  }

  current(roomId: string): Meeting | null {
    return this.open.ofRoom(roomId)?.meeting ?? null;
  }

  openMeetings(): Meeting[] {
    return this.open.all().map((live) => live.meeting);
  }

  participant(participantId: string): Participant | null {
    return this.open.ofParticipant(participantId)?.participants.get(participantId) ?? null;
  }

  present(roomId: string): Participant[] {
    return this.open.present(roomId);
  }

  moderatorPresent(meeting: Meeting): boolean {
    return this.present(meeting.roomId).some((p) => p.role === 'moderator');
  }

  /**
   * The room's open meeting, started now if there is none. Its memory changes before the store
   * answers: a second arrival in the same room (inside the same transaction) finds it. Every call
   * is made before the first await (a knock's group write starts a meeting: AsyncQueuedWrite).
   */
  async ensure(roomId: string): Promise<Meeting> {
    const existing = this.open.ofRoom(roomId);
    if (existing) return existing.meeting;
    const meeting: Meeting = {
      meetingId: randomId(),
      roomId,
      startedAt: this.nowIso(),
      endedAt: null,
      waitingDisabled: false,
      subject: '',
    };
    const live: LiveMeeting = { meeting, participants: new Map(), lastChangeMs: this.nowMs() };
    this.open.open(live);
    // A meeting whose row was rolled back must not stay open in memory.
    this.transactions.onRollback(() => this.open.close(live));
    await this.store.insertMeeting(meeting);
    return meeting;
  }

  /** A participant's calls are all made before the first await (an admission's step); a moderator's arrival adds more. */
  async join(
    meeting: Meeting,
    role: Role,
    name: string,
    externalId?: string,
    avatarUrl?: string,
  ): Promise<Participant> {
    const live = this.open.of(meeting);
    const participant: Participant = {
      participantId: randomId(),
      meetingId: meeting.meetingId,
      roomId: meeting.roomId,
      role,
      name,
      joinedAt: this.nowIso(),
      leftAt: null,
      ...(externalId ? { externalId } : {}),
      ...(avatarUrl ? { avatarUrl } : {}),
    };
    this.open.index(live, participant);
    // A participant whose row was rolled back is not present (nor a moderator who lets others in).
    this.transactions.onRollback(() => this.open.unindex(live, participant.participantId));
    live.lastChangeMs = this.nowMs();
    await this.store.insertParticipant(participant);
    if (role === 'moderator') await this.moderatorArrived(live, participant);
    return participant;
  }

  async leave(participantId: string, removedBy: RecordedActor | null = null): Promise<Participant | null> {
    const live = this.open.ofParticipant(participantId);
    const current = live?.participants.get(participantId);
    if (!live || !current) return null;
    if (current.leftAt !== null) return current;
    const left: Participant = { ...current, leftAt: this.nowIso() };
    if (!removedBy) await this.store.updateParticipant(left);
    else
      await this.transactions.atomically(async () => {
        await this.store.updateParticipant(left);
        await this.record(live.meeting, 'participant_removed', removedBy, {
          requestId: null,
          participantId,
          name: left.name,
        });
      });
    live.participants.set(participantId, left);
    live.lastChangeMs = this.nowMs();
    // A promotion the leave caused (ModeratorSuccession) is on disk when the leave returns.
    await this.leftListeners.emitSettled(left, removedBy);
    return left;
  }

  async promote(participantId: string): Promise<Participant | null> {
    const roomId = this.open.ofParticipant(participantId)?.meeting.roomId;
    // Like a moderator's gesture: those it admits (until_moderator) are not being decided meanwhile.
    return roomId ? this.hooks.inTurn(roomId, () => this.promoteNow(participantId)) : null;
  }

  private async promoteNow(participantId: string): Promise<Participant | null> {
    const live = this.open.ofParticipant(participantId);
    const current = live?.participants.get(participantId);
    if (!live || !current || current.leftAt !== null) return null;
    if (current.role === 'moderator') return current;
    const promoted: Participant = { ...current, role: 'moderator' };
    // The role is on disk before anyone is told: a kill -9 right after keeps the new moderator.
    await this.transactions.atomically(async () => {
      live.participants.set(participantId, promoted);
      this.transactions.onRollback(() => {
        if (live.participants.get(participantId) === promoted) live.participants.set(participantId, current);
      });
      await this.store.updateParticipant(promoted);
      await this.record(live.meeting, 'moderator_promoted', null, {
        requestId: null,
        participantId,
        name: promoted.name,
      });
      // Those waiting until a moderator is present enter now, as when one arrives.
      await this.hooks.moderatorArrived(live.meeting, participantId);
    });
    this.roleListeners.emit(promoted);
    return promoted;
  }

  /** The recorded form of `actor`, who must be allowed to moderate `meeting`. */
  moderator(meeting: Meeting, actor: Actor): RecordedActor {
    if (actor.kind === 'api') return { kind: 'api', participantId: null, name: actor.name };
    const participant = this.open.ofRoom(meeting.roomId)?.participants.get(actor.participantId);
    if (!participant || participant.meetingId !== meeting.meetingId || participant.role !== 'moderator') {
      throw new EngineError('not_moderator', 'only a moderator of this meeting may do this');
    }
    return { kind: 'participant', participantId: participant.participantId, name: participant.name };
  }

  async record(
    meeting: Meeting,
    kind: TimelineKind,
    actor: RecordedActor | null,
    subject: TimelineSubject | null,
    count: number | null = null,
    skipped = 0,
  ): Promise<void> {
    const live = this.open.of(meeting);
    const entry = { meetingId: meeting.meetingId, at: this.nowIso(), kind, actor, subject, count };
    live.lastChangeMs = this.nowMs();
    await this.store.appendTimeline(skipped > 0 ? { ...entry, skipped } : entry);
  }

  /**
   * A knock was written (WaitingRequestStore.insertKnock records its timeline entry with the
   * request): the meeting changed, as with any entry `record` writes.
   */
  knocked(meeting: Meeting): void {
    this.open.of(meeting).lastChangeMs = this.nowMs();
  }

  async disableWaiting(meeting: Meeting, actor: RecordedActor): Promise<Meeting> {
    return this.switchWaiting(meeting, actor, true);
  }

  /** The mirror of `disableWaiting`: later arrivals of this meeting wait again (nobody present is touched). */
  async enableWaiting(meeting: Meeting, actor: RecordedActor): Promise<Meeting> {
    return this.switchWaiting(meeting, actor, false);
  }

  private async switchWaiting(meeting: Meeting, actor: RecordedActor, disabled: boolean): Promise<Meeting> {
    const live = this.open.of(meeting);
    const before = live.meeting;
    if (before.waitingDisabled === disabled) return before;
    const switched: Meeting = { ...before, waitingDisabled: disabled };
    live.meeting = switched;
    this.transactions.onRollback(() => {
      if (live.meeting === switched) live.meeting = before;
    });
    await this.store.updateMeeting(switched);
    await this.record(switched, disabled ? 'waiting_room_disabled' : 'waiting_room_enabled', actor, null);
    return switched;
  }

  async rename(participantId: string, name: unknown): Promise<{ participant: Participant; changed: boolean }> {
    const checked = checkName(name);
    const live = this.open.ofParticipant(participantId);
    const current = live?.participants.get(participantId);
    if (!live || !current || current.leftAt !== null)
      throw new EngineError('participant_not_found', 'only a participant present in the meeting can change her name');
    if (current.name === checked) return { participant: current, changed: false };
    const renamed: Participant = { ...current, name: checked };
    await this.transactions.atomically(async () => {
      live.participants.set(participantId, renamed);
      this.transactions.onRollback(() => {
        if (live.participants.get(participantId) === renamed) live.participants.set(participantId, current);
      });
      await this.store.updateParticipant(renamed);
    });
    return { participant: renamed, changed: true };
  }

  async setSubject(roomId: string, actor: Actor, subject: unknown): Promise<{ meeting: Meeting; changed: boolean }> {
    const live = this.open.ofRoom(roomId);
    if (!live) throw new EngineError('meeting_not_found', `room ${roomId} has no meeting in progress`);
    const recorded = this.moderator(live.meeting, actor);
    const checked = checkSubject(subject);
    if (live.meeting.subject === checked) return { meeting: live.meeting, changed: false };
    const before = live.meeting;
    const titled: Meeting = { ...before, subject: checked };
    await this.transactions.atomically(async () => {
      live.meeting = titled;
      this.transactions.onRollback(() => {
        if (live.meeting === titled) live.meeting = before;
      });
      await this.store.updateMeeting(titled);
      await this.record(titled, 'subject_changed', recorded, null);
    });
    return { meeting: titled, changed: true };
  }

  async end(roomId: string, actor: Actor | null = null): Promise<boolean> {
    const live = this.open.ofRoom(roomId);
    if (!live) return false;
    await this.close(live, actor === null ? null : this.moderator(live.meeting, actor));
    return true;
  }

  roomDeleted(roomId: string): void {
    const live = this.open.ofRoom(roomId);
    if (live) this.forget(live);
  }

  async sweep(): Promise<void> {
    await this.transactions.flushGrouped();
    const now = this.nowMs();
    for (const live of this.open.all()) {
      const empty =
        ![...live.participants.values()].some((p) => p.leftAt === null) && this.hooks.openRequests(live.meeting) === 0;
      // Still this room's meeting after the awaits of the ones before it.
      if (empty && now - live.lastChangeMs >= this.emptyGraceMs && this.open.ofRoom(live.meeting.roomId) === live)
        await this.close(live, null);
    }
  }

  async list(roomId: string): Promise<Meeting[]> {
    return this.history.list(roomId);
  }

  async timeline(roomId: string, meetingId?: string): Promise<TimelineEntry[]> {
    return this.history.timeline(roomId, meetingId);
  }

  async attendance(roomId: string, meetingId?: string): Promise<Attendance> {
    return this.history.attendance(roomId, meetingId);
  }

  private async moderatorArrived(live: LiveMeeting, moderator: Participant): Promise<void> {
    await this.record(live.meeting, 'moderator_arrived', null, {
      requestId: null,
      participantId: moderator.participantId,
      name: moderator.name,
    });
    await this.hooks.moderatorArrived(live.meeting, moderator.participantId);
  }

  private async close(live: LiveMeeting, actor: RecordedActor | null): Promise<void> {
    // An end and the sweep at once: the meeting is closed once.
    if (this.closing.has(live)) return;
    this.closing.add(live);
    const at = this.nowIso();
    await this.transactions
      .atomically(async () => {
        for (const participant of [...live.participants.values()]) {
          if (participant.leftAt === null) await this.store.updateParticipant({ ...participant, leftAt: at });
        }
        await this.hooks.ending(live.meeting, at);
        await this.store.appendTimeline({
          meetingId: live.meeting.meetingId,
          at,
          kind: 'meeting_ended',
          actor,
          subject: null,
          count: null,
        });
        await this.store.updateMeeting({ ...live.meeting, endedAt: at });
      })
      .catch((error: unknown) => {
        this.closing.delete(live);
        throw error;
      });
    // Ended by another gesture during the awaits: told once.
    if (this.open.ofRoom(live.meeting.roomId) === live) this.forget(live, at);
  }

  private forget(live: LiveMeeting, endedAt: string | null = null): void {
    this.open.forget(live);
    this.hooks.forgotten(live.meeting);
    this.endedListeners.emit({ ...live.meeting, endedAt });
  }

  private nowMs(): number {
    return this.clock.now().getTime();
  }

  private nowIso(): string {
    return this.clock.now().toISOString();
  }
}
