/**
 * Admission of arrivals and the waiting-request state machine.
 *
 *   const meetings = new MeetingService(meetingStore, clock, { emptyGraceMs? });
 *   const waiting = new WaitingRoomService({ rooms: roomStore, meetings, store: requestStore, clock, policy }, options?);
 *   setInterval(() => waiting.sweep(), 1000);   // expiry, closed windows, empty meetings, limiter memory
 *
 * Construct MeetingService first, then WaitingRoomService (it attaches itself to the meetings and
 * reloads open requests). Both reload open state from the store, so a restart answers polls as before.
 *
 * Arrivals (errors are EngineError with `code`; `field` is set for the invalid_field / access_code ones):
 * - `start(arrival): StartResult` — `{status:'joined', participant}` (a participant was created:
 *   sign a session for it) or `{status:'knock'}` (nothing was created; the client must knock).
 * - `knock(arrival): Promise<KnockResult>` — `{status:'joined', participant}` when no waiting is needed, else
 *   `{status:'waiting', requestId, secret}`: set `secret` as the request cookie. Knocking again with
 *   a cookie whose request is still waiting returns that same request (and the same secret).
 *   A new request is written with the other knocks of the same turn in one transaction (group
 *   commit, see MeetingService.commitGrouped) and resolves only once that is durable; it reaches
 *   memory, polls and the moderators' list only then. A failed commit rejects every knock of the
 *   group with the store's error and leaves nothing of them in memory.
 *   Errors of both: room_not_found; invalid_field (name 1-64, note 0-280); access_code_invalid
 *   (nothing created); too_many_attempts (TooManyAttemptsError, `.retryAfterSecs`); barred (the
 *   cookie's request was barred in this meeting); knock only: waiting_room_full (1,000 waiting).
 * - `poll(roomId, secret): PollResult | null` — null when the cookie names no request of this room's
 *   open meeting (answer 404). Served from memory, no store read. Admitted answers carry the participant
 *   while present: once she left, the admission is spent (null), so a kept cookie mints no session.
 * - `withdraw(roomId, secret): boolean` — the person leaves; a waiting request is withdrawn at once.
 * - `leaving(roomId, secret): boolean` — her page is going away (pagehide beacon): moderators stop
 *   seeing the request at once and it is withdrawn after `leaveGraceMs` (2 s) unless the same
 *   browser polls again, which is what a reload does, so a reload keeps her place.
 *
 * Moderator gestures (actor: a moderator participant of the open meeting, or `{kind:'api', name}`;
 * a participant who is not a moderator of the open meeting gets not_moderator):
 * - `list(roomId, actor): WaitingListItem[]` — waiting requests in knock order; [] without a meeting.
 * - `admit(roomId, requestId, actor): {admitted}` — 1, or 0 if it was admitted already;
 *   request_not_found, request_not_waiting.
 * - `admitAll(roomId, actor): {admitted}`.
 * - `refuse(roomId, requestId, bar, actor): void` — refused (may knock again) or barred for the
 *   meeting; request_not_found, request_not_waiting.
 * - `disableWaitingRoom(roomId, actor): {admitted}` — everyone waiting enters, later arrivals of this
 *   meeting do not wait; waiting_room_forced under a forced policy; meeting_not_found without a meeting.
 * - `enableWaitingRoom(roomId, actor): {enabled}` — the mirror: later arrivals of this meeting wait
 *   again as the room's scope says; nobody present is moved out. waiting_room_unavailable when the
 *   room has no waiting room to turn on (its scope in force is `off`: the room's or the instance's
 *   choice, or a sub-group); meeting_not_found without a meeting.
 * - `switchState(roomId): {enabled, switchable}` — what a moderator's toggle shows: whether later
 *   arrivals would wait (as the scope allows), and whether a moderator may turn it on or off.
 *
 * `onWaitingRoomSwitched(listener)` is told `(roomId, meetingId)` after either switch is committed
 * (the live connection tells the moderators' pages). Returns an unsubscribe function.
 * A listener that throws is logged with the event's name (`deps.log`); the others still run and the
 * gesture that changed the state never sees it.
 *
 * `onWaitingListChange(listener)` tells the live connection what changed in a room's list, as the
 * moderators see it: requests added and removed (`WaitingListChange`), or `reset` when the meeting's
 * list is gone. Returns an unsubscribe function. Listeners run synchronously once memory holds the
 * change (several times in one turn for a burst); they should only collect and schedule a push. The change is told where it happens, so an observer never re-reads the whole list
 * to find it: with 1,000 waiting, a knock is one item, not 1,000.
 */
