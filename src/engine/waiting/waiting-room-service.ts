/**
 * Admission of arrivals and the waiting-request state machine. Made after MeetingService with
 * `WaitingRoomService.open(deps, options)` (it attaches itself to the meetings and reloads open
 * requests, as daemon/services.ts wires it); the daemon calls `sweep()` once a second.
 *
 * Arrivals (errors are EngineError with `code`; `field` is set for the invalid_field / access_code ones):
 * - `start(arrival): StartResult` — `{status:'joined', participant}` (a participant was created:
 *   sign a session for it) or `{status:'knock'}` (nothing was created; the client must knock).
 * - `knock(arrival): Promise<KnockResult>` — `{status:'joined', participant}` when no waiting is needed, else
 *   `{status:'waiting', requestId, secret}`: set `secret` as the request cookie. Knocking again with
 *   a cookie whose request is still waiting returns that same request (and the same secret).
 *   A new request is written with the other knocks of the same turn in one transaction (group commit, see
 *   AsyncTransactions.commitGrouped) and resolves once that is durable; it reaches memory, polls and the moderators'
 *   list only then. A failed commit rejects every knock of the group with the store's error, none left in memory.
 *   Errors of both: room_not_found; invalid_field (name 1-64, note 0-280); access_code_invalid
 *   (nothing created); too_many_attempts (TooManyAttemptsError, `.retryAfterSecs`); barred (the
 *   cookie's request was barred in this meeting); knock only: too_many_knocks, too_many_waiting and
 *   waiting_room_full (1,000 waiting), each a TooManyAttemptsError with `.retryAfterSecs`.
 * - `poll(roomId, secret): PollResult | null` — null when the cookie names no request of this room's open meeting
 *   (answer 404). Served from memory, no store read, no promise (a Promise only when it finds an expiry to write).
 *   A page silent for `missedPolls` polls is listed with `connection_lost` (moderators are told by an update); her
 *   next poll clears it; only a silence of `closedWindowMs` (the grace, 60 s) closes her window. Admitted answers
 *   carry the participant while present: once she left, the admission is spent (null), so a kept cookie mints no session.
 * - `withdraw(roomId, secret): Promise<boolean>` — the person leaves; a waiting request is withdrawn at once.
 * - `leaving(roomId, secret): Promise<boolean>` — her page is going away (pagehide beacon): moderators stop
 *   seeing the request at once and it is withdrawn after `leaveGraceMs` (2 s) unless the same
 *   browser polls again, which is what a reload does, so a reload keeps her place.
 *
 * - `adopt(roomId): Promise<void>` — a room taken over from another node: its open meeting and requests are read anew.
 *
 * Moderator gestures (each a Promise; actor: a moderator participant of the open meeting, or `{kind:'api', name}`;
 * a participant who is not a moderator of the open meeting gets not_moderator):
 * - `list(roomId, actor): WaitingListItem[]` — waiting requests in knock order; [] without a meeting.
 * - `admit(roomId, requestId, actor): {admitted}` — 1, or 0 if it was admitted already;
 *   request_not_found, request_not_waiting.
 * - `admitAll(roomId, actor): {admitted, skipped}` — everyone waiting but those marked `barred_as` (a name barred
 *   in this meeting; `list` marks them), who stay waiting and are counted in `skipped` (absent when none), as
 *   in the timeline's admit_all entry. A moderator's arrival under until_moderator lets in the same way.
 * - `refuse(roomId, requestId, bar, actor): void` — refused (may knock again) or barred for the
 *   meeting; request_not_found, request_not_waiting.
 * - `disableWaitingRoom(roomId, actor): {admitted, skipped}` — everyone waiting enters but those marked (as
 *   under admitAll: they keep waiting for a moderator), later arrivals of this meeting do not wait; waiting_room_forced under a forced policy; meeting_not_found without a meeting.
 * - `enableWaitingRoom(roomId, actor): {enabled}` — the mirror: later arrivals of this meeting wait
 *   again as the room's scope says; nobody present is moved out. waiting_room_unavailable when the
 *   room has no waiting room to turn on (its scope in force is `off`: the room's or the instance's
 *   choice, or a sub-group); meeting_not_found without a meeting.
 * - `switchState(roomId): {enabled, switchable}` — what a moderator's toggle shows: whether later
 *   arrivals would wait (as the scope allows), and whether a moderator may turn it on or off.
 *
 * `onWaitingRoomSwitched(listener)` is told `(roomId, meetingId)` after either switch is committed (the live
 * connection tells the moderators' pages); returns an unsubscribe function. A listener that throws is logged
 * (`deps.log`); the others still run and the gesture that changed the state never sees it.
 *
 * `onWaitingListChange(listener)` tells the live connection what changed in a room's list, as the
 * moderators see it: requests added and removed (`WaitingListChange`), or `reset` when the meeting's
 * list is gone. Returns an unsubscribe function. Listeners run synchronously once memory holds the change
 * (several times in one turn for a burst); they should only collect and schedule a push. The change is told
 * where it happens, so an observer never re-reads the whole list: with 1,000 waiting, a knock is one item.
 */
