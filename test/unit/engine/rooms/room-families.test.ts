// The live hub's family reads come from memory (engine/rooms/room-families.ts): loaded with one
// query, then kept by the writes of the port it wraps, so what the hub reads is what the store holds.
import t from 'tap';
import type { AsyncRoomStore } from '../../../../src/engine/async-ports.js';
import type { Room } from '../../../../src/engine/rooms/room.js';
import { RoomFamilies } from '../../../../src/engine/rooms/room-families.js';
import { waitingRoomFixture } from '../../../helpers/room-fixture.js';

const room = (roomId: string, fields: Partial<Room> = {}): Room => ({ ...waitingRoomFixture(roomId), ...fields });

/** Rooms in a map, with the store's cascade and families query. */
function memoryRooms(): AsyncRoomStore & { rooms: Map<string, Room> } {
  const rooms = new Map<string, Room>();
  const childrenOf = (id: string) => [...rooms.values()].filter((r) => r.parentRoomId === id).map((r) => r.roomId);
  return {
    rooms,
    insert: async (r) => (rooms.has(r.roomId) ? false : (rooms.set(r.roomId, r), true)),
    get: async (id) => rooms.get(id) ?? null,
    update: async (r) => void rooms.set(r.roomId, r),
    delete: async (id) => {
      for (const child of childrenOf(id)) rooms.delete(child);
      return rooms.delete(id);
    },
    children: async (id) => childrenOf(id),
    families: async () =>
      [...rooms.values()]
        .filter((r) => r.parentRoomId !== null || childrenOf(r.roomId).length > 0)
        .map((r) => ({ roomId: r.roomId, parentRoomId: r.parentRoomId, name: r.name })),
    list: async () => [...rooms.values()],
    unusedEphemeral: async () => [],
  };
}

t.test('loaded at start: the families the store holds, and nothing of a room alone', async (t) => {
  const store = memoryRooms();
  await store.insert(room('main', { name: 'Main' }));
  await store.insert(room('main-g1', { name: 'G1', parentRoomId: 'main' }));
  await store.insert(room('alone'));
  const families = await RoomFamilies.load(store);
  t.same(families.roomOf('main-g1'), { roomId: 'main-g1', parentRoomId: 'main', name: 'G1' });
  t.same(families.roomOf('main'), { roomId: 'main', parentRoomId: null, name: 'Main' });
  t.same(families.subgroupsOf('main'), ['main-g1']);
  t.equal(families.roomOf('alone'), null, 'a room in no family: no parent');
  t.same(families.subgroupsOf('alone'), []);
});

t.test('kept by the writes: a sub-group made, renamed, its family deleted', async (t) => {
  const store = memoryRooms();
  await store.insert(room('main', { name: 'Main' }));
  const families = await RoomFamilies.load(store);
  const rooms = families.keeping(store);
  t.equal(families.roomOf('main'), null, 'no family yet');
  t.equal(await rooms.insert(room('main-g1', { name: 'G1', parentRoomId: 'main' })), true);
  t.same(
    families.roomOf('main'),
    { roomId: 'main', parentRoomId: null, name: 'Main' },
    'the parent joins with its first group',
  );
  t.same(families.subgroupsOf('main'), ['main-g1']);
  t.equal(await rooms.insert(room('main-g1', { name: 'again', parentRoomId: 'main' })), false);
  t.same(families.roomOf('main-g1')?.name, 'G1', 'a refused insert changes nothing');
  await rooms.update(room('main-g1', { name: 'Renamed', parentRoomId: 'main' }));
  t.equal(families.roomOf('main-g1')?.name, 'Renamed');
  await rooms.update(room('other', { name: 'not in a family' }));
  t.equal(families.roomOf('other'), null, 'an update of a room alone adds nothing');
  await rooms.insert(room('main-g2', { parentRoomId: 'main' }));
  t.equal(await rooms.delete('main-g1'), true);
  t.same(families.subgroupsOf('main'), ['main-g2'], 'one group deleted');
  t.equal(await rooms.delete('main'), true);
  t.equal(families.roomOf('main'), null, 'the family is gone with its room');
  t.equal(families.roomOf('main-g2'), null, 'its sub-groups too (the cascade)');
  t.same(families.subgroupsOf('main'), []);
  t.same(await RoomFamilies.load(store).then((f) => f.subgroupsOf('main')), [], 'as the store says');
});

t.test('the last sub-group deleted: the parent is in no family any more', async (t) => {
  const store = memoryRooms();
  await store.insert(room('main'));
  const families = await RoomFamilies.load(store);
  const rooms = families.keeping(store);
  await rooms.insert(room('main-g1', { parentRoomId: 'main' }));
  await rooms.delete('main-g1');
  t.equal(families.roomOf('main'), null);
  t.same(families.subgroupsOf('main'), []);
});

t.test('rooms written by another process (a cluster node): a sub-group read on its first lookup', async (t) => {
  const store = memoryRooms();
  await store.insert(room('main', { name: 'Main' }));
  await store.insert(room('alone'));
  const families = await RoomFamilies.load(store);
  // Written straight to the store, as another node's writes are: this memory does not see them.
  await store.insert(room('main-g1', { name: 'G1', parentRoomId: 'main' }));
  t.equal(families.roomOf('main-g1'), null, 'not known before it is asked for');
  t.equal(await families.mainRoomOf('main-g1'), 'main', "a sub-group: its main room's id");
  t.same(families.roomOf('main-g1'), { roomId: 'main-g1', parentRoomId: 'main', name: 'G1' }, 'kept from then on');
  t.same(families.roomOf('main'), { roomId: 'main', parentRoomId: null, name: 'Main' }, 'with its parent');
  t.same(families.subgroupsOf('main'), ['main-g1']);
  t.equal(await families.mainRoomOf('main'), 'main', 'a main room: its own id');
  t.equal(await families.mainRoomOf('alone'), 'alone');
  t.equal(await families.mainRoomOf('no-such-room'), 'no-such-room', 'no room: the id itself, as for a main room');
  t.equal(families.roomOf('alone'), null, 'neither kept');
  families.drop('main-g1');
  t.equal(families.roomOf('main'), null, 'dropped: the whole family goes');
  await store.delete('main-g1');
  t.equal(await families.mainRoomOf('main-g1'), 'main-g1', 'and is read again: the group is gone');
});

t.test('a family read anew: groups made, renamed and deleted elsewhere', async (t) => {
  const store = memoryRooms();
  await store.insert(room('main', { name: 'Main' }));
  await store.insert(room('main-g1', { name: 'G1', parentRoomId: 'main' }));
  await store.insert(room('main-g2', { name: 'G2', parentRoomId: 'main' }));
  const families = await RoomFamilies.load(store);
  await store.delete('main-g1');
  await store.update(room('main-g2', { name: 'Renamed', parentRoomId: 'main' }));
  await store.insert(room('main-g3', { name: 'G3', parentRoomId: 'main' }));
  t.same(families.subgroupsOf('main'), ['main-g1', 'main-g2'], 'what was read at start');
  await families.reload('main');
  t.same(families.subgroupsOf('main').sort(), ['main-g2', 'main-g3'], 'as the store says now');
  t.equal(families.roomOf('main-g1'), null);
  t.equal(families.roomOf('main-g2')?.name, 'Renamed');
  await store.delete('main-g2');
  await store.delete('main-g3');
  await families.reload('main');
  t.equal(families.roomOf('main'), null, 'no group left: no family');
  await store.delete('main');
  await families.reload('main');
  t.same(families.subgroupsOf('main'), [], 'a room gone: nothing');
});
