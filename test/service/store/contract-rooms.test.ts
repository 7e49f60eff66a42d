// Issue 34 point 5: the rooms repository's contract, one suite run on both stores (SQLite through
// the asynchronous port, and PostgreSQL): what is written reads back the same, pages end and
// resume alike, deletes cascade to sub-groups, unused ephemeral rooms are found alike.
import type { Room } from '../../../src/engine/rooms/room.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const room = (roomId: string, fields: Partial<Room> = {}): Room => ({ ...waitingRoomFixture(roomId), ...fields });

onEachStore(
  'a room reads back as written; a second insert of its id is refused; update and delete',
  async (t, { rooms }) => {
    const written = room('r-1', {
      name: 'Maths 7b — Ünterricht',
      waitingRoom: 'guests',
      waitingRoomMode: 'until_moderator',
      accessCodeHash: 'scrypt$abc',
      entry: 'token',
      unlisted: true,
      moderatorSuccession: true,
      ephemeral: true,
      micsOffOnEntry: true,
      moderatorLinkTtlSecs: 3600,
    });
    t.equal(await rooms.insert(written), true);
    t.equal(await rooms.insert(room('r-1', { name: 'other' })), false, 'the id is taken');
    t.same(await rooms.get('r-1'), written, 'every field as written');
    t.equal(await rooms.get('nope'), null);
    const changed = {
      ...written,
      name: 'renamed',
      unlisted: false,
      entry: 'closed' as const,
      updatedAt: '2030-01-02T00:00:00.000Z',
    };
    await rooms.update(changed);
    t.same(await rooms.get('r-1'), changed);
    t.equal(await rooms.delete('r-1'), true);
    t.equal(await rooms.delete('r-1'), false);
    t.equal(await rooms.get('r-1'), null);
  },
);

onEachStore('sub-groups: children in id order, gone with their parent', async (t, { rooms }) => {
  await rooms.insert(room('main'));
  for (const id of ['main-g2', 'main-g1', 'main-g10']) await rooms.insert(room(id, { parentRoomId: 'main' }));
  t.same(await rooms.children('main'), ['main-g1', 'main-g10', 'main-g2']);
  t.equal(await rooms.delete('main'), true);
  t.equal(await rooms.get('main-g1'), null, 'the delete cascades');
  t.same(await rooms.children('main'), []);
});

onEachStore('families: every sub-group and every room that has one, nothing else', async (t, { rooms }) => {
  t.same(await rooms.families(), [], 'no family yet');
  await rooms.insert(room('alone', { name: 'Alone' }));
  await rooms.insert(room('main', { name: 'Main' }));
  await rooms.insert(room('main-g1', { name: 'Group 1', parentRoomId: 'main' }));
  await rooms.insert(room('main-g2', { name: 'Group 2', parentRoomId: 'main' }));
  const byId = (a: { roomId: string }, b: { roomId: string }) => (a.roomId < b.roomId ? -1 : 1);
  t.same((await rooms.families()).sort(byId), [
    { roomId: 'main', parentRoomId: null, name: 'Main' },
    { roomId: 'main-g1', parentRoomId: 'main', name: 'Group 1' },
    { roomId: 'main-g2', parentRoomId: 'main', name: 'Group 2' },
  ]);
  await rooms.delete('main');
  t.same(await rooms.families(), [], 'gone with the family');
});

onEachStore('list pages in byte order of the id, resuming after the last one', async (t, { rooms }) => {
  const ids = ['b', 'B', 'a', 'A-1', 'a-2', 'Z', 'z'];
  for (const id of ids) await rooms.insert(room(id));
  const sorted = [...ids].sort();
  t.same(
    (await rooms.list(null, 100)).map((r) => r.roomId),
    sorted,
    'upper case before lower, as bytes',
  );
  const first = await rooms.list(null, 3);
  const next = await rooms.list(first.at(-1)!.roomId, 3);
  const last = await rooms.list(next.at(-1)!.roomId, 3);
  t.same(
    [...first, ...next, ...last].map((r) => r.roomId),
    sorted,
  );
  t.same(await rooms.list('z', 3), []);
});

onEachStore(
  'unused ephemeral rooms: top-level, not updated since, no meeting since',
  async (t, { rooms, meetings }) => {
    const old = '2030-01-01T00:00:00.000Z';
    await rooms.insert(room('e-old', { ephemeral: true, updatedAt: old }));
    await rooms.insert(room('e-new', { ephemeral: true, updatedAt: '2030-03-01T00:00:00.000Z' }));
    await rooms.insert(room('kept', { updatedAt: old }));
    await rooms.insert(room('e-met', { ephemeral: true, updatedAt: old }));
    await rooms.insert(room('e-child', { ephemeral: true, updatedAt: old, parentRoomId: 'kept' }));
    await meetings.insertMeeting({
      meetingId: 'm-1',
      roomId: 'e-met',
      startedAt: '2030-01-20T00:00:00.000Z',
      endedAt: '2030-02-20T00:00:00.000Z',
      waitingDisabled: false,
      subject: '',
    });
    t.same(await rooms.unusedEphemeral('2030-02-01T00:00:00.000Z', 10), ['e-old']);
    t.same((await rooms.unusedEphemeral('2030-04-01T00:00:00.000Z', 10)).sort(), ['e-met', 'e-new', 'e-old']);
    t.same(await rooms.unusedEphemeral('2030-04-01T00:00:00.000Z', 1), ['e-old'], 'least recently updated first');
  },
);
