// Issue 35 stage 2: a room's lease, on PostgreSQL (a fresh database per test) and in the memory
// fake service tests use, held to one contract: a claim takes a free room at epoch 1, keeps the
// epoch for its owner, is refused while a live owner holds an unexpired lease, and takes the room
// at the next epoch once the lease expired, the owner died (its session lock freed: at once) or
// released it; two nodes racing win one epoch once; a room that does not exist gets no lease.
// The rooms with an open meeting that no lease names are listed (stage 3), in pages.
import t, { type Test } from 'tap';
import { leaseMs, type LeaseStore } from '../../../src/engine/cluster/leases.js';
import { aliveWithinMs, isAlive, type NodeRecord, type NodeRegistry } from '../../../src/engine/cluster/nodes.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../../src/platform/postgres.js';
import { PostgresNodeLock } from '../../../src/store/postgres/node-lock.js';
import { PostgresNodeRegistry } from '../../../src/store/postgres/node-registry.js';
import { PostgresLeaseStore } from '../../../src/store/postgres/room-leases.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { MemoryLeaseStore } from '../../helpers/memory-leases.js';
import { MemoryNodeRegistry } from '../../helpers/memory-nodes.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

interface World {
  readonly leases: LeaseStore;
  readonly registry: NodeRegistry;
  /** Makes a room (a lease goes only with a room), a sub-group of `parent` when given. */
  room(roomId: string, parent?: string): Promise<void>;
  /** Opens a meeting in the room. */
  openMeeting(roomId: string): Promise<void>;
  /** Holds the node's session lock on a connection of its own. */
  lock(nodeId: string): Promise<void>;
  /** Ends that connection, as a killed process's ends. */
  kill(nodeId: string): Promise<void>;
  /** A second store on another pool, for races. */
  other(): LeaseStore;
}

async function postgresWorld(t: Test): Promise<World> {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const pool = (max: number): Sql => {
    const sql = openPostgres(target, { max, statementTimeoutMs: 5000, schema: engineSchema });
    t.teardown(() => sql.end({ timeout: 5 }));
    return sql;
  };
  const sql = pool(3);
  await migratePostgres(sql, engineSchema, engineMigrationSteps());
  const locks = new Map<string, Sql>();
  return {
    leases: new PostgresLeaseStore(sql),
    registry: new PostgresNodeRegistry(sql),
    async room(roomId, parent) {
      await sql`INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at, parent_room_id)
        VALUES (${roomId}, 'Room', 'off', 'approval', 600, '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z', ${parent ?? null})`;
    },
    async openMeeting(roomId) {
      await sql`INSERT INTO meetings (meeting_id, room_id, started_at) VALUES (${`m-${roomId}`}, ${roomId}, '2030-01-01T00:00:00Z')`;
    },
    async lock(nodeId) {
      const own = pool(1);
      locks.set(nodeId, own);
      t.ok(await PostgresNodeLock.take(own, nodeId), `${nodeId} holds its lock`);
    },
    async kill(nodeId) {
      await locks.get(nodeId)!.end({ timeout: 1 });
    },
    other: () => new PostgresLeaseStore(pool(2)),
  };
}

function memoryWorld(): World {
  const registry = new MemoryNodeRegistry();
  const rooms = new Map<string, string | null>();
  const open = new Set<string>();
  const records = new Map<string, NodeRecord>();
  // The registry answers asynchronously; the fake reads a copy the test keeps current.
  const refresh = async () => {
    for (const node of await registry.list()) records.set(node.nodeId, node);
  };
  const leases = new MemoryLeaseStore(
    (roomId) => rooms.has(roomId),
    (nodeId, aliveSince) => {
      const node = records.get(nodeId);
      return node !== undefined && node.goneAt === null && node.lastBeatAt > aliveSince && node.lockFreed !== true;
    },
    () => [...open].map((roomId) => rooms.get(roomId) ?? roomId),
  );
  const wrapped = new Proxy(leases, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await refresh();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    leases: wrapped,
    registry,
    room: (roomId, parent) => Promise.resolve(void rooms.set(roomId, parent ?? null)),
    openMeeting: (roomId) => Promise.resolve(void open.add(roomId)),
    lock: () => Promise.resolve(),
    kill: (nodeId) => Promise.resolve(registry.freeLock(nodeId)),
    other: () => wrapped,
  };
}

const worlds: [string, (t: Test) => Promise<World>][] = [
  ['memory', () => Promise.resolve(memoryWorld())],
  ['PostgreSQL', postgresWorld],
];

const since = (now: Date) => new Date(now.getTime() - aliveWithinMs);

