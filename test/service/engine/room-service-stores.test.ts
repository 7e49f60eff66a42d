// Issue 34 point 2, stage 2: RoomService on the asynchronous room store, once per store (SQLite
// behind the asynchronous port, and a throwaway PostgreSQL): a chosen id that is taken is
// room_exists and a drawn one is drawn again, a sub-group's parent is checked, an update, a hand
// over that takes the sub-groups along, keyset pages, a delete that cascades to the sub-groups and
// drops each one's live state, and the expiry of unused ephemeral rooms.
import t from 'tap';
import { RoomService } from '../../../src/engine/rooms/room-service.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;
const hour = 3_600_000;

onEachStore('rooms: create, sub-groups, update, hand over, pages, delete, expiry', async (t, stores) => {
  const clock = new FakeClock();
  const deleted: string[] = [];
  const drawn = ['abc-defg-hij', 'abc-defg-hij', 'klm-nopq-rst'];
  const rooms = new RoomService(
    stores.rooms,
    clock,
    policy,
    (roomId) => deleted.push(roomId),
    () => drawn.shift()!,
  );

  t.equal((await rooms.create({ name: 'Maths' })).roomId, 'abc-defg-hij', 'no id given: the drawn one');
  t.equal((await rooms.create({ name: 'Physics' })).roomId, 'klm-nopq-rst', 'a taken id is drawn again');
  await t.rejects(rooms.create({ room_id: 'abc-defg-hij', name: 'Again' }), { code: 'room_exists', field: 'room_id' });
  await t.rejects(rooms.create({ room_id: 'orphan', name: 'Orphan', parent_room_id: 'nowhere' }), {
    code: 'invalid_field',
    field: 'parent_room_id',
  });
  await rooms.create({ room_id: 'maths-a', name: 'Group A', parent_room_id: 'abc-defg-hij' });
  await t.rejects(rooms.create({ room_id: 'maths-a-1', name: 'Too deep', parent_room_id: 'maths-a' }), {
    code: 'invalid_field',
    field: 'parent_room_id',
  });

  clock.advance(1000);
  const renamed = await rooms.update('abc-defg-hij', { name: 'Maths 2' });
  t.equal(renamed.name, 'Maths 2');
  t.equal((await rooms.get('abc-defg-hij')).name, 'Maths 2', 'the update is stored');
  await t.rejects(rooms.update('abc-defg-hij', { room_id: 'other' }), { code: 'invalid_field', field: 'room_id' });
  await t.rejects(rooms.get('missing'), { code: 'room_not_found' });
  t.equal(await rooms.find('missing'), null);
  t.equal(await rooms.find('not a room id!'), null, 'an id that cannot be one is not looked up');

  const at = clock.now().toISOString();
  await stores.accounts.insert({
    accountId: 'acct-1',
    email: 'ana@example.org',
    name: 'Ana',
    admin: false,
    disabled: false,
    source: 'local',
    passwordHash: null,
    createdAt: at,
    updatedAt: at,
  });
  t.equal((await rooms.handOver('abc-defg-hij', 'acct-1')).ownerAccountId, 'acct-1');
  t.equal((await rooms.get('maths-a')).ownerAccountId, 'acct-1', 'the sub-group follows its parent');
  await t.rejects(rooms.handOver('maths-a', 'acct-2'), { code: 'invalid_field', field: 'owner_email' });

  const first = await rooms.list({ limit: '2' });
  t.same(
    first.rooms.map((r) => r.roomId),
    ['abc-defg-hij', 'klm-nopq-rst'],
  );
  const second = await rooms.list({ limit: '2', cursor: first.nextCursor! });
  t.same(
    second.rooms.map((r) => r.roomId),
    ['maths-a'],
  );
  t.equal(second.nextCursor, null);
  t.same(
    (await rooms.list({}, 'acct-1')).rooms.map((r) => r.roomId),
    ['abc-defg-hij', 'maths-a'],
    "an organiser's rooms only",
  );

  await rooms.delete('abc-defg-hij');
  t.same(deleted, ['abc-defg-hij', 'maths-a'], 'the room and its sub-group are dropped from memory');
  t.equal(await rooms.find('maths-a'), null, 'the sub-group went with it');
  await t.rejects(rooms.delete('abc-defg-hij'), { code: 'room_not_found' });

  await rooms.create({ room_id: 'open-1', name: 'Open', waiting_room: 'off' }, { ephemeral: true });
  clock.advance(2 * hour);
  t.same(await rooms.expireUnused(hour), ['open-1'], 'an ephemeral room unused for the idle time goes');
  t.same(deleted.at(-1), 'open-1');
  t.ok(await rooms.find('klm-nopq-rst'), 'a room that is not ephemeral stays');
});

t.pass('both stores listed');
