// Issue 32 point 5: a room created without an id gets a readable one, `abc-defg-hij`: ten lower-case
// letters from node's crypto (26^10 ≈ 2^47, at least 40 bits, so ids cannot be found by walking);
// a taken one is drawn again; a chosen id is kept, and a taken chosen id is still room_exists.
import t from 'tap';
import type { AsyncRoomStore } from '../../../src/engine/async-ports.js';
import type { Room } from '../../../src/engine/rooms/room.js';
import { newReadableId } from '../../../src/engine/rooms/readable-id.js';
import { RoomService } from '../../../src/engine/rooms/room-service.js';
import { readableId, roomIdPattern } from '../../../src/protocol/room-code.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const shape = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;

t.test('a readable id: 3-4-3 lower-case letters, a valid room id, at least 40 bits', async (t) => {
  const ids = Array.from({ length: 5000 }, () => newReadableId());
  for (const id of ids.slice(0, 50)) {
    t.match(id, shape, `${id} is three groups of letters`);
    t.equal(id.length, 12, 'twelve characters with the dashes');
    t.ok(roomIdPattern.test(id), 'and a valid room id');
  }
  t.ok(
    ids.every((id) => shape.test(id)),
    'all 5000 have the shape',
  );
  t.equal(new Set(ids).size, ids.length, '5000 draws, no repeat');
  t.equal(readableId.alphabet, 'abcdefghijklmnopqrstuvwxyz', 'the alphabet: the 26 lower-case letters');
  const bits = readableId.letters * Math.log2(readableId.alphabet.length);
  t.ok(bits >= 40, `${bits.toFixed(1)} bits of randomness (>= 40)`);

  // Every letter appears, and none far more than its share: 50,000 letters, about 1,923 each.
  const counts = new Map<string, number>();
  for (const id of ids) for (const ch of id.replaceAll('-', '')) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  t.equal(counts.size, 26, 'every letter of the alphabet is drawn');
  const expected = (ids.length * readableId.letters) / 26;
  const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
  // 25 degrees of freedom: p = 0.000005 lies at about 70, so a fair source fails this about once in 200,000 runs.
  t.ok(chiSquare < 70, `the letters are uniform (chi-square ${chiSquare.toFixed(1)} < 70)`);
});

t.test('the letters come from the random source, one uniform draw of 26 per letter', async (t) => {
  const asked: number[] = [];
  const id = newReadableId((max) => {
    asked.push(max);
    return asked.length - 1;
  });
  t.equal(id, 'abc-defg-hij', 'draws 0..9 are a..j');
  t.same(asked, Array(10).fill(26), 'ten draws below 26');
  t.equal(
    newReadableId(() => 25),
    'zzz-zzzz-zzz',
    'the last letter of the alphabet',
  );
});

/** Rooms in a map: only what create and find use. */
function memoryRooms(): AsyncRoomStore & { rooms: Map<string, Room> } {
  const rooms = new Map<string, Room>();
  return {
    rooms,
    insert: async (room) => (rooms.has(room.roomId) ? false : (rooms.set(room.roomId, room), true)),
    get: async (id) => rooms.get(id) ?? null,
    update: async (room) => void rooms.set(room.roomId, room),
    delete: async (id) => rooms.delete(id),
    children: async () => [],
    families: async () => [],
    list: async () => [...rooms.values()],
    unusedEphemeral: async () => [],
  };
}

t.test('RoomService.create: a readable id unless one is chosen; a taken one is drawn again', async (t) => {
  const store = memoryRooms();
  const drawn = ['abc-defg-hij', 'abc-defg-hij', 'abc-defg-hij', 'klm-nopq-rst'];
  const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;
  const rooms = new RoomService(
    store,
    new FakeClock(),
    policy,
    () => {},
    () => drawn.shift()!,
  );
  t.equal((await rooms.create({ name: 'Maths' })).roomId, 'abc-defg-hij', 'no id given: the drawn one');
  t.equal((await rooms.create({ name: 'Physics' })).roomId, 'klm-nopq-rst', 'a taken id is drawn again');
  t.equal(
    (await rooms.create({ room_id: 'Lesson-7', name: 'Chosen' })).roomId,
    'Lesson-7',
    'a chosen id is kept as it is',
  );
  await t.rejects(
    () => rooms.create({ room_id: 'Lesson-7', name: 'Again' }),
    { code: 'room_exists' },
    'a taken chosen id',
  );

  const stuck = new RoomService(
    store,
    new FakeClock(),
    policy,
    () => {},
    () => 'abc-defg-hij',
  );
  await t.rejects(
    () => stuck.create({ name: 'Never' }),
    { code: 'room_exists' },
    'a source that only repeats gives up',
  );
  t.equal(store.rooms.size, 3, 'nothing more was stored');

  const real = new RoomService(memoryRooms(), new FakeClock(), policy);
  t.match((await real.create({ name: 'Default' })).roomId, shape, 'the default source makes readable ids');
});