import type { Clock } from '../clock.js';
import { Listeners, type EngineLog } from '../listeners.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { entersAsModerator } from '../meetings/moderator-succession.js';
import type { Actor, Meeting, Participant } from '../meetings/meeting.js';
import type { RecordedActor, TimelineSubject } from '../meetings/timeline.js';
import type { Room, RoomStore } from '../rooms/room.js';
import type { WaitingRoomPolicy } from '../rooms/waiting-room-policy.js';
import { effectiveMode, effectiveScope, isModerator, mustWait, needsAccessCode, type Arrival, type JoinClaims } from './admission.js';
import { ArrivalScreening, type ArrivalScreeningOptions } from './arrival-screening.js';
import { AttemptLimiter, TooManyAttemptsError, type AttemptLimits } from './attempt-limiter.js';
import { checkName, checkNote } from './knock-fields.js';
import { newRequestId } from './request-id.js';
import { hashSecret, newSecret, plausibleSecret } from './request-secret.js';
import { RoomQueue, type LiveRequest } from './room-queue.js';
import type { RequestState, WaitingRequest, WaitingRequestStore } from './waiting-request.js';

export interface WaitingRoomDeps {
  readonly rooms: Pick<RoomStore, 'get'>;
  readonly meetings: MeetingService;
  readonly store: WaitingRequestStore;
  readonly clock: Clock;
  readonly policy: WaitingRoomPolicy;
  /** Where a failing listener is logged (the daemon's logger). */
  readonly log: EngineLog;
}

/** The access code's limits (`codeAttempts`, `codeHashConcurrency`) are ArrivalScreening's. */
export interface WaitingRoomOptions extends ArrivalScreeningOptions {
  /** How often the waiting client polls (2 s). */
  readonly pollIntervalMs?: number;
  /** Polls missed before a request counts as a closed window (3, so 6 s). */
  readonly missedPolls?: number;
  /** When set, how long without a poll a request counts as a closed window, instead of pollIntervalMs × missedPolls (SERVICE_WAITING_CLOSED_WINDOW_SECS). */
  readonly closedWindowMs?: number;
  readonly maxOpenRequests?: number;
  /** New requests one client address may make in one room per window. */
  readonly knocksPerClient?: AttemptLimits;
  /** Requests one client address may have waiting (or being written) in one room at once. */
  readonly maxOpenPerClient?: number;
}

export type EntryResult = { readonly status: 'joined'; readonly participant: Participant };
export type StartResult = EntryResult | { readonly status: 'knock' };
export type KnockResult = EntryResult | { readonly status: 'waiting'; readonly requestId: string; readonly secret: string };

export type PollResult =
  | { readonly status: 'waiting' }
  | { readonly status: 'admitted'; readonly participant: Participant }
  | { readonly status: 'refused'; readonly retry: true }
  | { readonly status: 'expired'; readonly retry: true }
  | { readonly status: 'barred' };

/** Shaped as the moderators' list is sent. */
export interface WaitingListItem {
  readonly request_id: string;
  readonly name: string;
  readonly note: string;
  readonly knocked_at: string;
}

/**
 * One change of a room's waiting list as moderators see it (`list`). Applying `removed`, then
 * `added`, to the list before the change gives the list after it; both are idempotent (an id
 * removed that is not there, or an item added that is), so a change that reaches an observer who
 * has read the list since is harmless.
 */
export interface WaitingListChange {
  readonly meetingId: string;
  /** Requests moderators now see: a knock was committed, or a page that said it was leaving polled again. */
  readonly added: readonly WaitingListItem[];
  /** Request ids moderators no longer see: admitted, refused, barred, expired, withdrawn, closed, or leaving. */
  readonly removed: readonly string[];
  /** The meeting's list is gone (the meeting was forgotten): read it again rather than apply a change. */
  readonly reset: boolean;
}

export type WaitingListListener = (roomId: string, change: WaitingListChange) => void;

export type SwitchListener = (roomId: string, meetingId: string) => void;

/** The moderators' waiting-room toggle. */
export interface SwitchState {
  /** Later arrivals of the open meeting wait as the room's scope says. */
  readonly enabled: boolean;
  /** A moderator may turn it on or off here (not under a forced policy, not without a waiting room). */
  readonly switchable: boolean;
}

export interface AdmitResult {
  readonly admitted: number;
}

interface Screened {
  readonly room: Room;
  readonly name: string;
  readonly note: string;
  readonly claims: JoinClaims | null | undefined;
  /** Her participant in the parent meeting, when she moves into a sub-group. */
  readonly member: Participant | null;
  /** The request of the open meeting her cookie names, if any. */
  readonly known: LiveRequest | undefined;
  readonly wait: boolean;
}