async function nodes(world: World, clock: FakeClock, ...ids: string[]) {
  for (const nodeId of ids) {
    const load = { openRooms: 0, liveSockets: 0 };
    await world.registry.register(
      { nodeId, incarnation: `${nodeId}-1`, httpAddress: 'http://127.0.0.1:1', startedAt: clock.now(), load },
      since(clock.now()),
    );
    await world.lock(nodeId);
  }
}

const beat = (world: World, clock: FakeClock, ...ids: string[]) =>
  Promise.all(ids.map((id) => world.registry.beat(id, `${id}-1`, clock.now(), { openRooms: 0, liveSockets: 0 })));

for (const [store, open] of worlds) {
  const test =
    store === 'PostgreSQL' ? postgresTest : (name: string, fn: (t: Test) => Promise<void>) => t.test(name, fn);

  test(`${store}: claim, keep, refuse while held, renew, expire, release`, async (t) => {
    const world = await open(t);
    const clock = new FakeClock();
    await nodes(world, clock, 'web-a', 'web-b');
    await world.room('room-1');
    const { leases } = world;

    const first = await leases.claim('room-1', 'web-a', clock.now(), since(clock.now()));
    t.same(first.won && [first.lease.ownerNode, first.lease.epoch], ['web-a', 1], 'a free room: epoch 1');
    t.same(
      (await leases.claim('room-1', 'web-a', clock.now(), since(clock.now()))).lease?.epoch,
      1,
      'its owner keeps the epoch',
    );
    const refused = await leases.claim('room-1', 'web-b', clock.now(), since(clock.now()));
    t.same([refused.won, refused.lease?.ownerNode, refused.lease?.epoch], [false, 'web-a', 1], 'held by a live node');

    // Renewed on every beat, the lease outlives leaseMs.
    clock.advance(leaseMs - 1000);
    await beat(world, clock, 'web-a', 'web-b');
    t.same(await leases.renew('web-a', [{ roomId: 'room-1', epoch: 1 }], clock.now()), ['room-1']);
    t.same(
      await leases.renew('web-b', [{ roomId: 'room-1', epoch: 1 }], clock.now()),
      [],
      'not the owner: nothing renewed',
    );
    clock.advance(leaseMs - 1000);
    await beat(world, clock, 'web-a', 'web-b');
    t.notOk((await leases.claim('room-1', 'web-b', clock.now(), since(clock.now()))).won, 'still held after renewal');
    t.same(await leases.orphans('web-b', clock.now(), since(clock.now()), 10), []);

    // Not renewed: expired after leaseMs even though its owner still beats.
    clock.advance(leaseMs);
    await beat(world, clock, 'web-a', 'web-b');
    t.same(
      (await leases.orphans('web-b', clock.now(), since(clock.now()), 10)).map((l) => l.roomId),
      ['room-1'],
    );
    const taken = await leases.claim('room-1', 'web-b', clock.now(), since(clock.now()));
    t.same(taken.won && [taken.lease.ownerNode, taken.lease.epoch], ['web-b', 2], 'expired: the next epoch');
    t.same(
      await leases.renew('web-a', [{ roomId: 'room-1', epoch: 1 }], clock.now()),
      [],
      'the old owner renews nothing',
    );

    // A clean stop releases: taken at once, the epoch still grows.
    await leases.release('web-b', [{ roomId: 'room-1', epoch: 2 }], clock.now());
    const back = await leases.claim('room-1', 'web-a', clock.now(), since(clock.now()));
    t.same(back.won && [back.lease.ownerNode, back.lease.epoch], ['web-a', 3]);
    t.same((await leases.get('room-1'))?.epoch, 3);
  });

  test(`${store}: a killed owner's lock frees its rooms at once; a hung one's after its beats stop`, async (t) => {
    const world = await open(t);
    const clock = new FakeClock();
    await nodes(world, clock, 'web-a', 'web-b', 'web-c');
    await world.room('room-1');
    await world.room('room-2');
    const { leases } = world;
    t.ok((await leases.claim('room-1', 'web-a', clock.now(), since(clock.now()))).won);
    t.ok((await leases.claim('room-2', 'web-c', clock.now(), since(clock.now()))).won);
    clock.advance(1000);
    t.notOk((await leases.claim('room-1', 'web-b', clock.now(), since(clock.now()))).won);

    await world.kill('web-a');
    const seen = new Map((await world.registry.list()).map((node) => [node.nodeId, isAlive(node, clock.now())]));
    t.same(Object.fromEntries(seen), { 'web-a': false, 'web-b': true, 'web-c': true }, 'dead in the registry at once');
    t.same(
      (await leases.orphans('web-b', clock.now(), since(clock.now()), 10)).map((l) => l.roomId),
      ['room-1'],
    );
    const taken = await leases.claim('room-1', 'web-b', clock.now(), since(clock.now()));
    t.same(taken.won && [taken.lease.ownerNode, taken.lease.epoch], ['web-b', 2], 'no wait for the lease to run out');

    // web-c hangs: its lock is held but its beats stop; after aliveWithinMs it is dead too.
    clock.advance(aliveWithinMs);
    await beat(world, clock, 'web-b');
    t.same(await leases.renew('web-b', [{ roomId: 'room-1', epoch: 2 }], clock.now()), ['room-1']);
    const hung = await leases.claim('room-2', 'web-b', clock.now(), since(clock.now()));
    t.same(hung.won && hung.lease.epoch, 2);
  });

  test(`${store}: two nodes racing for one room win one epoch once; no lease without a room`, async (t) => {
    const world = await open(t);
    const clock = new FakeClock();
    await nodes(world, clock, 'web-a', 'web-b');
    for (let i = 0; i < 5; i += 1) await world.room(`race-${i}`);
    const other = world.other();
    for (let i = 0; i < 5; i += 1) {
      const [a, b] = await Promise.all([
        world.leases.claim(`race-${i}`, 'web-a', clock.now(), since(clock.now())),
        other.claim(`race-${i}`, 'web-b', clock.now(), since(clock.now())),
      ]);
      t.equal(Number(a.won) + Number(b.won), 1, `race ${i}: one winner`);
      t.same([a.lease?.epoch, b.lease?.epoch], [1, 1]);
      t.equal(a.lease?.ownerNode, b.lease?.ownerNode, 'both name the winner');
    }
    t.same(await world.leases.claim('no-such-room', 'web-a', clock.now(), since(clock.now())), {
      won: false,
      lease: null,
    });
    t.equal(await world.leases.get('no-such-room'), null, 'no row for a room nobody made');
  });

  test(`${store}: the main rooms with an open meeting and no lease, in pages`, async (t) => {
    const world = await open(t);
    const clock = new FakeClock();
    await nodes(world, clock, 'web-a');
    for (const roomId of ['room-1', 'room-2', 'room-3', 'room-4']) await world.room(roomId);
    await world.room('group-2', 'room-2');
    await world.openMeeting('room-1');
    await world.openMeeting('group-2');
    await world.openMeeting('room-4');
    t.same(
      await world.leases.unleased(null, 10),
      ['room-1', 'room-2', 'room-4'],
      "a sub-group's meeting is its main room's",
    );
    t.same(await world.leases.unleased(null, 2), ['room-1', 'room-2']);
    t.same(await world.leases.unleased('room-2', 2), ['room-4'], 'the next page');
    t.ok((await world.leases.claim('room-4', 'web-a', clock.now(), since(clock.now()))).won);
    t.ok((await world.leases.claim('room-3', 'web-a', clock.now(), since(clock.now()))).won);
    t.same(await world.leases.unleased(null, 10), ['room-1', 'room-2'], 'a leased room is not listed');
    await world.leases.release('web-a', [{ roomId: 'room-4', epoch: 1 }], clock.now());
    t.same(await world.leases.unleased(null, 10), ['room-1', 'room-2'], 'nor one released (its row stays)');
  });

  test(`${store}: the rooms each node holds now (meetctl cluster status)`, async (t) => {
    const world = await open(t);
    const clock = new FakeClock();
    await nodes(world, clock, 'web-a', 'web-b', 'web-c');
    for (const roomId of ['room-1', 'room-2', 'room-3', 'room-4']) await world.room(roomId);
    const { leases } = world;
    t.same(Object.fromEntries(await leases.heldPerNode(clock.now())), {}, 'no lease yet');
    for (const [roomId, nodeId] of [
      ['room-1', 'web-a'],
      ['room-2', 'web-a'],
      ['room-3', 'web-b'],
      ['room-4', 'web-c'],
    ] as const)
      t.ok((await leases.claim(roomId, nodeId, clock.now(), since(clock.now()))).won);
    t.same(Object.fromEntries(await leases.heldPerNode(clock.now())), { 'web-a': 2, 'web-b': 1, 'web-c': 1 });
    await leases.release('web-c', [{ roomId: 'room-4', epoch: 1 }], clock.now());
    clock.advance(leaseMs - 1000);
    await beat(world, clock, 'web-a', 'web-b');
    await leases.renew('web-a', [{ roomId: 'room-1', epoch: 1 }], clock.now());
    clock.advance(1000);
    t.same(
      Object.fromEntries(await leases.heldPerNode(clock.now())),
      { 'web-a': 1 },
      'released and expired leases are not counted, renewed ones are',
    );
  });
}
