import type { Clock } from '../clock.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { AsyncPort } from '../async-port.js';
import { plainStep } from '../unit-of-work.js';
import type { WaitingRequestStore } from './waiting-request.js';
import type { Meeting, Participant } from '../meetings/meeting.js';
import type { RecordedActor } from '../meetings/timeline.js';
import type { OpenRequests } from './open-requests.js';
import type { LiveRequest, RoomQueue } from './room-queue.js';
import type { RequestState, WaitingRequest } from './waiting-request.js';
import { subjectOf, waitingDefaults, type AdmitResult, type WaitingCounter } from './waiting-room-types.js';

export interface RequestDecisionsDeps {
  readonly meetings: MeetingService;
  readonly transactions: Pick<AsyncTransactions, 'atomically' | 'onRollback' | 'afterCommit'>;
  readonly store: Pick<AsyncPort<WaitingRequestStore>, 'updateRequest'>;
  readonly clock: Clock;
  readonly requests: Pick<OpenRequests, 'releaseSlot' | 'retakeSlot'>;
  /** How long without a poll a request counts as a closed window (the grace). */
  readonly staleAfterMs: number;
  /** How long without a poll moderators see her connection as lost (her place kept). */
  readonly lostAfterMs: number;
  /** Tells the moderators' lists what they now see and no longer see. */
  readonly notify: (
    roomId: string,
    meeting: Meeting,
    added: readonly WaitingRequest[],
    removed: readonly string[],
    more?: ChangeDetail,
  ) => void;
  readonly counter?: WaitingCounter;
}

/** Requests whose connection was lost or is back, and ids removed because their grace ran out. */
export interface ChangeDetail {
  readonly updated?: readonly LiveRequest[];
  readonly timedOut?: readonly string[];
}

/**
 * What happens to a waiting request: admitted, expired, closed (withdrawn, or its window closed),
 * refused or barred; each written with its timeline entry in one transaction, then told.
 */
export class RequestDecisions {
  constructor(private readonly deps: RequestDecisionsDeps) {}

  /**
   * Inside the caller's transaction, each call in one of its steps (AsyncTransactions.inSteps):
   * a participant's join and a decision make every call before their first await.
   */
  async admitOne(meeting: Meeting, queue: RoomQueue, live: LiveRequest, step = plainStep): Promise<Participant> {
    const { name, avatarUrl } = live.request;
    const participant = await step(() =>
      this.deps.meetings.join(meeting, 'participant', name, undefined, avatarUrl ?? undefined),
    );
    await step(() => this.decide(queue, live, { state: 'admitted', participantId: participant.participantId }));
    return participant;
  }

  /**
   * Everyone waiting but whoever comes under the name of a person barred in this meeting: they stay waiting, for a
   * moderator to look at one by one (Admit all, the switch turned off, a moderator's arrival under until_moderator).
   * One transaction, recorded as one admit_all entry with both counts; none when nobody was let in, unless a
   * moderator's gesture skipped someone (a moderator's arrival that let nobody in is not an admission).
   */
  async admitUnmarked(meeting: Meeting, queue: RoomQueue, actor: RecordedActor | null): Promise<AdmitResult> {
    const all = [...queue.waiting.values()];
    const waiting = all.filter((live) => queue.barredAs(live.request.name) === undefined);
    const skipped = all.length - waiting.length;
    const result = skipped > 0 ? { admitted: waiting.length, skipped } : { admitted: waiting.length };
    if (waiting.length === 0 && (skipped === 0 || actor === null)) return result;
    await this.deps.transactions.atomically(async () => {
      for (const live of waiting) await this.admitOne(meeting, queue, live);
      await this.deps.meetings.record(meeting, 'admit_all', actor, null, waiting.length, skipped);
    });
    // Inside a caller's transaction (the switch, a promotion) the moderators hear of it once that commits.
    if (waiting.length > 0)
      this.deps.transactions.afterCommit(() =>
        this.deps.notify(
          meeting.roomId,
          meeting,
          [],
          waiting.map((live) => live.request.requestId),
        ),
      );
    return result;
  }