/** A knock queued for the next group commit. */
interface PendingKnock {
  /** Its room was deleted before the commit. */
  cancelled: boolean;
  readonly clientSlot: string;
}

interface Gesture {
  readonly meeting: Meeting;
  readonly queue: RoomQueue;
  readonly actor: RecordedActor;
}

/**
 * Per-client limits. A whole class shares a school's address, so one address may hold 100
 * waiting requests in a room (a class of 30 three times over, or a lecture hall arriving before
 * its lecturer) and make 120 new ones a minute (everyone knocking at the bell, some twice);
 * a single address can then fill at most a tenth of the room's 1,000 places.
 */
export const clientDefaults = { knocksPerClient: { limit: 120, windowMs: 60_000 }, maxOpenPerClient: 100, retryAfterSecs: 30 } as const;

export const waitingDefaults = { pollIntervalMs: 2000, missedPolls: 3, maxOpenRequests: 1000, leaveGraceMs: 2000 } as const;

export class WaitingRoomService {
  private readonly queues = new Map<string, RoomQueue>();
  /** Knocks queued for the group commit, by room: they hold a slot, but nobody sees them yet. */
  private readonly pending = new Map<string, Set<PendingKnock>>();
  private readonly screening: ArrivalScreening;
  private readonly knockLimiter: AttemptLimiter;
  /** Waiting and uncommitted requests per room and client address (memory only: not reloaded after a restart). */
  private readonly clientSlots = new Map<string, number>();
  private readonly maxOpenPerClient: number;
  private readonly clientRetryAfterSecs = clientDefaults.retryAfterSecs;
  private readonly listeners: Listeners<Parameters<WaitingListListener>>;
  private readonly switchListeners: Listeners<Parameters<SwitchListener>>;
  private readonly staleAfterMs: number;
  private readonly maxOpenRequests: number;

  constructor(
    private readonly deps: WaitingRoomDeps,
    options: WaitingRoomOptions = {},
  ) {
    this.listeners = new Listeners('waiting list changed', deps.log);
    this.switchListeners = new Listeners('waiting room switched', deps.log);
    this.staleAfterMs =
      options.closedWindowMs ?? (options.pollIntervalMs ?? waitingDefaults.pollIntervalMs) * (options.missedPolls ?? waitingDefaults.missedPolls);
    this.maxOpenRequests = options.maxOpenRequests ?? waitingDefaults.maxOpenRequests;
    this.screening = new ArrivalScreening(deps.meetings, deps.clock, options);
    this.knockLimiter = new AttemptLimiter(deps.clock, options.knocksPerClient ?? clientDefaults.knocksPerClient, 'too_many_knocks');
    this.maxOpenPerClient = options.maxOpenPerClient ?? clientDefaults.maxOpenPerClient;
    // Last-seen times start afresh: the clients could not poll while the service was down.
    const now = this.nowMs();
    for (const meeting of deps.meetings.openMeetings()) {
      const queue = new RoomQueue(meeting.meetingId);
      for (const request of deps.store.pollableRequests(meeting.meetingId)) {
        queue.add({ request, expiresAtMs: Date.parse(request.expiresAt), lastSeenMs: now });
      }
      this.queues.set(meeting.roomId, queue);
    }
    deps.meetings.attach({
      openRequests: (meeting) => this.openIn(meeting.roomId, this.queueOf(meeting)),
      moderatorArrived: (meeting) => this.moderatorArrived(meeting),
      ending: (meeting, at) => this.ending(meeting, at),
      forgotten: (meeting) => this.forgotten(meeting),
      refusals: (meeting) =>
        deps.store.refusedRequests(meeting.meetingId).map((r) => ({
          requestId: r.requestId,
          name: r.name,
          refusedAt: r.decidedAt ?? r.knockedAt,
          barred: r.state === 'barred',
        })),
    });
  }

  start(arrival: Arrival): Promise<StartResult> {
    return this.screen(arrival, false, (screened) => (screened.wait ? { status: 'knock' } : this.enter(screened)));
  }

  knock(arrival: Arrival): Promise<KnockResult> {
    return this.screen(arrival, true, (screened) => this.queueKnock(arrival, screened));
  }

