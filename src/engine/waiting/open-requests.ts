import type { Clock } from '../clock.js';
import type { Meeting } from '../meetings/meeting.js';
import { AttemptLimiter, TooManyAttemptsError } from './attempt-limiter.js';
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
  /** Waiting and uncommitted requests per room and client address, and per room and IPv6 /56 (keys differ in form). */
  private readonly clientSlots = new Map<string, number>();
  private readonly knockLimiter: AttemptLimiter;
  private readonly maxOpenPerClient: number;
  private readonly maxOpenPerNetwork: number;
  readonly maxOpenRequests: number;

  constructor(
    clock: Clock,
    options: Pick<WaitingRoomOptions, 'knocksPerClient' | 'maxOpenPerClient' | 'maxOpenPerNetwork' | 'maxOpenRequests'>,
  ) {
    this.knockLimiter = new AttemptLimiter(
      clock,
      options.knocksPerClient ?? clientDefaults.knocksPerClient,
      'too_many_knocks',
    );
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
    const slot: ClientSlot = {
      client: `${roomId}\n${clientKey}`,
      network: clientNetwork === null ? null : `${roomId}\n${clientNetwork}`,
    };
    this.knockLimiter.check(slot.client);
    const over = (key: string | null, max: number) => key !== null && (this.clientSlots.get(key) ?? 0) >= max;
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
    this.knockLimiter.record(clientSlot.client);
    const pending: PendingKnock = { cancelled: false, clientSlot };
    const set = this.pending.get(roomId);
    if (set) set.add(pending);
    else this.pending.set(roomId, new Set([pending]));
    for (const key of keysOf(clientSlot)) this.clientSlots.set(key, (this.clientSlots.get(key) ?? 0) + 1);
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
    if (clientSlot === undefined) return;
    for (const key of keysOf(clientSlot)) {
      const held = (this.clientSlots.get(key) ?? 0) - 1;
      if (held > 0) this.clientSlots.set(key, held);
      else this.clientSlots.delete(key);
    }
  }

  /** The decision that released it was rolled back: the request waits again and holds its place. */
  retakeSlot(clientSlot: ClientSlot | undefined): void {
    if (clientSlot === undefined) return;
    for (const key of keysOf(clientSlot)) this.clientSlots.set(key, (this.clientSlots.get(key) ?? 0) + 1);
  }

  /** Forgets knock counts whose window has passed. */
  prune(): void {
    this.knockLimiter.prune();
  }
}

function keysOf(slot: ClientSlot): string[] {
  return slot.network === null ? [slot.client] : [slot.client, slot.network];
}