import { EngineError } from '../errors.js';
import { entersAsModerator } from '../meetings/moderator-succession.js';
import type { Actor, Meeting } from '../meetings/meeting.js';
import { effectiveMode, type Arrival } from './admission.js';
import { ArrivalGate, type Screened } from './arrival-gate.js';
import { KnockWriter, type Queued } from './knock-writer.js';
import { OpenRequests } from './open-requests.js';
import { RequestDecisions } from './request-decisions.js';
import { WaitingListChanges } from './list-changes.js';
import { plausibleSecret } from './request-secret.js';
import { WaitingSwitch } from './waiting-switch.js';
import { liveRequest, type LiveRequest, type RoomQueue } from './room-queue.js';
import type { RequestState, WaitingRequest } from './waiting-request.js';
import {
  itemOf,
  pollAnswer,
  subjectOf,
  waitingDefaults,
  type AdmitResult,
  type EntryResult,
  type Gesture,
  type KnockResult,
  type PollResult,
  type StartResult,
  type SwitchListener,
  type SwitchState,
  type WaitingListItem,
  type WaitingListListener,
  type WaitingRoomDeps,
  type WaitingRoomOptions,
} from './waiting-room-types.js';

export class WaitingRoomService {
  private readonly requests: OpenRequests;
  private readonly gate: ArrivalGate;
  private readonly decisions: RequestDecisions;
  private readonly knocks: KnockWriter;
  private readonly changes: WaitingListChanges;
  private readonly switch: WaitingSwitch;

  /** The service, with the requests still open in the store's open meetings read first (the reload at start). */
  static async open(deps: WaitingRoomDeps, options: WaitingRoomOptions = {}): Promise<WaitingRoomService> {
    const pollable = new Map<string, readonly WaitingRequest[]>();
    for (const meeting of deps.meetings.openMeetings())
      pollable.set(meeting.meetingId, await deps.store.pollableRequests(meeting.meetingId));
    return new WaitingRoomService(deps, options, pollable);
  }

  constructor(
    private readonly deps: WaitingRoomDeps,
    options: WaitingRoomOptions = {},
    /** The open meetings' pollable requests by meeting id, as `open` read them. */
    pollable: ReadonlyMap<string, readonly WaitingRequest[]> = new Map(),
  ) {
    const staleAfterMs = options.closedWindowMs ?? waitingDefaults.closedWindowMs;
    const lostAfterMs =
      (options.pollIntervalMs ?? waitingDefaults.pollIntervalMs) * (options.missedPolls ?? waitingDefaults.missedPolls);
    this.requests = new OpenRequests(deps.clock, options);
    this.changes = new WaitingListChanges(deps.log, (meeting) => this.requests.queueOf(meeting));
    this.gate = new ArrivalGate({ ...deps, requests: this.requests }, options);
    this.decisions = new RequestDecisions({
      ...deps,
      requests: this.requests,
      staleAfterMs,
      lostAfterMs,
      notify: (...change) => this.changes.notify(...change),
    });
    this.switch = new WaitingSwitch({ ...deps, decisions: this.decisions });
    this.knocks = new KnockWriter({
      ...deps,
      requests: this.requests,
      decisions: this.decisions,
      notify: (...change) => this.changes.notify(...change),
    });
    for (const meeting of deps.meetings.openMeetings()) this.load(meeting, pollable.get(meeting.meetingId) ?? []);
    deps.meetings.attach({
      openRequests: (meeting) => this.requests.openIn(meeting.roomId, this.requests.queueOf(meeting)),
      moderatorArrived: (meeting, moderatorId) => this.moderatorArrived(meeting, moderatorId),
      inTurn: (roomId, operation) => deps.turns.run(roomId, operation),
      ending: (meeting, at) => this.ending(meeting, at),
      forgotten: (meeting) => this.forgotten(meeting),
      refusals: async (meeting) =>
        (await deps.store.refusedRequests(meeting.meetingId)).map((r) => ({
          requestId: r.requestId,
          name: r.name,
          refusedAt: r.decidedAt ?? r.knockedAt,
          barred: r.state === 'barred',
        })),
    });
  }