  /** Her request, queued for the group commit in this very turn (no await before it). */
  private async queueKnock(arrival: Arrival, screened: Screened): Promise<KnockResult> {
    if (!screened.wait) return this.enter(screened);
    const roomId = screened.room.roomId;
    const current = this.deps.meetings.current(roomId);
    const existingQueue = current ? this.queueOf(current) : undefined;
    const previous = screened.known;
    if (previous?.request.state === 'waiting' && typeof arrival.secret === 'string') {
      previous.lastSeenMs = this.nowMs();
      return { status: 'waiting', requestId: previous.request.requestId, secret: arrival.secret };
    }
    const clientSlot = `${roomId}\n${arrival.clientKey}`;
    this.knockLimiter.check(clientSlot);
    if ((this.clientSlots.get(clientSlot) ?? 0) >= this.maxOpenPerClient) throw new TooManyAttemptsError(this.clientRetryAfterSecs, 'too_many_waiting');
    // At the cap, first free the slots of requests that are due to expire or close anyway.
    if (current && existingQueue && this.openIn(roomId, existingQueue) >= this.maxOpenRequests) this.settle(current, existingQueue);
    if (this.openIn(roomId, existingQueue) >= this.maxOpenRequests) {
      throw new EngineError('waiting_room_full', 'too many people are waiting in this room; try again later');
    }
    this.knockLimiter.record(clientSlot);
    const secret = newSecret();
    const timeoutMs = screened.room.waitingRoomTimeoutSecs * 1000;
    const pending: PendingKnock = { cancelled: false, clientSlot };
    this.track(roomId, pending);
    // Written with the other knocks of this turn in one commit; she is told "waiting" only once
    // it is durable, and moderators see her only then (memory is updated after the commit).
    const written = await this.deps.meetings.commitGrouped({
      write: () => {
        if (pending.cancelled) return null;
        const meeting = this.deps.meetings.ensure(roomId);
        // The knock's time is when it is written: the request and its timeline entry (which the
        // store derives from the request) share it, as the entry used to take the time of its write.
        const now = this.nowMs();
        const knockedAt = new Date(now).toISOString();
        const expiresAtMs = now + timeoutMs;
        const request: WaitingRequest = {
          requestId: newRequestId(now),
          meetingId: meeting.meetingId,
          secretHash: hashSecret(secret),
          name: screened.name,
          note: screened.note,
          state: 'waiting',
          knockedAt,
          expiresAt: new Date(expiresAtMs).toISOString(),
          decidedAt: null,
          participantId: null,
        };
        this.deps.store.insertKnock(request);
        this.deps.meetings.knocked(meeting);
        return { meeting, entry: { request, expiresAtMs, lastSeenMs: now, cookie: secret, clientSlot } satisfies LiveRequest };
      },
      committed: (done) => {
        this.untrack(roomId, pending);
        if (!done) return this.releaseSlot(clientSlot);
        const queue = this.queueFor(done.meeting);
        // A refused or expired request this browser knocked with before is replaced: its cookie is overwritten.
        if (previous) queue.remove(previous);
        queue.add(done.entry);
        this.notify(roomId, done.meeting, [done.entry.request], []);
      },
      failed: () => {
        this.untrack(roomId, pending);
        this.releaseSlot(clientSlot);
      },
    });
    if (!written) throw new EngineError('room_not_found', `no room has room_id ${roomId}`);
    return { status: 'waiting', requestId: written.entry.request.requestId, secret };
  }

  /**
   * The room was deleted: knocks queued for it are not written (their meeting row could not
   * exist any more) and are answered room_not_found. The composition root calls this.
   */
  roomDeleted(roomId: string): void {
    for (const pending of this.pending.get(roomId) ?? []) pending.cancelled = true;
  }

  poll(roomId: string, secret: unknown): PollResult | null {
    const found = this.findBySecret(roomId, secret);
    if (!found) return null;
    const { meeting, queue, live } = found;
    const now = this.nowMs();
    live.lastSeenMs = now;
    if (live.leavingSinceMs !== undefined) {
      delete live.leavingSinceMs;
      // Her page came back (a reload): moderators see her again.
      if (live.request.state === 'waiting') this.notify(roomId, meeting, [live.request], []);
    }
    if (live.request.state === 'waiting' && now >= live.expiresAtMs) {
      this.expire(meeting, queue, live);
      this.notify(roomId, meeting, [], [live.request.requestId]);
    }
    return this.answer(live);
  }

  withdraw(roomId: string, secret: unknown): boolean {
    const found = this.findBySecret(roomId, secret);
    if (!found) return false;
    const { meeting, queue, live } = found;
    const state = live.request.state;
    if (state === 'waiting') {
      this.close(meeting, queue, live, 'withdrawn');
      this.notify(roomId, meeting, [], [live.request.requestId]);
      return true;
    }
    // A bar must outlive the page, and an admitted person's page may beacon a leave on its way into the meeting.
    if (state === 'refused' || state === 'expired') queue.remove(live);
    return state !== 'barred' && state !== 'admitted';
  }

