import { AsyncLocalStorage } from 'node:async_hooks';
import type { AsyncDefer } from '../../src/engine/async-group-commit.js';
import { AsyncTransactions } from '../../src/engine/async-transactions.js';
import { KeyedQueue } from '../../src/engine/keyed-queue.js';
import type { Participant } from '../../src/engine/meetings/meeting.js';
import { MeetingService, type MeetingOptions } from '../../src/engine/meetings/meeting-service.js';
import { hashAccessCode, type AccessCodeCost } from '../../src/engine/rooms/access-code.js';
import type { Room } from '../../src/engine/rooms/room.js';
import type { WaitingRoomPolicy } from '../../src/engine/rooms/waiting-room-policy.js';
import type { Arrival, JoinClaims } from '../../src/engine/waiting/admission.js';
import { WaitingRoomService } from '../../src/engine/waiting/waiting-room-service.js';
import type { WaitingRequest } from '../../src/engine/waiting/waiting-request.js';
import type { KnockResult, WaitingCounter, WaitingRoomOptions } from '../../src/engine/waiting/waiting-room-types.js';
import { asyncOf } from './async-of.js';
import { FakeClock } from './fake-clock.js';
import { MemoryStore } from './memory-store.js';
import { MemoryUnitOfWork } from './memory-unit.js';
import { RecordingLog } from './recording-log.js';

/**
 * The fixture's rooms keep their codes at scrypt's lowest cost (N = 16, r = 1: microseconds a
 * hash): these tests prove the order and the limits of the checks, not the cost, which
 * test/unit/engine/rooms/access-code-cost.test.ts proves; the cost is read from each hash.
 */
const fixtureCodeCost: AccessCodeCost = { N: 16, r: 1, p: 1 };

export const optional: WaitingRoomPolicy = { waitingRoom: 'optional', waitingRoomMode: null };

export interface FixtureOptions {
  readonly policy?: WaitingRoomPolicy;
  readonly meetings?: Partial<MeetingOptions>;
  /** When queued writes are committed (the group commit); queueMicrotask unless a test drives it. */
  readonly defer?: AsyncDefer;
  readonly waiting?: WaitingRoomOptions;
  /** What the daemon's metrics count (knocks, decisions). */
  readonly counter?: WaitingCounter;
}

/** The services over a memory store and a fake clock; `restart()` rebuilds them on the same store, as after kill -9. */
export class Fixture {
  readonly clock = new FakeClock();
  readonly store = new MemoryStore();
  /** What the services logged: a failing listener shows here, never as a thrown error. */
  readonly log = new RecordingLog();
  /** The store's asynchronous unit of work: a failed unit puts the tables back across its awaits. */
  readonly unit = new MemoryUnitOfWork(this.store);
  transactions!: AsyncTransactions;
  meetings!: MeetingService;
  waiting!: WaitingRoomService;

  constructor(private readonly options: FixtureOptions = {}) {
    this.restart();
  }

  restart(policy?: WaitingRoomPolicy): void {
    // Knocks queued in one synchronous stretch of a test share a commit, as in one turn of the daemon's loop.
    this.transactions = new AsyncTransactions(
      this.unit,
      new AsyncLocalStorage(),
      this.options.defer ?? ((run) => queueMicrotask(() => void run())),
    );
    // What the services read at start, read here at once (the memory store answers synchronously), so a restart is synchronous.
    const open = this.store.openMeetings();
    const participants = new Map<string, Participant[]>(
      open.map((m) => [m.meetingId, this.store.participantsOf(m.meetingId)]),
    );
    const pollable = new Map<string, WaitingRequest[]>(
      open.map((m) => [m.meetingId, this.store.pollableRequests(m.meetingId)]),
    );
    this.meetings = new MeetingService(
      asyncOf(this.store),
      this.transactions,
      this.clock,
      { log: this.log, ...this.options.meetings },
      { meetings: open, participants },
    );
    this.waiting = new WaitingRoomService(
      {
        rooms: asyncOf(this.store),
        meetings: this.meetings,
        transactions: this.transactions,
        store: asyncOf(this.store),
        turns: new KeyedQueue(new AsyncLocalStorage(), () => this.transactions.inside),
        clock: this.clock,
        policy: policy ?? this.options.policy ?? optional,
        log: this.log,
        ...(this.options.counter ? { counter: this.options.counter } : {}),
      },
      this.options.waiting,
      pollable,
    );
  }

  room(fields: Partial<Omit<Room, 'accessCodeHash'>> & { accessCode?: string } = {}): Room {
    const { accessCode, ...rest } = fields;
    const room: Room = {
      roomId: 'r1',
      name: 'Room one',
      waitingRoom: 'all',
      waitingRoomMode: 'approval',
      waitingRoomTimeoutSecs: 600,
      moderatorLinkTtlSecs: 10_368_000,
      accessCodeHash: accessCode ? hashAccessCode(accessCode, fixtureCodeCost) : null,
      parentRoomId: null,
      entry: 'open',
      unlisted: false,
      moderatorSuccession: false,
      ephemeral: false,
      micsOffOnEntry: false,
      ownerAccountId: null,
      createdAt: this.clock.now().toISOString(),
      updatedAt: this.clock.now().toISOString(),
      ...rest,
    };
    this.store.rooms.set(room.roomId, room);
    return room;
  }

  /**
   * A moderator present in the room; returns the participant. She enters as `start` lets a
   * moderator in (never waiting, no code), without its screening.
   */
  moderator(roomId = 'r1', name = 'Mod'): Promise<Participant> {
    return this.transactions.atomically(async () =>
      this.meetings.join(await this.meetings.ensure(roomId), 'moderator', name),
    );
  }

  /** A bare-link guest knocks and must wait; returns the request id and secret. */
  async knock(
    name = 'Guest',
    roomId = 'r1',
    extra: Partial<Arrival> = {},
  ): Promise<{ requestId: string; secret: string }> {
    const result: KnockResult = await this.waiting.knock(arrive(roomId, name, extra));
    if (result.status !== 'waiting') throw new Error(`expected to wait, got ${result.status}`);
    return { requestId: result.requestId, secret: result.secret };
  }

  async kinds(roomId = 'r1'): Promise<string[]> {
    return (await this.meetings.timeline(roomId)).map((e) => e.kind);
  }
}

export function claims(role: JoinClaims['role'], source: JoinClaims['source'] = 'link', name?: string): JoinClaims {
  return { role, source, ...(name === undefined ? {} : { name }) };
}

export function arrive(roomId: string, name: string, extra: Partial<Arrival> = {}): Arrival {
  return { roomId, name, clientKey: '203.0.113.7', ...extra };
}

export const api = (name = 'lms-integration') => ({ kind: 'api', name }) as const;
export const by = (participantId: string) => ({ kind: 'participant', participantId }) as const;
