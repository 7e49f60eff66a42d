// Issue 35 stage 2, the epoch fence: on a clustered node every write of a room's state checks,
// inside its transaction, that the node still holds the room's lease at the epoch it claimed.
// Node A claims a room (epoch 1), B takes it over (epoch 2): A's writes are refused with
// lease_lost and leave no row, B's land; a sub-group's writes are fenced by its main room's
// lease; a room no lease names is written as before; without a fence (one node) nothing is checked.
// Stage 3: a webcam interval's close (by participant) and the meeting API's rows of the room (its
// meeting record, its chat) are fenced the same way.
import t, { type Test } from 'tap';
import { LeaseLostError, type LeaseStore, type RoomFence } from '../../../src/engine/cluster/leases.js';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import type { Meeting } from '../../../src/engine/meetings/meeting.js';
import type { Room } from '../../../src/engine/rooms/room.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../../src/platform/postgres.js';
import { PostgresNodeRegistry } from '../../../src/store/postgres/node-registry.js';
import { PostgresLeaseStore } from '../../../src/store/postgres/room-leases.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { compatMigrationSteps, compatSchema } from '../../../src/compat/store/postgres-schema.js';
import { PostgresCompatStore } from '../../../src/compat/store/postgres-store.js';
import { meeting as compatMeeting } from '../../helpers/compat-meeting.js';
import { postgresStores } from '../../../src/store/postgres/stores.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';

const at = '2030-01-01T09:00:00.000Z';
const room = (roomId: string, parentRoomId: string | null = null): Room => ({
  ...waitingRoomFixture(roomId),
  parentRoomId,
});
const meeting = (meetingId: string, roomId: string): Meeting => ({
  meetingId,
  roomId,
  startedAt: at,
  endedAt: null,
  waitingDisabled: false,
  subject: '',
});

/** A node's view of the leases it holds: what its ownership keeps, by hand here. */
class Held implements RoomFence {
  readonly epochs = new Map<string, number>();
  constructor(readonly nodeId: string) {}
  readonly lostRooms: string[] = [];
  epochOf(roomId: string): number | undefined {
    return this.epochs.get(roomId);
  }
  lost(roomId: string): void {
    this.lostRooms.push(roomId);
  }
}

async function cluster(t: Test) {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const pool = (): Sql => {
    const sql = openPostgres(target, { max: 3, statementTimeoutMs: 5000, schema: engineSchema });
    t.teardown(() => sql.end({ timeout: 5 }));
    return sql;
  };
  const admin = pool();
  await migratePostgres(admin, engineSchema, engineMigrationSteps());
  await migratePostgres(admin, compatSchema, compatMigrationSteps());
  const clock = new FakeClock();
  const registry = new PostgresNodeRegistry(admin);
  const node = async (nodeId: string) => {
    await registry.register(
      {
        nodeId,
        incarnation: nodeId,
        httpAddress: 'http://127.0.0.1:1',
        startedAt: clock.now(),
        load: { openRooms: 0, liveSockets: 0 },
      },
      new Date(clock.now().getTime() - aliveWithinMs),
    );
    const held = new Held(nodeId);
    const stores = postgresStores(pool());
    stores.unitOfWork.fenceWith(held);
    return { held, stores };
  };
  return { admin, clock, node, leases: new PostgresLeaseStore(admin) as LeaseStore };
}

const claim = async (leases: LeaseStore, clock: FakeClock, roomId: string, node: { held: Held }) => {
  const answer = await leases.claim(
    roomId,
    node.held.nodeId,
    clock.now(),
    new Date(clock.now().getTime() - aliveWithinMs),
  );
  if (answer.won) node.held.epochs.set(roomId, answer.lease.epoch);
  return answer;
};

postgresTest('A claims (epoch 1), B takes over (epoch 2): A is refused and writes nothing, B writes', async (t) => {
  const { admin, clock, node, leases } = await cluster(t);
  const a = await node('web-a');
  const b = await node('web-b');
  t.ok(await a.stores.rooms.insert(room('room-1')), 'a room no lease names: written');
  t.ok(await a.stores.rooms.insert(room('group-1', 'room-1')));
  t.same((await claim(leases, clock, 'room-1', a)).lease?.epoch, 1);
  await a.stores.unitOfWork.run(() => a.stores.meetings.insertMeeting(meeting('m-a1', 'room-1')));
  t.notOk((await claim(leases, clock, 'room-1', b)).won, 'held by a live node');
  await t.rejects(
    b.stores.unitOfWork.run(() => b.stores.meetings.insertMeeting(meeting('m-b0', 'room-1'))),
    LeaseLostError,
    'a node that never held the room cannot write it',
  );

  // A's lease runs out (it hung); B takes the room at the next epoch. A still believes epoch 1.
  clock.advance(aliveWithinMs + 1);
  t.same((await claim(leases, clock, 'room-1', b)).lease?.epoch, 2);
  const refused = await a.stores.unitOfWork
    .run(async () => {
      await a.stores.meetings.appendTimeline({
        meetingId: 'm-a1',
        at,
        kind: 'meeting_ended',
        actor: null,
        subject: null,
        count: null,
        skipped: null,
      } as never);
      await a.stores.meetings.updateMeeting({ ...meeting('m-a1', 'room-1'), endedAt: at });
    })
    .then(
      () => null,
      (err: unknown) => err,
    );
  t.ok(refused instanceof LeaseLostError, 'the stale owner is refused');
  t.equal((refused as LeaseLostError).code, 'lease_lost');
  t.same(a.held.lostRooms, ['room-1'], 'the node is told it lost the room');
  await t.rejects(
    a.stores.rooms.update({ ...room('group-1', 'room-1'), name: 'Stale' }),
    LeaseLostError,
    'a sub-group is its main room',
  );
  await t.rejects(a.stores.rooms.update({ ...room('room-1'), name: 'Stale' }), LeaseLostError, 'outside a unit too');
  const rows = await admin`SELECT ended_at FROM meetings WHERE meeting_id = 'm-a1'`;
  t.same(
    rows.map((r) => r.ended_at),
    [null],
    'nothing of the refused unit was written',
  );
  t.same((await admin`SELECT count(*)::int AS n FROM timeline_entries`)[0]!.n, 0);
  t.same(
    (await admin`SELECT name FROM rooms ORDER BY room_id`).map((r) => r.name),
    ['Room group-1', 'Room room-1'],
  );

  await b.stores.unitOfWork.run(async () => {
    await b.stores.meetings.updateMeeting({ ...meeting('m-a1', 'room-1'), endedAt: at });
    await b.stores.rooms.update({ ...room('group-1', 'room-1'), name: 'Group one' });
  });
  t.same((await admin`SELECT ended_at FROM meetings WHERE meeting_id = 'm-a1'`)[0]!.ended_at, at, "B's write lands");
  t.same((await admin`SELECT name FROM rooms WHERE room_id = 'group-1'`)[0]!.name, 'Group one');
});

