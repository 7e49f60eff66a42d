import { AsyncLocalStorage } from 'node:async_hooks';
import { KeyedQueue } from '../../src/engine/keyed-queue.js';
import type { ChatEntry, ChatStore } from '../../src/engine/live/chat-log.js';
import { ChatLog } from '../../src/engine/live/chat-log.js';
import type { LockSettings, LockStore } from '../../src/engine/live/meeting-locks.js';
import { MeetingLocks } from '../../src/engine/live/meeting-locks.js';
import type { SubgroupTimerRow, SubgroupTimerStore } from '../../src/engine/live/subgroup-timer.js';
import type { GroupMessageRow, GroupMessageStore } from '../../src/engine/live/subgroups.js';
import { EngineError } from '../../src/engine/errors.js';
import type { UnitOfWork } from '../../src/engine/unit-of-work.js';
import type { Participant } from '../../src/engine/meetings/meeting.js';
import type { Room } from '../../src/engine/rooms/room.js';
import {
  MeetingStats,
  type StatsRecord,
  type StatsStore,
  type WebcamInterval,
} from '../../src/engine/stats/meeting-stats.js';
import type { IceCredentials } from '../../src/engine/live/ice-renewal.js';
import type { AsyncDefer } from '../../src/engine/async-group-commit.js';
import { LiveHub } from '../../src/engine/live/live-hub.js';
import type { LiveOptions } from '../../src/engine/live/live-options.js';
import type { LiveSession, Outbox } from '../../src/engine/live/outbox.js';
import { parseClientMessage } from '../../src/http/live/client-messages.js';
import { MeshSignallingRelay } from '../../src/media/mesh-relay.js';
import type { ServerMessage } from '../../src/protocol/live.js';
import type { MediaBackendFactory } from '../../src/engine/live/media-port.js';
import { asyncOf } from './async-of.js';
import { FakeScheduler } from './fake-clock.js';
import { Fixture, type FixtureOptions } from './engine-fixture.js';