  /**
   * Timeouts and closed windows that are due in one room. A page silent for a few polls is shown
   * to moderators as "connection lost" and keeps its place; only a silence as long as the grace
   * closes it (a network drop, a frozen tab, or a loaded server answering slowly is not a leave).
   */
  async settle(meeting: Meeting, queue: RoomQueue): Promise<void> {
    const now = this.nowMs();
    const left = (live: LiveRequest) =>
      live.leavingSinceMs !== undefined && now - live.leavingSinceMs >= waitingDefaults.leaveGraceMs;
    const due = (live: LiveRequest) =>
      now >= live.expiresAtMs || left(live) || now - live.lastSeenMs >= this.deps.staleAfterMs;
    const waiting = [...queue.waiting.values()];
    const settled = waiting.filter(due);
    const silent = waiting.filter(
      (live) =>
        !due(live) &&
        live.lostSinceMs === undefined &&
        live.leavingSinceMs === undefined &&
        now - live.lastSeenMs >= this.deps.lostAfterMs,
    );
    for (const live of silent) live.lostSinceMs = now;
    const timedOut: string[] = [];
    // One durable commit for the whole batch: closing thousands of windows one fsync each
    // would starve the very polls that keep the others open.
    if (settled.length > 0)
      await this.deps.transactions.atomically(async () => {
        for (const live of settled) {
          // Decided meanwhile (a moderator's gesture outside the room's turn): not settled twice.
          if (live.request.state !== 'waiting') continue;
          if (now >= live.expiresAtMs) await this.expire(meeting, queue, live);
          else if (left(live)) await this.close(meeting, queue, live, 'withdrawn');
          else {
            await this.close(meeting, queue, live, 'window_closed');
            timedOut.push(live.request.requestId);
          }
        }
      });
    if (settled.length === 0 && silent.length === 0) return;
    this.deps.notify(
      meeting.roomId,
      meeting,
      [],
      settled.map((live) => live.request.requestId),
      { updated: silent, timedOut },
    );
  }

  async expire(meeting: Meeting, queue: RoomQueue, live: LiveRequest): Promise<void> {
    await this.deps.transactions.atomically(async () => {
      await this.decide(queue, live, { state: 'expired' });
      await this.deps.meetings.record(meeting, 'expire', null, subjectOf(live.request));
    });
  }

  /** The person is gone: the request leaves memory at once. */
  async close(
    meeting: Meeting,
    queue: RoomQueue,
    live: LiveRequest,
    state: 'withdrawn' | 'window_closed',
  ): Promise<void> {
    await this.deps.transactions.atomically(async () => {
      await this.decide(queue, live, { state });
      await this.deps.meetings.record(
        meeting,
        state === 'withdrawn' ? 'withdraw' : 'window_closed',
        null,
        subjectOf(live.request),
      );
    });
    queue.remove(live);
  }

  /** Memory first, taken back if the transaction fails; inside the caller's transaction (every call before the await). */
  async decide(
    queue: RoomQueue,
    live: LiveRequest,
    change: { state: RequestState; participantId?: string },
  ): Promise<void> {
    const before = live.request;
    let released = false;
    if (before.state === 'waiting' && change.state !== 'waiting') {
      released = true;
      this.deps.requests.releaseSlot(live.clientSlot);
      // Counted once on disk: a decision whose commit fails did not happen.
      const outcome = change.state;
      this.deps.transactions.afterCommit(() => this.deps.counter?.counted(outcome));
    }
    const request: WaitingRequest = {
      ...live.request,
      state: change.state,
      decidedAt: this.nowIso(),
      participantId: change.participantId ?? live.request.participantId,
    };
    queue.replace(live, request);
    // A failed commit must leave her waiting in memory as she is on disk, in her place.
    this.deps.transactions.onRollback(() => {
      queue.restore(live, before);
      if (released) this.deps.requests.retakeSlot(live.clientSlot);
    });
    await this.deps.store.updateRequest(request);
  }

  /** Requests still waiting when their meeting ends will never be answered: they expire with it. */
  async expireAll(meeting: Meeting, queue: RoomQueue, at: string): Promise<void> {
    for (const live of [...queue.waiting.values()]) {
      this.deps.requests.releaseSlot(live.clientSlot);
      this.deps.transactions.onRollback(() => this.deps.requests.retakeSlot(live.clientSlot));
      await this.deps.store.updateRequest({ ...live.request, state: 'expired', decidedAt: at });
      this.deps.transactions.afterCommit(() => this.deps.counter?.counted('expired'));
      await this.deps.meetings.record(meeting, 'expire', null, subjectOf(live.request));
    }
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }
}
