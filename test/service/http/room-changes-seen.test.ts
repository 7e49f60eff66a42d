// The rooms API writes through RoomService while an arrival (the waiting room's door) reads the same
// room elsewhere in the engine: a change or a deletion must be what the next arrival sees at once.
// Both sides keep rooms read so far in memory, so they must share one copy (a second copy, kept
// by a second store object on the same database, let a deleted room go on taking arrivals).
import t from 'tap';
import { call, dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

t.test('a room deleted or changed through the API is what the next arrival sees', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'maths', name: 'Maths', waiting_room: 'all' });
  await createRoom(t, d, { room_id: 'art', name: 'Art', waiting_room: 'all' });
  // First arrivals: the door has read (and kept) both rooms.
  t.same((await new Browser(d, 'maths').start({ name: 'Ann' })).body, { status: 'knock' }, 'maths: she knocks');
  t.same((await new Browser(d, 'art').start({ name: 'Ann' })).body, { status: 'knock' }, 'art: she knocks');

  t.equal((await call(d, '/api/rooms/maths', { method: 'DELETE' })).status, 204, 'maths is deleted');
  const afterDelete = await new Browser(d, 'maths').start({ name: 'Bob' });
  t.equal(afterDelete.status, 404, 'an arrival at a deleted room finds no room');
  t.equal((await new Browser(d, 'maths').knock({ name: 'Bob', note: '' })).status, 404, 'nor can she knock');

  t.equal(
    (await call(d, '/api/rooms/art', { method: 'PATCH', json: { waiting_room: 'off' } })).status,
    200,
    'art no longer waits',
  );
  t.not((await new Browser(d, 'art').start({ name: 'Bob' })).body.status, 'knock', 'the next arrival does not knock');
});