/** Chat, locks, statistics and sub-group timers in plain arrays and maps, copied in and out like a database, with its unit of work. */
export class MemoryLiveStore
  implements ChatStore, LockStore, StatsStore, SubgroupTimerStore, GroupMessageStore, UnitOfWork<'async'>
{
  readonly chat: ChatEntry[] = [];
  readonly timers = new Map<string, string>();
  readonly groupMessagesKept = new Map<string, { readonly text: string; readonly from: string }>();
  readonly locks = new Map<string, LockSettings>();
  readonly stats = new Map<string, StatsRecord>();
  readonly webcams: (WebcamInterval & { meetingId: string })[] = [];
  writes = 0;
  transactions = 0;

  /** Its unit of work (the statistics'): counted; a memory store has nothing to commit. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.transactions++;
    return fn();
  }

  appendChat(entry: ChatEntry): void {
    this.writes++;
    this.chat.push({ ...entry });
  }

  recentChat(meetingId: string, limit: number): ChatEntry[] {
    return this.chat
      .filter((e) => e.meetingId === meetingId)
      .slice(-limit)
      .map((e) => ({ ...e }));
  }

  getLocks(meetingId: string): LockSettings | null {
    const locks = this.locks.get(meetingId);
    return locks ? { ...locks } : null;
  }

  saveLocks(meetingId: string, locks: LockSettings): void {
    this.writes++;
    this.locks.set(meetingId, { ...locks });
  }

  getStats(participantId: string): StatsRecord | null {
    const record = this.stats.get(participantId);
    return record ? { ...record } : null;
  }

  saveStats(record: StatsRecord): void {
    this.writes++;
    this.stats.set(record.participantId, { ...record });
  }

  statsOf(meetingId: string): StatsRecord[] {
    return [...this.stats.values()].filter((r) => r.meetingId === meetingId).map((r) => ({ ...r }));
  }

  unsettledStats(): StatsRecord[] {
    return [...this.stats.values()].filter((r) => r.audio || r.video || r.talkingSince !== null).map((r) => ({ ...r }));
  }

  openWebcam(meetingId: string, participantId: string, startedAt: string): void {
    this.writes++;
    this.webcams.push({ meetingId, participantId, startedAt, endedAt: null });
  }

  closeWebcam(participantId: string, endedAt: string): void {
    for (const [i, w] of this.webcams.entries()) {
      if (w.participantId === participantId && w.endedAt === null) this.webcams[i] = { ...w, endedAt };
    }
  }

  subgroupTimers(): SubgroupTimerRow[] {
    return [...this.timers].map(([roomId, endsAt]) => ({ roomId, endsAt }));
  }

  saveSubgroupTimer(roomId: string, endsAt: string | null): void {
    this.writes++;
    if (endsAt === null) this.timers.delete(roomId);
    else this.timers.set(roomId, endsAt);
  }

  groupMessages(): GroupMessageRow[] {
    return [...this.groupMessagesKept].map(([roomId, m]) => ({ roomId, ...m }));
  }

  saveGroupMessage(roomId: string, message: { readonly text: string; readonly from: string } | null): void {
    this.writes++;
    if (message === null) this.groupMessagesKept.delete(roomId);
    else this.groupMessagesKept.set(roomId, message);
  }

  webcamsOf(meetingId: string): WebcamInterval[] {
    return this.webcams
      .filter((w) => w.meetingId === meetingId)
      .map(({ participantId, startedAt, endedAt }) => ({ participantId, startedAt, endedAt }));
  }
}

/** A connection's outbox as the hub sees it, recording what it was sent and how it was closed. */
export class FakeConnection implements Outbox {
  readonly sent: ServerMessage[] = [];
  closedWith: { code: number; reason: string } | null = null;
  failing = false;

  send(message: ServerMessage): void {
    if (this.failing) throw new Error('socket broken');
    if (this.closedWith) throw new Error(`send after close: ${message.type}`);
    this.sent.push(JSON.parse(JSON.stringify(message)) as ServerMessage);
  }

  close(code: number, reason: string): void {
    this.closedWith ??= { code, reason };
  }

  of<T extends ServerMessage['type']>(type: T): Extract<ServerMessage, { type: T }>[] {
    return this.sent.filter((m) => m.type === type) as Extract<ServerMessage, { type: T }>[];
  }

  last<T extends ServerMessage['type']>(type: T): Extract<ServerMessage, { type: T }> | undefined {
    return this.of(type).at(-1);
  }

  clear(): void {
    this.sent.length = 0;
  }
}

export interface Client {
  readonly participant: Participant;
  readonly conn: FakeConnection;
  readonly session: LiveSession;
  send(message: Record<string, unknown>): void;
}

export interface LiveFixtureOptions extends FixtureOptions {
  readonly live?: LiveOptions;
  readonly media?: MediaBackendFactory;
  readonly ice?: IceCredentials;
  /** When the statistics' group commit runs (the daemon's: setImmediate); none: one transaction per change. */
  readonly statsDefer?: AsyncDefer;
  /** The draw of "assign at random" (default Math.random). */
  readonly random?: () => number;
}

/**
 * The hub over the engine's in-memory fixture: fake clock, fake timers, memory stores, fake
 * sockets. Rooms default to r1 without a waiting room.
 */
export class LiveFixture {
  readonly engine: Fixture;
  readonly timers: FakeScheduler;
  readonly liveStore = new MemoryLiveStore();
  /** What the engine and the hub logged (a failing listener, timer or socket event), by event. */
  get errors(): { err: unknown; context: string }[] {
    return this.engine.log.entries.map((entry) => ({ err: entry.err, context: entry.event }));
  }
  stats!: MeetingStats;
  hub!: LiveHub;

  constructor(private readonly options: LiveFixtureOptions = {}) {
    this.engine = new Fixture(options);
    this.timers = new FakeScheduler(this.engine.clock);
    this.engine.room({ waitingRoom: 'off' });
    this.build();
  }

  /** (Re)creates the hub over the current engine services (after `engine.restart()`). */
  build(): void {
    const { engine } = this;
    const store = engine.store;
    this.stats = new MeetingStats(asyncOf(this.liveStore), this.liveStore, engine.clock, this.options.statsDefer);
    this.hub = new LiveHub({
      meetings: engine.meetings,
      transactions: engine.transactions,
      waiting: engine.waiting,
      rooms: {
        find: async (roomId) => store.rooms.get(roomId) ?? null,
        create: async (body) => {
          const fields = body as { room_id: string; name: string; parent_room_id?: string };
          if (store.rooms.has(fields.room_id))
            throw new EngineError('room_exists', `room ${fields.room_id} exists`, 'room_id');
          return engine.room({
            roomId: fields.room_id,
            name: fields.name,
            waitingRoom: 'off',
            parentRoomId: fields.parent_room_id ?? null,
          });
        },
        update: async (roomId, body) => {
          const room = store.rooms.get(roomId);
          if (!room) throw new EngineError('room_not_found', `no room ${roomId}`);
          const next = { ...room, name: body.name ?? room.name };
          store.rooms.set(roomId, next);
          return next;
        },
      },
      roomOf: (roomId) => store.rooms.get(roomId) ?? null,
      turns: new KeyedQueue(new AsyncLocalStorage()),
      subgroupTimers: asyncOf(this.liveStore),
      random: this.options.random ?? Math.random,
      subgroupsOf: (roomId) => [...store.rooms.values()].filter((r) => r.parentRoomId === roomId).map((r) => r.roomId),
      chat: new ChatLog(asyncOf(this.liveStore), engine.clock),
      locks: new MeetingLocks(asyncOf(this.liveStore), engine.clock),
      stats: this.stats,
      clock: engine.clock,
      log: engine.log,
      scheduler: this.timers,
      // As the daemon wires it, unless a test brings its own backend.
      media: this.options.media ?? ((context) => new MeshSignallingRelay(context)),
      ...(this.options.live ? { options: this.options.live } : {}),
      ...(this.options.ice ? { ice: this.options.ice } : {}),
    });
  }

  room(fields: Partial<Omit<Room, 'accessCodeHash'>> = {}): Room {
    return this.engine.room({ waitingRoom: 'off', ...fields });
  }

  /** Someone enters the room (as moderator with `moderator: true`). */
  enter(name: string, roomId = 'r1', moderator = false): Promise<Participant> {
    // As `start` lets her into a room without a waiting room, without its screening.
    const meetings = this.engine.meetings;
    return this.engine.transactions.atomically(async () =>
      meetings.join(await meetings.ensure(roomId), moderator ? 'moderator' : 'participant', name),
    );
  }

  /** Opens a socket for the participant, once its welcome was sent; rejects if the hub refused it. */
  async connect(participant: Participant): Promise<Client> {
    const conn = new FakeConnection();
    const session = this.hub.connect(
      {
        room: participant.roomId,
        meeting: participant.meetingId,
        participant: participant.participantId,
        role: participant.role,
        name: participant.name,
      },
      conn,
    );
    if (!session) throw new Error(`connect refused at once: ${JSON.stringify(conn.closedWith)}`);
    // The welcome is the socket's first task and awaits the store.
    await this.settled();
    if (conn.closedWith && !conn.sent.some((m) => m.type === 'welcome'))
      throw new Error(`connect refused: ${JSON.stringify(conn.closedWith)}`);
    return {
      participant,
      conn,
      session,
      send: (message) => session.receive(parseClientMessage(JSON.stringify(message))),
    };
  }

  /** Once the messages sent so far were handled, those that await the store included (a rename, the subject). */
  settled(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** The client's socket closes (from either side). */
  disconnect(client: Client): void {
    client.session.closed();
  }

  /**
   * The scene of the away rules: Ann and a moderator in r1, one sub-group r1-g1, Ann moved to
   * it, and her class socket closed as her page follows the move.
   */
  async annMovedAway(): Promise<{ ann: Participant; mod: Client }> {
    const ann = await this.enter('Ann');
    const mod = await this.connect(await this.enter('Mod', 'r1', true));
    const a = await this.connect(ann);
    mod.send({ type: 'create_subgroups', count: 1 });
    await this.settled();
    mod.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1-g1' });
    await this.settled();
    this.disconnect(a);
    return { ann, mod };
  }

  leftAt(participant: Participant): string | null | undefined {
    return this.engine.store.participants.get(participant.participantId)?.leftAt;
  }
}