  start(arrival: Arrival): Promise<StartResult> {
    return this.gate.screen<StartResult>(arrival, false, this.turnOf(arrival.roomId), (screened) =>
      screened.wait ? { status: 'knock' } : this.enter(screened),
    );
  }

  knock(arrival: Arrival): Promise<KnockResult> {
    // The turn ends once the knock is queued for its group: the knocks of one room share a commit.
    return this.gate
      .screen(arrival, true, this.turnOf(arrival.roomId), (screened) => this.queueKnock(arrival, screened))
      .then((queued) => queued.answer);
  }

  private queueKnock(arrival: Arrival, screened: Screened): Queued | Promise<Queued> {
    if (!screened.wait) return this.enter(screened).then((joined) => ({ answer: Promise.resolve(joined) }));
    return this.knocks.queue(arrival, screened);
  }

  private turnOf(roomId: string): <R>(operation: () => Promise<R>) => Promise<R> {
    // A screening and what follows it (a queued knock, an entry) ask for no turn of the room.
    return (operation) => this.deps.turns.runAlone(roomId, operation);
  }

  /**
   * A room taken over from another node (issue 35), before this node serves it: its open meeting,
   * members and roles (MeetingService.adopt) and its requests (order, notes, decisions) are read
   * anew, so every later transition works as on the first owner.
   */
  async adopt(roomId: string): Promise<void> {
    const meeting = await this.deps.meetings.adopt(roomId);
    if (meeting) this.load(meeting, await this.deps.store.pollableRequests(meeting.meetingId));
  }

  /** The meeting's requests as the store holds them, in knock order, in place of what memory held. */
  private load(meeting: Meeting, requests: readonly WaitingRequest[]): void {
    this.requests.forget(meeting);
    const queue = this.requests.queueFor(meeting);
    // Last-seen times start afresh: the clients could not poll while nobody served the room.
    const now = this.nowMs();
    for (const request of requests)
      queue.add(liveRequest({ request, expiresAtMs: Date.parse(request.expiresAt), lastSeenMs: now }));
  }

  /**
   * The room was deleted: knocks queued for it are not written (their meeting row could not
   * exist any more) and are answered room_not_found. The composition root calls this.
   */
  roomDeleted(roomId: string): void {
    this.requests.cancelPending(roomId);
  }

  poll(roomId: string, secret: unknown): PollResult | null | Promise<PollResult | null> {
    const found = this.findBySecret(roomId, secret);
    if (!found) return null;
    const { meeting, queue, live } = found;
    const now = this.nowMs();
    live.lastSeenMs = now;
    if (live.leavingSinceMs !== undefined) {
      live.leavingSinceMs = undefined;
      // Her page came back (a reload): moderators see her again.
      if (live.request.state === 'waiting') this.changes.notify(roomId, meeting, [live.request], []);
    }
    if (live.lostSinceMs !== undefined) {
      live.lostSinceMs = undefined;
      // Her page re-attached within the grace: same place, and moderators see her connection back.
      if (live.request.state === 'waiting') this.changes.notify(roomId, meeting, [], [], { updated: [live] });
    }
    if (live.request.state !== 'waiting' || now < live.expiresAtMs) return pollAnswer(live, this.deps.meetings);
    const expired = this.deps.turns.runAlone(roomId, async () => {
      if (live.request.state !== 'waiting') return;
      await this.decisions.expire(meeting, queue, live);
      this.changes.notify(roomId, meeting, [], [live.request.requestId]);
    });
    return expired.then(() => pollAnswer(live, this.deps.meetings));
  }

  withdraw(roomId: string, secret: unknown): Promise<boolean> {
    return this.deps.turns.run(roomId, () => this.withdrawNow(roomId, secret));
  }

  private async withdrawNow(roomId: string, secret: unknown): Promise<boolean> {
    const found = this.findBySecret(roomId, secret);
    if (!found) return false;
    const { meeting, queue, live } = found;
    const state = live.request.state;
    if (state === 'waiting') {
      await this.decisions.close(meeting, queue, live, 'withdrawn');
      this.changes.notify(roomId, meeting, [], [live.request.requestId]);
      return true;
    }
    // A bar must outlive the page, and an admitted person's page may beacon a leave on its way into the meeting.
    if (state === 'refused' || state === 'expired') queue.remove(live);
    return state !== 'barred' && state !== 'admitted';
  }

