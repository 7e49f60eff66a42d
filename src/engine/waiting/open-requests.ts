import type { Clock } from '../clock.js';
import type { Meeting } from '../meetings/meeting.js';
import { AttemptLimiter, TooManyAttemptsError, type AttemptLimits } from './attempt-limiter.js';
import { RoomQueue, type ClientSlot } from './room-queue.js';
import { clientDefaults, waitingDefaults, type WaitingRoomOptions } from './waiting-room-types.js';

/** A knock queued for the next group commit. */
export interface PendingKnock {
  /** Its room was deleted before the commit. */
  cancelled: boolean;
  readonly clientSlot: ClientSlot;
}

/**
 * The places in the waiting rooms, in memory: each open meeting's queue of requests, the knocks
 * queued for the group commit (they hold a place, but nobody sees them yet), and the places each
 * client address holds per room (memory only: not reloaded after a restart), with the room's cap
 * and the per-client limits.
 */
export class OpenRequests {
  private readonly queues = new Map<string, RoomQueue>();
  /** Knocks queued for the group commit, by room. */
  private readonly pending = new Map<string, Set<PendingKnock>>();
  /**
   * Per room, its waiting and uncommitted requests per client address and per IPv6 /56 (keys
   * differ in form). A map per room keyed by the client's own key, as the knock limiters: one map
   * keyed by room and address together made two more strings per waiting person (issue 36 point 2).
   */
  private readonly clientSlots = new Map<string, Map<string, number>>();
  /** Knocks per client address, a limiter per room with knocks in the window. */
  private readonly knockLimiters = new Map<string, AttemptLimiter>();
  private readonly knockLimits: AttemptLimits;
  private readonly maxOpenPerClient: number;
  private readonly maxOpenPerNetwork: number;
  readonly maxOpenRequests: number;

  constructor(
    private readonly clock: Clock,
    options: Pick<WaitingRoomOptions, 'knocksPerClient' | 'maxOpenPerClient' | 'maxOpenPerNetwork' | 'maxOpenRequests'>,
  ) {
    this.knockLimits = options.knocksPerClient ?? clientDefaults.knocksPerClient;
    this.maxOpenPerClient = options.maxOpenPerClient ?? clientDefaults.maxOpenPerClient;
    this.maxOpenPerNetwork = options.maxOpenPerNetwork ?? clientDefaults.maxOpenPerNetwork;
    this.maxOpenRequests = options.maxOpenRequests ?? waitingDefaults.maxOpenRequests;
  }

  /** The queue of the room's open meeting, if this meeting has one. */
  queueOf(meeting: Meeting): RoomQueue | undefined {
    const queue = this.queues.get(meeting.roomId);
    return queue?.meetingId === meeting.meetingId ? queue : undefined;
  }

  queueFor(meeting: Meeting): RoomQueue {
    const existing = this.queueOf(meeting);
    if (existing) return existing;
    const queue = new RoomQueue(meeting.meetingId);
    this.queues.set(meeting.roomId, queue);
    return queue;
  }

  /** The meeting's queue is dropped; true when it had one. */
  forget(meeting: Meeting): boolean {
    if (!this.queueOf(meeting)) return false;
    this.queues.delete(meeting.roomId);
    return true;
  }

  /** Requests that hold a place in a room: waiting ones and knocks not committed yet. */
  openIn(roomId: string, queue: RoomQueue | undefined): number {
    return (queue?.waiting.size ?? 0) + (this.pending.get(roomId)?.size ?? 0);
  }

  full(roomId: string, queue: RoomQueue | undefined): boolean {
    return this.openIn(roomId, queue) >= this.maxOpenRequests;
  }

  /**
   * The client's keys for its places in a room; throws while it knocks too often, or it or its
   * network (`clientNetwork`, an IPv6 /56) holds too many.
   */
  checkClient(roomId: string, clientKey: string, clientNetwork: string | null = null): ClientSlot {
    const slot: ClientSlot = { roomId, client: clientKey, network: clientNetwork };
    this.knockLimiters.get(roomId)?.check(clientKey);
    const held = this.clientSlots.get(roomId);
    const over = (key: string | null, max: number) => key !== null && (held?.get(key) ?? 0) >= max;
    if (over(slot.client, this.maxOpenPerClient) || over(slot.network, this.maxOpenPerNetwork)) {
      throw new TooManyAttemptsError(clientDefaults.retryAfterSecs, 'too_many_waiting');
    }
    return slot;
  }

  /**
   * Throws waiting_room_full at the room's cap, with the time to come back: places free as
   * people are admitted, refused or close their window (6 s), so a knock a little later may fit.
   */
  ensureRoom(roomId: string, queue: RoomQueue | undefined): void {
    if (this.full(roomId, queue)) throw new TooManyAttemptsError(clientDefaults.retryAfterSecs, 'waiting_room_full');
  }

  /** A knock takes its place until its commit: counted against the room and the client. */
  hold(roomId: string, clientSlot: ClientSlot): PendingKnock {
    let limiter = this.knockLimiters.get(roomId);
    if (!limiter) {
      limiter = new AttemptLimiter(this.clock, this.knockLimits, 'too_many_knocks');
      this.knockLimiters.set(roomId, limiter);
    }
    limiter.record(clientSlot.client);
    const pending: PendingKnock = { cancelled: false, clientSlot };
    const set = this.pending.get(roomId);
    if (set) set.add(pending);
    else this.pending.set(roomId, new Set([pending]));
    this.countSlot(clientSlot, 1);
    return pending;
  }

  /** The knock's commit is over: its place now counts in the queue, or (`release`) is free again. */
  settled(roomId: string, pending: PendingKnock, release: boolean): void {
    const set = this.pending.get(roomId);
    if (set?.delete(pending) && set.size === 0) this.pending.delete(roomId);
    if (release) this.releaseSlot(pending.clientSlot);
  }

  /** The room was deleted: knocks queued for it are not written. */
  cancelPending(roomId: string): void {
    for (const pending of this.pending.get(roomId) ?? []) pending.cancelled = true;
  }

  /** A request of this client stopped waiting (or was never written): its place is free again. */
  releaseSlot(clientSlot: ClientSlot | undefined): void {
    if (clientSlot !== undefined) this.countSlot(clientSlot, -1);
  }

  /** The decision that released it was rolled back: the request waits again and holds its place. */
  retakeSlot(clientSlot: ClientSlot | undefined): void {
    if (clientSlot !== undefined) this.countSlot(clientSlot, 1);
  }

  /** Forgets knock counts whose window has passed, and the limiters of rooms left without any. */
  prune(): void {
    this.knockLimiters.forEach((limiter, roomId) => {
      limiter.prune();
      if (limiter.idle()) this.knockLimiters.delete(roomId);
    });
  }

  private countSlot(slot: ClientSlot, by: 1 | -1): void {
    let held = this.clientSlots.get(slot.roomId);
    if (!held) {
      if (by < 0) return;
      held = new Map();
      this.clientSlots.set(slot.roomId, held);
    }
    for (const key of [slot.client, slot.network]) {
      if (key === null) continue;
      const count = (held.get(key) ?? 0) + by;
      if (count > 0) held.set(key, count);
      else held.delete(key);
    }
    if (held.size === 0) this.clientSlots.delete(slot.roomId);
  }
}
