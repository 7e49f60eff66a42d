// The engine's unit of work on SQLite (issue 30 point 4): the writes of several stores inside
// one `run` are one durable commit on the shared connection, a failure leaves none of them, and
// a nested run that fails is a savepoint the outer unit survives.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Meeting } from '../../../src/engine/meetings/meeting.js';
import { databaseFileName, openDatabase, type Db } from '../../../src/store/database.js';
import { SqliteMeetingStore } from '../../../src/store/meeting-store.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import { SqliteUnitOfWork } from '../../../src/store/unit-of-work.js';
import { readPragma } from '../../../src/platform/sqlite.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { walCommits } from '../../helpers/wal.js';

function open(t: { teardown(fn: () => void): void }): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'meet-unit-of-work-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, file: join(dir, databaseFileName) };
}

const meeting = (meetingId: string): Meeting => ({
  meetingId,
  roomId: 'r1',
  startedAt: '2030-01-01T00:00:00.000Z',
  endedAt: null,
  waitingDisabled: false,
  subject: '',
});
const count = (db: Db, table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

t.test("two stores' writes in one run are one durable commit; a failing run leaves none", async (t) => {
  const { db, file } = open(t);
  const rooms = new SqliteRoomStore(db);
  const meetings = new SqliteMeetingStore(db);
  const unit = new SqliteUnitOfWork(db);
  const before = walCommits(file).commits;
  const value = unit.run(() => {
    rooms.insert(waitingRoomFixture('r1'));
    meetings.insertMeeting(meeting('m1'));
    meetings.appendTimeline({
      meetingId: 'm1',
      at: '2030-01-01T00:00:00.000Z',
      kind: 'moderator_arrived',
      actor: null,
      subject: null,
      count: null,
    });
    return 'done';
  });
  t.equal(value, 'done', "the work's value comes back");
  t.equal(walCommits(file).commits - before, 1, 'one commit in the log for the three rows');

  t.throws(
    () =>
      unit.run(() => {
        meetings.updateMeeting({ ...meeting('m1'), endedAt: '2030-01-01T01:00:00.000Z' });
        rooms.insert(waitingRoomFixture('r2'));
        throw new Error('disk full');
      }),
    /disk full/,
  );
  t.equal(meetings.getMeeting('m1')?.endedAt, null, 'the update was rolled back');
  t.equal(count(db, 'rooms'), 1, 'the second room was rolled back');
});

t.test('a nested run that fails is a savepoint: the outer unit keeps its own writes', async (t) => {
  const { db } = open(t);
  const rooms = new SqliteRoomStore(db);
  const unit = new SqliteUnitOfWork(db);
  unit.run(() => {
    rooms.insert(waitingRoomFixture('r1'));
    try {
      unit.run(() => {
        rooms.insert(waitingRoomFixture('r2'));
        throw new Error('inner');
      });
    } catch {
      // The caller decided to go on without the inner writes.
    }
  });
  t.same(
    rooms.list(null, 10).map((r) => r.roomId),
    ['r1'],
  );
});

t.test('runSyncedLater: committed at once, the connection back at FULL, durable once the WAL is synced', async (t) => {
  const { db, file } = open(t);
  const rooms = new SqliteRoomStore(db);
  const unit = new SqliteUnitOfWork(db);
  const before = walCommits(file).commits;
  const { value, durable } = unit.runSyncedLater(() => {
    rooms.insert(waitingRoomFixture('r1'));
    return 'done';
  });
  t.equal(value, 'done', "the work's value comes back");
  t.equal(walCommits(file).commits - before, 1, 'committed: in the WAL file (what a kill -9 leaves) before the sync');
  t.equal(readPragma(db, 'synchronous'), 2, 'every other write commits at synchronous=FULL again');
  await durable;

  t.throws(
    () =>
      unit.runSyncedLater(() => {
        rooms.insert(waitingRoomFixture('r2'));
        throw new Error('disk full');
      }),
    /disk full/,
  );
  t.equal(count(db, 'rooms'), 1, 'a failing work leaves nothing');
  t.equal(readPragma(db, 'synchronous'), 2, 'and the connection at FULL');

  unit.close();
  const closing = unit.runSyncedLater(() => rooms.insert(waitingRoomFixture('r3')));
  await closing.durable;
  t.equal(count(db, 'rooms'), 2, 'after close() it commits as run does');
});
