import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModeratorSuccession } from '../../../src/engine/meetings/moderator-succession.js';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { engineOn } from '../../../test/helpers/sqlite-engine.js';

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;

async function services(db: Db, clock: FakeClock) {
  const rooms = new SqliteRoomStore(db);
  const stores = sqliteAsyncStores(db);
  const { meetings, waiting } = await engineOn(stores, clock, { policy });
  const succession = new ModeratorSuccession(meetings, stores.rooms);
  return { rooms, meetings, waiting, succession };
}

const anonymous = (name: string) => ({
  roomId: 'r1',
  name,
  clientKey: '192.0.2.1',
  claims: { role: 'participant', source: 'link' } as const,
});

t.test(
  'a promotion is on disk when leave returns: a service rebuilt from the file (as after kill -9) sees the new moderator',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'meet-succession-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const clock = new FakeClock();
    const db = openDatabase(dir);
    const s = await services(db, clock);
    s.rooms.insert({
      ...waitingRoomFixture('r1'),
      waitingRoom: 'off',
      entry: 'token',
      unlisted: true,
      moderatorSuccession: true,
    });
    const ann = await s.waiting.start(anonymous('Ann'));
    const bob = await s.waiting.start(anonymous('Bob'));
    if (ann.status !== 'joined' || bob.status !== 'joined') throw new Error('expected both to join');
    t.equal(ann.participant.role, 'moderator');
    t.equal(bob.participant.role, 'participant');
    clock.advance(1000);
    await s.meetings.leave(ann.participant.participantId);

    // No close: what a kill -9 leaves behind is what was committed.
    const reopened = openDatabase(dir);
    t.teardown(() => {
      reopened.close();
      db.close();
    });
    const after = await services(reopened, clock);
    const bobAfter = after.meetings.participant(bob.participant.participantId);
    t.match(bobAfter, { role: 'moderator', leftAt: null });
    t.same(
      await after.waiting.list('r1', { kind: 'participant', participantId: bob.participant.participantId }),
      [],
      'his gestures are allowed',
    );
    t.match(
      (await after.meetings.timeline('r1')).map((e) => [e.kind, e.subject?.name ?? null]),
      [
        ['moderator_arrived', 'Ann'],
        ['moderator_promoted', 'Bob'],
      ],
    );
    t.match((await after.meetings.attendance('r1')).participants, [
      { name: 'Ann', role: 'moderator' },
      { name: 'Bob', role: 'moderator', leftAt: null },
    ]);
  },
);
