import { AsyncLocalStorage } from 'node:async_hooks';
// Issue 28 point 9: RoomService.expireUnused over the real SQLite store with a fake clock: which
// ephemeral rooms go (no change and no meeting for the idle time, none open), which stay, and that
// a sweep deletes a bounded number.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../../../src/engine/listeners.js';
import { MeetingService } from '../../../src/engine/meetings/meeting-service.js';
import { RoomService } from '../../../src/engine/rooms/room-service.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { openDatabase } from '../../../src/store/database.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import type { Tap } from '../../helpers/api.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { AsyncTransactions } from '../../../src/engine/async-transactions.js';

const hour = 3_600_000;
const minute = 60_000;

function fixture(t: Tap) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-ephemeral-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = new FakeClock();
  const store = new SqliteRoomStore(db);
  const deleted: string[] = [];
  const rooms = new RoomService(
    sqliteAsyncStores(db).rooms,
    clock,
    { waitingRoom: 'optional', waitingRoomMode: null },
    (roomId) => deleted.push(roomId),
  );
  const ports = sqliteAsyncStores(db);
  const meetings = new MeetingService(
    ports.meetings,
    new AsyncTransactions(ports.unitOfWork, new AsyncLocalStorage()),
    clock,
    {
      log: silentLog,
    },
  );
  const make = (roomId: string, ephemeral: boolean) =>
    rooms.create({ room_id: roomId, name: roomId, waiting_room: 'off' }, { ephemeral });
  return { clock, store, rooms, meetings, deleted, make };
}

t.test(
  'an ephemeral room goes once unused for the idle time; an ended meeting counts as use, an open one keeps it',
  async (t) => {
    const f = fixture(t);
    await f.make('never-used', true);
    await f.make('kept', false);
    await f.make('had-meeting', true);
    await f.make('busy', true);
    await f.rooms.create({ room_id: 'never-used-sub', name: 'Sub-group', parent_room_id: 'never-used' });
    await f.meetings.ensure('had-meeting');
    await f.meetings.ensure('busy');
    f.clock.advance(30 * minute);
    await f.meetings.end('had-meeting');

    f.clock.advance(31 * minute);
    t.same(await f.rooms.expireUnused(hour), ['never-used'], 'after an hour: the room never used');
    t.same(f.deleted, ['never-used'], 'its live state is dropped as for any deleted room');
    t.equal(f.store.get('never-used-sub'), null, 'its sub-groups with it');
    t.ok(f.store.get('kept'), 'a room that is not ephemeral stays');
    t.ok(f.store.get('had-meeting'), 'a meeting ended 31 minutes ago is a use');
    t.ok(f.store.get('busy'), 'an open meeting keeps it');

    f.clock.advance(30 * minute);
    t.same(await f.rooms.expireUnused(hour), ['had-meeting'], 'an hour after its meeting ended');
    f.clock.advance(10 * hour);
    t.same(await f.rooms.expireUnused(hour), [], 'an open meeting keeps it however long');
    await f.meetings.end('busy');
    f.clock.advance(hour + 1);
    t.same(await f.rooms.expireUnused(hour), ['busy'], 'an hour after it ended');

    await f.make('touched', true);
    f.clock.advance(50 * minute);
    await f.rooms.update('touched', {});
    f.clock.advance(50 * minute);
    t.same(await f.rooms.expireUnused(hour), [], 'a change counts as use');
    await f.rooms.update('touched', {}, { ephemeral: false });
    f.clock.advance(2 * hour);
    t.same(await f.rooms.expireUnused(hour), [], 'a room made no longer ephemeral stays');
  },
);

t.test('a backlog is deleted a bounded number at a time, oldest first', async (t) => {
  const f = fixture(t);
  for (let i = 0; i < 5; i++) {
    await f.make(`r${i}`, true);
    f.clock.advance(1000);
  }
  f.clock.advance(hour);
  t.same(await f.rooms.expireUnused(hour, 2), ['r0', 'r1']);
  t.same(await f.rooms.expireUnused(hour, 2), ['r2', 'r3']);
  t.same(await f.rooms.expireUnused(hour, 2), ['r4']);
  t.same(await f.rooms.expireUnused(hour, 2), []);
});