postgresTest("a webcam's close and the meeting API's rows of a room another node took over are refused", async (t) => {
  const { admin, clock, node, leases } = await cluster(t);
  const a = await node('web-a');
  const b = await node('web-b');
  const compatA = new PostgresCompatStore(a.stores.unitOfWork);
  const compatB = new PostgresCompatStore(b.stores.unitOfWork);
  const record = compatMeeting('t1', 'lesson', 1000, { roomId: 'room-1' });
  await a.stores.rooms.insert(room('room-1'));
  await claim(leases, clock, 'room-1', a);
  await compatA.insertMeeting(record);
  await a.stores.unitOfWork.run(async () => {
    await a.stores.meetings.insertMeeting(meeting('m-1', 'room-1'));
    await a.stores.meetings.insertParticipant({
      participantId: 'p-1',
      meetingId: 'm-1',
      roomId: 'room-1',
      role: 'participant',
      name: 'Ada',
      joinedAt: at,
      leftAt: null,
    });
    await a.stores.stats.openWebcam('m-1', 'p-1', at);
  });
  const chat = { internalId: record.internalId, at: 1, sender: 'System', text: 'hello', delivered: true };
  await compatA.appendChat(chat);

  clock.advance(aliveWithinMs + 1);
  t.same((await claim(leases, clock, 'room-1', b)).lease?.epoch, 2, 'B takes the room over');
  const late = '2030-01-01T09:30:00.000Z';
  await t.rejects(a.stores.stats.closeWebcam('p-1', late), LeaseLostError, "A's close of her webcam is refused");
  await t.rejects(compatA.updateMeeting({ ...record, endTime: 2000 }), LeaseLostError, "A's end of the meeting");
  await t.rejects(compatA.appendChat({ ...chat, text: 'stale' }), LeaseLostError, "A's chat record");
  await t.rejects(compatA.deleteMeeting(record.internalId), LeaseLostError, "A's delete");
  await t.rejects(
    compatA.insertMeeting(compatMeeting('t1', 'again', 3000, { roomId: 'room-1' })),
    LeaseLostError,
    'a new record in that room',
  );
  t.same(
    (await admin`SELECT ended_at FROM webcam_intervals`).map((r) => r.ended_at),
    [null],
    'nothing written',
  );
  t.same(
    (await admin`SELECT end_time FROM meet_compat.compat_meetings`).map((r) => r.end_time),
    [null],
  );
  t.same(
    (await admin`SELECT text FROM meet_compat.compat_chat`).map((r) => r.text),
    ['hello'],
  );

  await b.stores.stats.closeWebcam('p-1', late);
  await compatB.updateMeeting({ ...record, endTime: 2000 });
  await compatB.appendChat({ ...chat, text: 'from B' });
  t.same(
    (await admin`SELECT ended_at FROM webcam_intervals`).map((r) => r.ended_at),
    [late],
    "B's writes land",
  );
  t.same(
    (await admin`SELECT end_time::int AS e FROM meet_compat.compat_meetings`).map((r) => r.e),
    [2000],
  );
  t.same(
    (await admin`SELECT text FROM meet_compat.compat_chat ORDER BY at, text`).map((r) => r.text),
    ['from B', 'hello'].sort(),
  );
  // A meeting record of a room nobody serves yet (a create before anyone entered) is written as before.
  await compatA.insertMeeting(compatMeeting('t1', 'new', 4000, { roomId: 'room-new' }));
  t.equal((await admin`SELECT count(*)::int AS n FROM meet_compat.compat_meetings`)[0]!.n, 2);
});

postgresTest('without a fence (one node) nothing is checked and no lease is written', async (t) => {
  const { admin } = await cluster(t);
  const stores = postgresStores(admin);
  await stores.rooms.insert(room('room-1'));
  await stores.unitOfWork.run(() => stores.meetings.insertMeeting(meeting('m-1', 'room-1')));
  t.same((await admin`SELECT count(*)::int AS n FROM meetings`)[0]!.n, 1);
  t.same((await admin`SELECT count(*)::int AS n FROM room_leases`)[0]!.n, 0);
});

t.test('LeaseLostError names the rooms', async (t) => {
  t.match(new LeaseLostError(['room-1']).message, /room-1/);
});