  leaving(roomId: string, secret: unknown): Promise<boolean> {
    return this.deps.turns.run(roomId, async () => {
      const found = this.findBySecret(roomId, secret);
      if (!found || found.live.request.state !== 'waiting') return this.withdrawNow(roomId, secret);
      found.live.leavingSinceMs = this.nowMs();
      this.changes.notify(roomId, found.meeting, [], [found.live.request.requestId]);
      return true;
    });
  }

  list(roomId: string, actor: Actor): Promise<WaitingListItem[]> {
    return this.deps.turns.runAlone(roomId, async () => {
      const gesture = this.gesture(roomId, actor);
      if (!gesture) return [];
      await this.decisions.settle(gesture.meeting, gesture.queue);
      const present = [...gesture.queue.waiting.values()].filter((live) => live.leavingSinceMs === undefined);
      return present.map((live) =>
        itemOf(live.request, live.lostSinceMs !== undefined, gesture.queue.barredAs(live.request.name)),
      );
    });
  }

  admit(roomId: string, requestId: string, actor: Actor): Promise<AdmitResult> {
    return this.deps.turns.runAlone(roomId, async () => {
      const gesture = this.gesture(roomId, actor);
      const live = await this.decidable(gesture, requestId);
      if (!gesture || live === null) return { admitted: 0 };
      await this.deps.transactions.inSteps(async (step) => {
        const { participantId } = await this.decisions.admitOne(gesture.meeting, gesture.queue, live, step);
        const subject = { ...subjectOf(live.request), participantId };
        await step(() => this.deps.meetings.record(gesture.meeting, 'admit', gesture.actor, subject));
      });
      this.changes.notify(roomId, gesture.meeting, [], [live.request.requestId]);
      return { admitted: 1 };
    });
  }

  admitAll(roomId: string, actor: Actor): Promise<AdmitResult> {
    return this.deps.turns.run(roomId, async () => {
      const gesture = this.gesture(roomId, actor);
      if (!gesture) return { admitted: 0 };
      await this.decisions.settle(gesture.meeting, gesture.queue);
      return this.decisions.admitUnmarked(gesture.meeting, gesture.queue, gesture.actor);
    });
  }

  refuse(roomId: string, requestId: string, bar: boolean, actor: Actor): Promise<void> {
    return this.deps.turns.runAlone(roomId, async () => {
      const gesture = this.gesture(roomId, actor);
      const live = await this.decidable(gesture, requestId);
      if (!gesture || live === null) throw new EngineError('request_not_waiting', 'this request was admitted already');
      const state: RequestState = bar ? 'barred' : 'refused';
      await this.deps.transactions.inSteps(async (step) => {
        await step(() => this.decisions.decide(gesture.queue, live, { state }));
        const kind = bar ? 'bar' : 'refuse';
        await step(() => this.deps.meetings.record(gesture.meeting, kind, gesture.actor, subjectOf(live.request)));
      });
      // Anyone waiting under the barred name is told again, now marked.
      const marked = bar ? gesture.queue.waitingNamed(live.request.name) : [];
      this.changes.notify(roomId, gesture.meeting, marked, [live.request.requestId]);
    });
  }

  disableWaitingRoom(roomId: string, actor: Actor): Promise<AdmitResult> {
    return this.deps.turns.run(roomId, () => this.switch.disable(roomId, () => this.gesture(roomId, actor)));
  }
  enableWaitingRoom(roomId: string, actor: Actor): Promise<{ enabled: true }> {
    return this.deps.turns.run(roomId, () => this.switch.enable(roomId, () => this.gesture(roomId, actor)));
  }
  switchState(roomId: string): Promise<SwitchState> {
    return this.switch.state(roomId);
  }
  onWaitingRoomSwitched(listener: SwitchListener): () => void {
    return this.switch.onSwitched(listener);
  }

  /** Expiry, closed windows, then empty meetings. Call about once a second. */
  async sweep(): Promise<void> {
    // Knocks queued before the sweep are on disk and in memory before it judges anything.
    await this.deps.transactions.flushGrouped();
    for (const meeting of this.deps.meetings.openMeetings()) {
      const queue = this.requests.queueOf(meeting);
      if (queue)
        await this.deps.turns.runAlone(meeting.roomId, async () => {
          // Still the room's meeting once its turn came.
          if (this.deps.meetings.current(meeting.roomId)?.meetingId === meeting.meetingId)
            await this.decisions.settle(meeting, queue);
        });
    }
    this.gate.screening.prune();
    this.requests.prune();
    await this.deps.meetings.sweep();
  }

