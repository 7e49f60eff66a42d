// Group commit on a real SQLite file: concurrent knocks are one durable commit (counted in the
// write-ahead log), and a full database fails the whole group without leaving memory behind.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseFileName, openDatabase, type Db } from '../../../src/store/database.js';
import { SqliteMeetingStore } from '../../../src/store/meeting-store.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import { readPragma, setPragma } from '../../../src/platform/sqlite.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { walCommits } from '../../helpers/wal.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { engineOn } from '../../../test/helpers/sqlite-engine.js';

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;
const api = { kind: 'api', name: 'test' } as const;

/** Wired as the daemon wires them: queued writes are committed on setImmediate. */
async function services(db: Db) {
  const clock = new FakeClock();
  const rooms = new SqliteRoomStore(db);
  const stores = sqliteAsyncStores(db);
  const { meetings, waiting } = await engineOn(stores, clock, {
    policy,
    defer: (run) => setImmediate(() => void run()),
  });
  return { rooms, meetings, waiting };
}

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-group-commit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const arrival = (name: string, roomId = 'r1') => ({
  roomId,
  name,
  note: `${name} would like to join`,
  clientKey: '192.0.2.1',
});
const count = (db: Db, table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

t.test('twenty concurrent knocks are one durable commit; knocks one after another are one each', async (t) => {
  const dir = tempDir(t);
  const db = openDatabase(dir);
  const file = join(dir, databaseFileName);
  const s = await services(db);
  s.rooms.insert(room('r1'));
  s.rooms.insert(room('r2'));
  const before = walCommits(file);

  const names = Array.from({ length: 20 }, (_, i) => `Pupil ${i}`);
  const results = await Promise.all(names.map((name, i) => s.waiting.knock(arrival(name, i % 2 ? 'r2' : 'r1'))));
  t.ok(
    results.every((r) => r.status === 'waiting'),
    'all twenty wait',
  );
  const afterBurst = walCommits(file);
  t.equal(afterBurst.generation, before.generation, 'the log was not restarted in between');
  t.equal(
    afterBurst.commits - before.commits,
    1,
    'one commit in the log for the twenty knocks (two rooms, two new meetings)',
  );

  for (const name of ['Late 1', 'Late 2', 'Late 3']) await s.waiting.knock(arrival(name));
  t.equal(walCommits(file).commits - afterBurst.commits, 3, 'knocks that do not meet are a commit each');

  // What a kill -9 leaves: another connection sees every acknowledged knock.
  const reader = openDatabase(dir);
  t.equal(count(reader, 'waiting_requests'), 23, 'every answered knock is on disk');
  // A knock's timeline entry lives in its request row (migration 006); read back as the API reads it.
  const timelines = new SqliteMeetingStore(reader);
  const meetingIds = reader.prepare('SELECT meeting_id FROM meetings').pluck().all() as string[];
  const knocks = meetingIds.flatMap((id) => timelines.timelineOf(id)).filter((e) => e.kind === 'knock');
  t.same(
    knocks.map((e) => e.subject?.name).sort(),
    [...names, 'Late 1', 'Late 2', 'Late 3'].sort(),
    'with its timeline entry',
  );
  reader.close();
  db.close();
});

t.test('a full database fails the whole group: every knock gets the error, memory holds none of it', async (t) => {
  const dir = tempDir(t);
  const db = openDatabase(dir);
  const s = await services(db);
  s.rooms.insert(room('r1'));
  const changes: string[] = [];
  s.waiting.onWaitingListChange((roomId) => changes.push(roomId));
  // The file may not grow by a single page: SQLite answers SQLITE_FULL, as on a full disk.
  // VACUUM first: the pages a migration's table rebuild freed (005) would take the group without growing the file.
  db.exec('VACUUM');
  const pages = readPragma(db, 'page_count') as number;
  setPragma(db, 'max_page_count', pages);

  const knocks = Array.from({ length: 30 }, (_, i) => s.waiting.knock(arrival(`Pupil ${i} ${'x'.repeat(50)}`)));
  const settled = await Promise.allSettled(knocks);
  t.ok(
    settled.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'SQLITE_FULL'),
    'every knock of the group is rejected with SQLITE_FULL',
  );
  t.equal(s.meetings.current('r1'), null, 'the meeting the group would have started is not open');
  t.same(await s.waiting.list('r1', api), []);
  t.same(changes, [], 'no waiting-list change was announced');
  t.equal(count(db, 'waiting_requests') + count(db, 'meetings') + count(db, 'timeline_entries'), 0, 'nothing on disk');

  setPragma(db, 'max_page_count', 1073741823);
  const ok = await s.waiting.knock(arrival('After the disk was freed'));
  t.equal(ok.status, 'waiting', 'the service goes on once there is room');
  t.same(
    (await s.waiting.list('r1', api)).map((i) => i.name),
    ['After the disk was freed'],
  );
  t.equal(count(db, 'waiting_requests'), 1);
  db.close();
});