  leaving(roomId: string, secret: unknown): boolean {
    const found = this.findBySecret(roomId, secret);
    if (!found || found.live.request.state !== 'waiting') return this.withdraw(roomId, secret);
    found.live.leavingSinceMs = this.nowMs();
    this.notify(roomId, found.meeting, [], [found.live.request.requestId]);
    return true;
  }

  list(roomId: string, actor: Actor): WaitingListItem[] {
    const gesture = this.gesture(roomId, actor);
    if (!gesture) return [];
    this.settle(gesture.meeting, gesture.queue);
    const present = [...gesture.queue.waiting.values()].filter((live) => live.leavingSinceMs === undefined);
    return present.map(({ request }) => itemOf(request));
  }

  admit(roomId: string, requestId: string, actor: Actor): AdmitResult {
    const gesture = this.gesture(roomId, actor);
    const live = this.decidable(gesture, requestId);
    if (!gesture || live === null) return { admitted: 0 };
    this.deps.meetings.atomically(() => {
      const participant = this.admitOne(gesture.meeting, gesture.queue, live);
      this.deps.meetings.record(gesture.meeting, 'admit', gesture.actor, { ...subjectOf(live.request), participantId: participant.participantId });
    });
    this.notify(roomId, gesture.meeting, [], [live.request.requestId]);
    return { admitted: 1 };
  }

  admitAll(roomId: string, actor: Actor): AdmitResult {
    const gesture = this.gesture(roomId, actor);
    if (!gesture) return { admitted: 0 };
    this.settle(gesture.meeting, gesture.queue);
    return { admitted: this.admitEveryone(gesture.meeting, gesture.queue, gesture.actor) };
  }

  refuse(roomId: string, requestId: string, bar: boolean, actor: Actor): void {
    const gesture = this.gesture(roomId, actor);
    const live = this.decidable(gesture, requestId);
    if (!gesture || live === null) throw new EngineError('request_not_waiting', 'this request was admitted already');
    const state: RequestState = bar ? 'barred' : 'refused';
    this.deps.meetings.atomically(() => {
      this.decide(gesture.queue, live, { state });
      this.deps.meetings.record(gesture.meeting, bar ? 'bar' : 'refuse', gesture.actor, subjectOf(live.request));
    });
    this.notify(roomId, gesture.meeting, [], [live.request.requestId]);
  }

  disableWaitingRoom(roomId: string, actor: Actor): AdmitResult {
    if (this.deps.policy.waitingRoom === 'forced') {
      throw new EngineError('waiting_room_forced', 'this instance forces the waiting room; it cannot be disabled');
    }
    const gesture = this.gesture(roomId, actor);
    if (!gesture) throw new EngineError('meeting_not_found', `room ${roomId} has no meeting in progress`);
    this.settle(gesture.meeting, gesture.queue);
    const wasDisabled = gesture.meeting.waitingDisabled;
    const admitted = this.deps.meetings.atomically(() => {
      const meeting = this.deps.meetings.disableWaiting(gesture.meeting, gesture.actor);
      return this.admitEveryone(meeting, gesture.queue, gesture.actor);
    });
    if (!wasDisabled) this.switched(roomId, gesture.meeting);
    return { admitted };
  }

  enableWaitingRoom(roomId: string, actor: Actor): { enabled: true } {
    const gesture = this.gesture(roomId, actor);
    if (!gesture) throw new EngineError('meeting_not_found', `room ${roomId} has no meeting in progress`);
    // The moderator is checked first: who may not moderate learns nothing of the room's settings.
    const room = this.deps.rooms.get(roomId);
    if (!room || !this.hasWaitingRoom(room)) {
      throw new EngineError('waiting_room_unavailable', 'this room has no waiting room to turn on: its waiting room setting is off');
    }
    if (!gesture.meeting.waitingDisabled) return { enabled: true };
    this.deps.meetings.atomically(() => this.deps.meetings.enableWaiting(gesture.meeting, gesture.actor));
    this.switched(roomId, gesture.meeting);
    return { enabled: true };
  }

  switchState(roomId: string): SwitchState {
    const room = this.deps.rooms.get(roomId);
    if (!room || !this.hasWaitingRoom(room)) return { enabled: false, switchable: false };
    if (this.deps.policy.waitingRoom === 'forced') return { enabled: true, switchable: false };
    return { enabled: !(this.deps.meetings.current(roomId)?.waitingDisabled ?? false), switchable: true };
  }