  /** Requests waiting now in every open meeting (the daemon's metrics read it at a scrape). */
  waitingCount(): number {
    let count = 0;
    for (const meeting of this.deps.meetings.openMeetings()) count += this.requests.queueOf(meeting)?.waiting.size ?? 0;
    return count;
  }
  onWaitingListChange(listener: WaitingListListener): () => void {
    return this.changes.add(listener);
  }

  private async enter(screened: Screened): Promise<EntryResult> {
    const { member, claims } = screened;
    const participant = await this.deps.transactions.atomically(async () => {
      const meeting = await this.deps.meetings.ensure(screened.room.roomId);
      // Moved in from the parent meeting: she keeps the role and picture she has there. In a room
      // never left without a moderator, the role is decided here, in the room's turn (as the
      // join): of two arrivals at once, the first to get here is the moderator, the second is not.
      const role =
        member?.role ??
        (entersAsModerator(screened.room, this.deps.meetings.moderatorPresent(meeting))
          ? 'moderator'
          : (claims?.role ?? 'participant'));
      return this.deps.meetings.join(meeting, role, screened.name, claims?.uid, member?.avatarUrl ?? claims?.avatar);
    });
    return { status: 'joined', participant };
  }

  private findBySecret(
    roomId: string,
    secret: unknown,
  ): { meeting: Meeting; queue: RoomQueue; live: LiveRequest } | null {
    if (!plausibleSecret(secret)) return null;
    const meeting = this.deps.meetings.current(roomId);
    const queue = meeting ? this.requests.queueOf(meeting) : undefined;
    const live = queue?.bySecret(secret);
    return meeting && queue && live ? { meeting, queue, live } : null;
  }

  /** The meeting, queue and recorded actor of a gesture; null when an integration acts on a room with no meeting. */
  private gesture(roomId: string, actor: Actor): Gesture | null {
    const meeting = this.deps.meetings.current(roomId);
    if (!meeting) {
      if (actor.kind === 'participant')
        throw new EngineError('not_moderator', 'only a moderator of this meeting may do this');
      return null;
    }
    const recorded = this.deps.meetings.moderator(meeting, actor);
    return { meeting, queue: this.requests.queueFor(meeting), actor: recorded };
  }

  /** The waiting request a moderator decides on; null when it was admitted already (a second click). */
  private async decidable(gesture: Gesture | null, requestId: string): Promise<LiveRequest | null> {
    if (!gesture) throw new EngineError('request_not_found', 'no such request is open in this room');
    await this.decisions.settle(gesture.meeting, gesture.queue);
    const live = gesture.queue.byRequestId(requestId);
    if (!live) throw new EngineError('request_not_found', 'no such request is open in this room');
    if (live.request.state === 'admitted') return null;
    if (live.request.state !== 'waiting') {
      throw new EngineError('request_not_waiting', `this request is ${live.request.state} already`);
    }
    return live;
  }

  /** How many marked requests her arrival left waiting; told once (the first list her page gets carries it). */
  takeArrivalSkipped(roomId: string, participantId: string): number {
    return this.gesture(roomId, { kind: 'participant', participantId })?.queue.takeArrivalSkipped(participantId) ?? 0;
  }

  /** Inside her arrival's transaction (a join, a promotion). */
  private async moderatorArrived(meeting: Meeting, moderatorId: string): Promise<void> {
    const room = await this.deps.rooms.get(meeting.roomId);
    const queue = this.requests.queueOf(meeting);
    if (!room || !queue || effectiveMode(this.deps.policy, room) !== 'until_moderator') return;
    await this.decisions.settle(meeting, queue);
    // Marked requests keep waiting for the moderator who just came, as under Admit all; her page is told.
    queue.arrivalSkipped(moderatorId, (await this.decisions.admitUnmarked(meeting, queue, null)).skipped ?? 0);
  }

  /** Requests still waiting when their meeting ends will never be answered: they expire with it. */
  private async ending(meeting: Meeting, at: string): Promise<void> {
    const queue = this.requests.queueOf(meeting);
    if (queue) await this.decisions.expireAll(meeting, queue, at);
  }

  /** Bars and all other requests belong to the meeting and go with it. */
  private forgotten(meeting: Meeting): void {
    if (this.requests.forget(meeting)) this.changes.reset(meeting);
  }

  private nowMs(): number {
    return this.deps.clock.nowMs?.() ?? this.deps.clock.now().getTime();
  }
}
