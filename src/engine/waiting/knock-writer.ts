import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { AsyncPort } from '../async-port.js';
import type { WaitingRequestStore } from './waiting-request.js';
import type { Arrival } from './admission.js';
import type { Screened } from './arrival-gate.js';
import type { OpenRequests } from './open-requests.js';
import type { RequestDecisions, RequestDecisionsDeps } from './request-decisions.js';
import { newRequestId } from './request-id.js';
import { hashSecret, newSecret } from './request-secret.js';
import { liveRequest, type ClientSlot, type LiveRequest, type RoomQueue } from './room-queue.js';
import type { Meeting } from '../meetings/meeting.js';
import { newWaitingRequest } from './waiting-request.js';
import type { KnockResult, WaitingCounter } from './waiting-room-types.js';

export interface KnockWriterDeps {
  readonly meetings: MeetingService;
  readonly transactions: Pick<AsyncTransactions, 'commitGrouped'>;
  readonly store: Pick<AsyncPort<WaitingRequestStore>, 'insertKnock'>;
  readonly clock: Clock;
  readonly requests: OpenRequests;
  readonly decisions: Pick<RequestDecisions, 'settle'>;
  readonly notify: RequestDecisionsDeps['notify'];
  readonly counter?: WaitingCounter;
}

/** A queued knock: her answer, settled once its group commit is durable. */
export interface Queued {
  readonly answer: Promise<KnockResult>;
}

/**
 * A knock that must wait: written with the other knocks of its turn in one group commit, and
 * known to memory, polls and moderators only once that commit is durable.
 */
export class KnockWriter {
  constructor(private readonly deps: KnockWriterDeps) {}

  /**
   * Her request, queued for the group commit (no await before it but the settling of a full room),
   * so the knocks of one turn share a commit. Answers at once unless the room is full: no promise
   * that only forwards (a knock is the service's hottest write).
   */
  queue(arrival: Arrival, screened: Screened): Queued | Promise<Queued> {
    const roomId = screened.room.roomId;
    const current = this.deps.meetings.current(roomId);
    const existingQueue = current ? this.deps.requests.queueOf(current) : undefined;
    const previous = screened.known;
    if (previous?.request.state === 'waiting' && typeof arrival.secret === 'string') {
      previous.lastSeenMs = this.nowMs();
      return {
        answer: Promise.resolve({ status: 'waiting', requestId: previous.request.requestId, secret: arrival.secret }),
      };
    }
    const clientSlot = this.deps.requests.checkClient(roomId, arrival.clientKey, arrival.clientNetwork ?? null);
    // At the cap, first free the places of requests that are due to expire or close anyway.
    if (current && existingQueue && this.deps.requests.full(roomId, existingQueue))
      return this.deps.decisions
        .settle(current, existingQueue)
        .then(() => this.enqueue(screened, previous, clientSlot, existingQueue));
    return this.enqueue(screened, previous, clientSlot, existingQueue);
  }

  private enqueue(
    screened: Screened,
    previous: LiveRequest | undefined,
    clientSlot: ClientSlot,
    existingQueue: RoomQueue | undefined,
  ): Queued {
    const roomId = screened.room.roomId;
    this.deps.requests.ensureRoom(roomId, existingQueue);
    const pending = this.deps.requests.hold(roomId, clientSlot);
    const secret = newSecret();
    const timeoutMs = screened.room.waitingRoomTimeoutSecs * 1000;
    // The request row and what memory learns once it is durable.
    const insert = (meeting: Meeting) => {
      // The knock's time is when it is written: the request and its timeline entry (which the
      // store derives from the request) share it, as the entry used to take the time of its write.
      const now = this.nowMs();
      const request = newWaitingRequest({
        requestId: newRequestId(now),
        meetingId: meeting.meetingId,
        secretHash: hashSecret(secret),
        name: screened.name,
        note: screened.note,
        avatarUrl: screened.claims?.avatar ?? null,
        nowMs: now,
        timeoutMs,
      });
      return this.deps.store.insertKnock(request).then(() => {
        this.deps.meetings.knocked(meeting);
        const entry = liveRequest({
          request,
          expiresAtMs: now + timeoutMs,
          lastSeenMs: now,
          cookie: secret,
          clientSlot,
        });
        return { meeting, entry };
      });
    };
    // Written with the other knocks of this turn in one commit; she is told "waiting" only once
    // it is durable, and moderators see her only then (memory is updated after the commit).
    // Queued now, answered later: the caller's turn of the room ends before the group commits.
    const answer = this.deps.transactions.commitGrouped({
      // Store calls in the group's steps (AsyncQueuedWrite): the meeting's row first when the room
      // has none open, and the request's, which refers to it, once that one is written.
      write: (step) => {
        if (pending.cancelled) return null;
        const open = this.deps.meetings.current(roomId);
        if (open) return insert(open);
        return this.deps.meetings.ensure(roomId).then((meeting) => step(() => insert(meeting)));
      },
      committed: (done) => {
        this.deps.requests.settled(roomId, pending, !done);
        if (!done) return;
        const queue = this.deps.requests.queueFor(done.meeting);
        // A refused or expired request this browser knocked with before is replaced: its cookie is overwritten.
        if (previous) queue.remove(previous);
        queue.add(done.entry);
        this.deps.counter?.counted('knock');
        this.deps.notify(roomId, done.meeting, [done.entry.request], []);
      },
      failed: () => this.deps.requests.settled(roomId, pending, true),
      answer: (done): KnockResult => {
        if (!done) throw new EngineError('room_not_found', `no room has room_id ${roomId}`);
        return { status: 'waiting', requestId: done.entry.request.requestId, secret };
      },
    });
    return { answer };
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }
}