  onWaitingRoomSwitched(listener: SwitchListener): () => void {
    return this.switchListeners.add(listener);
  }

  /** Sub-groups never wait; otherwise the scope in force (the room's, or the instance's policy) decides. */
  private hasWaitingRoom(room: Room): boolean {
    return room.parentRoomId === null && effectiveScope(this.deps.policy, room) !== 'off';
  }

  private switched(roomId: string, meeting: Meeting): void {
    this.switchListeners.emit(roomId, meeting.meetingId);
  }

  /** Expiry, closed windows, then empty meetings. Call about once a second. */
  sweep(): void {
    // Knocks queued before the sweep are on disk and in memory before it judges anything.
    this.deps.meetings.flushGrouped();
    for (const meeting of this.deps.meetings.openMeetings()) {
      const queue = this.queueOf(meeting);
      if (queue) this.settle(meeting, queue);
    }
    this.screening.prune();
    this.knockLimiter.prune();
    this.deps.meetings.sweep();
  }

  onWaitingListChange(listener: WaitingListListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Entry, validation, then the access code, then a bar, then the admission decision; nothing
   * is written. Only a code makes it wait (for scrypt off the loop); then everything is read
   * again, since the meeting may have changed meanwhile.
   */
  private screen<T>(arrival: Arrival, knocking: boolean, next: (screened: Screened) => T | Promise<T>): Promise<T> {
    try {
      // Synchronous unless a code must be hashed: knocks of one turn must share its group commit.
      const first = this.screenNow(arrival, knocking, false);
      if (first !== 'code') return Promise.resolve(next(first));
      return this.screening
        .checkAccessCode(this.deps.rooms.get(arrival.roomId)!, arrival)
        .then(() => next(this.screenNow(arrival, knocking, true) as Screened));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private screenNow(arrival: Arrival, knocking: boolean, codePassed: boolean): Screened | 'code' {
    const room = this.deps.rooms.get(arrival.roomId);
    // A closed room (its meeting ended for good) looks like no room at all.
    if (!room || room.entry === 'closed') throw new EngineError('room_not_found', `no room has room_id ${arrival.roomId}`);
    const claims = arrival.claims;
    const subgroup = room.parentRoomId !== null;
    const member = subgroup ? this.screening.parentMember(room, arrival) : null;
    const name = checkName(member?.name ?? claims?.name ?? arrival.name);
    const note = knocking ? checkNote(arrival.note) : '';
    const meeting = this.deps.meetings.current(room.roomId);
    const queue = meeting ? this.queueOf(meeting) : undefined;
    const known = queue && plausibleSecret(arrival.secret) ? queue.bySecret(arrival.secret) : undefined;
    if (room.entry === 'token' && !claims && !known) {
      throw new EngineError('guest_denied', 'this meeting admits only people its platform invited; use the link you were given');
    }
    // Who comes from the parent's meeting passed its code already; so did a browser whose
    // cookie names a request of this meeting, since that cookie is only given after the code.
    if (!member && !known && !codePassed && needsAccessCode(room, claims)) return 'code';
    if (known?.request.state === 'barred' && !isModerator(claims)) {
      throw new EngineError('barred', 'you may not join this meeting');
    }
    const moderatorPresent = meeting ? this.deps.meetings.moderatorPresent(meeting) : false;
    const wait = mustWait({
      scope: effectiveScope(this.deps.policy, room),
      mode: effectiveMode(this.deps.policy, room),
      claims,
      subgroup,
      waitingDisabled: (meeting?.waitingDisabled ?? false) && this.deps.policy.waitingRoom !== 'forced',
      moderatorPresent,
      entersAsModerator: entersAsModerator(room, moderatorPresent),
    });
    return { room, name, note, claims, member, known, wait };
  }

  private enter(screened: Screened): EntryResult {
    const participant = this.deps.meetings.atomically(() => {
      const meeting = this.deps.meetings.ensure(screened.room.roomId);
      // Moved in from the parent meeting: she keeps the role she has there. In a room never left
      // without a moderator, the role is decided here, in the same synchronous stretch as the
      // join: of two arrivals at once, the first to get here is the moderator, the second is not.
      const role =
        screened.member?.role ??
        (entersAsModerator(screened.room, this.deps.meetings.moderatorPresent(meeting)) ? 'moderator' : (screened.claims?.role ?? 'participant'));
      return this.deps.meetings.join(meeting, role, screened.name, screened.claims?.uid);
    });
    return { status: 'joined', participant };
  }

  private findBySecret(roomId: string, secret: unknown): { meeting: Meeting; queue: RoomQueue; live: LiveRequest } | null {
    if (!plausibleSecret(secret)) return null;
    const meeting = this.deps.meetings.current(roomId);
    const queue = meeting ? this.queueOf(meeting) : undefined;
    const live = queue?.bySecret(secret);
    return meeting && queue && live ? { meeting, queue, live } : null;
  }

  private answer(live: LiveRequest): PollResult | null {
    switch (live.request.state) {
      case 'waiting':
        return { status: 'waiting' };
      case 'admitted': {
        const participant = live.request.participantId ? this.deps.meetings.participant(live.request.participantId) : null;
        // Leaving ends what the admission gave: the page arrives again instead of getting a dead session.
        return participant && participant.leftAt === null ? { status: 'admitted', participant } : null;
      }
      case 'refused':
        return { status: 'refused', retry: true };
      case 'expired':
        return { status: 'expired', retry: true };
      case 'barred':
        return { status: 'barred' };
      default:
        return null;
    }
  }

  /** The meeting, queue and recorded actor of a gesture; null when an integration acts on a room with no meeting. */
  private gesture(roomId: string, actor: Actor): Gesture | null {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) {
      if (actor.kind === 'participant') throw new EngineError('not_moderator', 'only a moderator of this meeting may do this');
      return null;
    }
    const recorded = this.deps.meetings.moderator(meeting, actor);
    return { meeting, queue: this.queueFor(meeting), actor: recorded };
  }

  /** The waiting request a moderator decides on; null when it was admitted already (a second click). */
  private decidable(gesture: Gesture | null, requestId: string): LiveRequest | null {
    if (!gesture) throw new EngineError('request_not_found', 'no such request is open in this room');
    this.settle(gesture.meeting, gesture.queue);
    const live = gesture.queue.byRequestId(requestId);
    if (!live) throw new EngineError('request_not_found', 'no such request is open in this room');
    if (live.request.state === 'admitted') return null;
    if (live.request.state !== 'waiting') {
      throw new EngineError('request_not_waiting', `this request is ${live.request.state} already`);
    }
    return live;
  }

  private admitOne(meeting: Meeting, queue: RoomQueue, live: LiveRequest): Participant {
    const participant = this.deps.meetings.join(meeting, 'participant', live.request.name);
    this.decide(queue, live, { state: 'admitted', participantId: participant.participantId });
    return participant;
  }

  private admitEveryone(meeting: Meeting, queue: RoomQueue, actor: RecordedActor | null): number {
    const waiting = [...queue.waiting.values()];
    if (waiting.length === 0) return 0;
    this.deps.meetings.atomically(() => {
      for (const live of waiting) this.admitOne(meeting, queue, live);
      this.deps.meetings.record(meeting, 'admit_all', actor, null, waiting.length);
    });
    this.notify(
      meeting.roomId,
      meeting,
      [],
      waiting.map((live) => live.request.requestId),
    );
    return waiting.length;
  }

  /** Timeouts and closed windows that are due in one room. */
  private settle(meeting: Meeting, queue: RoomQueue): void {
    const now = this.nowMs();
    const due = (live: LiveRequest) =>
      now >= live.expiresAtMs ||
      (live.leavingSinceMs !== undefined && now - live.leavingSinceMs >= waitingDefaults.leaveGraceMs) ||
      now - live.lastSeenMs >= this.staleAfterMs;
    const settled = [...queue.waiting.values()].filter(due);
    if (settled.length === 0) return;
    // One durable commit for the whole batch: closing thousands of windows one fsync each
    // would starve the very polls that keep the others open.
    this.deps.meetings.atomically(() => {
      for (const live of settled) {
        if (now >= live.expiresAtMs) this.expire(meeting, queue, live);
        else if (live.leavingSinceMs !== undefined && now - live.leavingSinceMs >= waitingDefaults.leaveGraceMs) this.close(meeting, queue, live, 'withdrawn');
        else this.close(meeting, queue, live, 'window_closed');
      }
    });
    this.notify(
      meeting.roomId,
      meeting,
      [],
      settled.map((live) => live.request.requestId),
    );
  }

  private expire(meeting: Meeting, queue: RoomQueue, live: LiveRequest): void {
    this.deps.meetings.atomically(() => {
      this.decide(queue, live, { state: 'expired' });
      this.deps.meetings.record(meeting, 'expire', null, subjectOf(live.request));
    });
  }

  /** The person is gone: the request leaves memory at once. */
  private close(meeting: Meeting, queue: RoomQueue, live: LiveRequest, state: 'withdrawn' | 'window_closed'): void {
    this.deps.meetings.atomically(() => {
      this.decide(queue, live, { state });
      this.deps.meetings.record(meeting, state === 'withdrawn' ? 'withdraw' : 'window_closed', null, subjectOf(live.request));
    });
    queue.remove(live);
  }

  private decide(queue: RoomQueue, live: LiveRequest, change: { state: RequestState; participantId?: string }): void {
    if (live.request.state === 'waiting' && change.state !== 'waiting') this.releaseSlot(live.clientSlot);
    const request: WaitingRequest = {
      ...live.request,
      state: change.state,
      decidedAt: this.nowIso(),
      participantId: change.participantId ?? live.request.participantId,
    };
    this.deps.store.updateRequest(request);
    queue.replace(live, request);
  }

  private moderatorArrived(meeting: Meeting): void {
    const room = this.deps.rooms.get(meeting.roomId);
    const queue = this.queueOf(meeting);
    if (!room || !queue || effectiveMode(this.deps.policy, room) !== 'until_moderator') return;
    this.settle(meeting, queue);
    this.admitEveryone(meeting, queue, null);
  }

  /** Requests still waiting when their meeting ends will never be answered: they expire with it. */
  private ending(meeting: Meeting, at: string): void {
    const queue = this.queueOf(meeting);
    if (!queue) return;
    for (const live of [...queue.waiting.values()]) {
      this.releaseSlot(live.clientSlot);
      this.deps.store.updateRequest({ ...live.request, state: 'expired', decidedAt: at });
      this.deps.meetings.record(meeting, 'expire', null, subjectOf(live.request));
    }
  }

  /** Bars and all other requests belong to the meeting and go with it. */
  private forgotten(meeting: Meeting): void {
    if (this.queueOf(meeting)) {
      this.queues.delete(meeting.roomId);
      this.tell(meeting.roomId, { meetingId: meeting.meetingId, added: [], removed: [], reset: true });
    }
  }

  /** Requests that hold a slot in a room: waiting ones and knocks not committed yet. */
  private openIn(roomId: string, queue: RoomQueue | undefined): number {
    return (queue?.waiting.size ?? 0) + (this.pending.get(roomId)?.size ?? 0);
  }

  private track(roomId: string, pending: PendingKnock): void {
    const set = this.pending.get(roomId);
    if (set) set.add(pending);
    else this.pending.set(roomId, new Set([pending]));
    this.clientSlots.set(pending.clientSlot, (this.clientSlots.get(pending.clientSlot) ?? 0) + 1);
  }

  /** A request of this client stopped waiting (or was never written): its slot is free again. */
  private releaseSlot(clientSlot: string | undefined): void {
    if (clientSlot === undefined) return;
    const held = (this.clientSlots.get(clientSlot) ?? 0) - 1;
    if (held > 0) this.clientSlots.set(clientSlot, held);
    else this.clientSlots.delete(clientSlot);
  }

  private untrack(roomId: string, pending: PendingKnock): void {
    const set = this.pending.get(roomId);
    if (set?.delete(pending) && set.size === 0) this.pending.delete(roomId);
  }

  private queueOf(meeting: Meeting): RoomQueue | undefined {
    const queue = this.queues.get(meeting.roomId);
    return queue?.meetingId === meeting.meetingId ? queue : undefined;
  }

  private queueFor(meeting: Meeting): RoomQueue {
    const existing = this.queueOf(meeting);
    if (existing) return existing;
    const queue = new RoomQueue(meeting.meetingId);
    this.queues.set(meeting.roomId, queue);
    return queue;
  }

  /** Tells the listeners what moderators now see and no longer see; `added` are waiting requests in knock order. */
  private notify(roomId: string, meeting: Meeting, added: readonly WaitingRequest[], removed: readonly string[]): void {
    if (this.listeners.size === 0 || (added.length === 0 && removed.length === 0)) return;
    this.tell(roomId, { meetingId: meeting.meetingId, added: added.map(itemOf), removed, reset: false });
  }

  private tell(roomId: string, change: WaitingListChange): void {
    this.listeners.emit(roomId, change);
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** A request as the moderators' list shows it. */
function itemOf(request: WaitingRequest): WaitingListItem {
  return { request_id: request.requestId, name: request.name, note: request.note, knocked_at: request.knockedAt };
}

function subjectOf(request: WaitingRequest): TimelineSubject {
  return { requestId: request.requestId, participantId: request.participantId, name: request.name };
}
