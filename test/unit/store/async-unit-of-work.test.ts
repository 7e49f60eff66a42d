// The knocks' durability on the asynchronous unit of work (issue 36 point 1 kept for issue 34
// point 2): on a real SQLite file behind the asynchronous ports, a group commit is in the WAL (what
// a kill -9 leaves) once its COMMIT returned, made at synchronous=NORMAL while every other unit
// commits at FULL, and its writers are answered only once the WAL's fdatasync on libuv's pool
// returned; a refused sync answers them with the error. fs.fdatasync is held by hand here
// (syncBuiltinESMExports), so "waits for the sync" is seen, not timed.
import t from 'tap';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { AsyncLocalStorage } from 'node:async_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncTransactions } from '../../../src/engine/async-transactions.js';
import { readPragma } from '../../../src/platform/sqlite.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { databaseFileName, openDatabase } from '../../../src/store/database.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { walCommits } from '../../helpers/wal.js';

type SyncCall = (error: NodeJS.ErrnoException | null) => void;

/** fs.fdatasync held until the test lets each call run (or fail). */
function holdSyncs(t: { teardown(fn: () => void): void }): { calls: SyncCall[]; run(i: number): void } {
  const real = fs.fdatasync;
  const calls: SyncCall[] = [];
  const fds: number[] = [];
  fs.fdatasync = ((fd: number, done: SyncCall) => {
    fds.push(fd);
    calls.push(done);
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  t.teardown(() => {
    fs.fdatasync = real;
    syncBuiltinESMExports();
  });
  return { calls, run: (i) => real(fds[i]!, calls[i]!) };
}

function open(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-async-unit-'));
  const db = openDatabase(dir);
  const stores = sqliteAsyncStores(db);
  t.teardown(() => {
    stores.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const tx = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage(), (run) => setImmediate(() => void run()));
  return { db, stores, tx, file: join(dir, databaseFileName) };
}

/** Resolves once `check` holds, looking again after every turn of the loop (no fixed sleep). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error('condition never held');
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

t.test('a group is in the WAL at its commit, at NORMAL, and answered only once the WAL is synced', async (t) => {
  const { db, stores, tx, file } = open(t);
  await stores.rooms.insert(room('warm-up'));
  const syncs = holdSyncs(t);
  const before = walCommits(file).commits;
  const seen: number[] = [];
  const memory: string[] = [];
  let answered = 0;
  const knocks = ['k1', 'k2'].map((id) =>
    tx
      .commitGrouped({
        write: async () => {
          seen.push(readPragma(db, 'synchronous') as number);
          await stores.rooms.insert(room(id));
          return id;
        },
        committed: (value) => memory.push(value),
      })
      .then((value) => {
        answered += 1;
        return value;
      }),
  );
  await until(() => memory.length === 2);
  t.same(seen, [1, 1], 'the group wrote at synchronous=NORMAL');
  t.equal(walCommits(file).commits - before, 1, 'one commit in the WAL file (what a kill -9 leaves) before the sync');
  t.equal(readPragma(db, 'synchronous'), 2, 'the connection is at FULL again for every other unit');
  t.equal(syncs.calls.length, 1, "the WAL's sync was asked for");
  await stores.rooms.insert(room('other'));
  t.ok(await stores.rooms.get('other'), "another write does not wait for the group's sync");
  await turns(5);
  t.equal(answered, 0, 'nobody is answered while the sync is under way');
  syncs.run(0);
  t.same(await Promise.all(knocks), ['k1', 'k2'], 'answered once the sync returned');
});

t.test('a refused sync answers the group with its error; the writes stay committed', async (t) => {
  const { stores, tx } = open(t);
  await stores.rooms.insert(room('warm-up'));
  const syncs = holdSyncs(t);
  const knock = tx.commitGrouped({ write: () => stores.rooms.insert(room('k1')) });
  await until(() => syncs.calls.length === 1);
  syncs.calls[0]!(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  await t.rejects(knock, /EIO/, 'the writer is told the disk refused');
  t.ok(await stores.rooms.get('k1'), 'committed all the same (in the WAL)');
});

t.test('a failing group leaves nothing and the connection at FULL; after close() a group commits as run', async (t) => {
  const { db, stores, tx } = open(t);
  await stores.rooms.insert(room('warm-up'));
  await t.rejects(
    tx.commitGrouped({
      write: async () => {
        await stores.rooms.insert(room('lost'));
        throw new Error('disk full');
      },
    }),
    /disk full/,
  );
  t.equal(await stores.rooms.get('lost'), null, 'nothing of the failed group');
  t.equal(readPragma(db, 'synchronous'), 2, 'the connection is at FULL');
  const syncs = holdSyncs(t);
  stores.close();
  await tx.commitGrouped({ write: () => stores.rooms.insert(room('late')) });
  t.equal(syncs.calls.length, 0, 'closing: no sync is started, the commit was at FULL');
  t.ok(await stores.rooms.get('late'));
});

// Moved from the synchronous SqliteUnitOfWork's tests (deleted with it).
t.test("two stores' writes in one unit are one durable commit; a failing unit leaves none", async (t) => {
  const { stores, file } = open(t);
  const meeting = {
    meetingId: 'm1',
    roomId: 'r1',
    startedAt: '2030-01-01T00:00:00.000Z',
    endedAt: null,
    waitingDisabled: false,
    subject: '',
  };
  await stores.rooms.insert(room('warm-up'));
  const before = walCommits(file).commits;
  const value = await stores.unitOfWork.run(async () => {
    await stores.rooms.insert(room('r1'));
    await stores.meetings.insertMeeting(meeting);
    await stores.meetings.appendTimeline({
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

  await t.rejects(
    stores.unitOfWork.run(async () => {
      await stores.meetings.updateMeeting({ ...meeting, endedAt: '2030-01-01T01:00:00.000Z' });
      await stores.rooms.insert(room('r2'));
      throw new Error('disk full');
    }),
    /disk full/,
  );
  t.equal((await stores.meetings.getMeeting('m1'))?.endedAt, null, 'the update was rolled back');
  t.equal(await stores.rooms.get('r2'), null, 'the second room was rolled back');
});

// A store call with nothing open runs at once (one promise, not two): it must still wait while a
// unit is open, or it would read that unit's uncommitted rows and be rolled back with it.
t.test(
  'a store call made while a unit is open waits for it and is not part of it; with none open it runs at once',
  async (t) => {
    const { db, stores } = open(t);
    const select = db.prepare('SELECT room_id FROM rooms WHERE room_id = ?');
    const rowOf = (roomId: string) => select.get(roomId);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const unit = stores.unitOfWork.run(async () => {
      await stores.rooms.insert(room('inside'));
      await held;
      throw new Error('rolled back');
    });
    unit.catch(() => undefined);
    await turns(1);
    const read = stores.rooms.get('inside');
    const written = stores.rooms.insert(room('outside'));
    let answered = false;
    void read.then(() => (answered = true));
    await turns(3);
    t.notOk(answered, 'the read waits for the open unit');
    t.notOk(rowOf('outside'), 'so does the write');

    release();
    await t.rejects(unit, /rolled back/);
    t.equal(await read, null, "the read sees what was committed: not the unit's room");
    t.equal(await written, true);
    t.ok(rowOf('outside'), 'the write outside the unit stands: it was not rolled back with it');

    const now = stores.rooms.insert(room('at-once'));
    t.ok(rowOf('at-once'), 'with nothing open or waiting the call ran before answering');
    t.equal(await now, true);
  },
);

// Issue 34 point 7: a unit whose work makes its calls in steps (AsyncTransactions.inSteps, the
// group commit) is found by them, not by an asynchronous context: the transactions here are given
// a context that refuses to run. The unit's isolation is the same as with one.
t.test('a unit in steps: its steps are the unit, a call from outside waits and stands, no context runs', async (t) => {
  const { db, stores } = open(t);
  const noContext = {
    run(): never {
      throw new Error('an asynchronous context was run');
    },
    getStore: () => undefined,
  };
  const tx = new AsyncTransactions(stores.unitOfWork, noContext, (run) => setImmediate(() => void run()));
  const select = db.prepare('SELECT room_id FROM rooms WHERE room_id = ?');
  const rowOf = (roomId: string) => select.get(roomId);
  const undone: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const unit = tx.inSteps(async (step) => {
    await step(() => {
      tx.onRollback(() => undone.push('inside'));
      return stores.rooms.insert(room('inside'));
    });
    await held;
    await step(() => stores.rooms.insert(room('inside-2')));
    throw new Error('rolled back');
  });
  unit.catch(() => undefined);
  await turns(1);
  const written = stores.rooms.insert(room('outside'));
  tx.onRollback(() => undone.push('outside'));
  await turns(3);
  t.notOk(rowOf('outside'), 'a store call from outside waits for the open unit');
  release();
  await t.rejects(unit, /rolled back/);
  t.same(undone, ['inside'], "only the step's undo ran: the call outside was not part of it");
  t.equal(await stores.rooms.get('inside'), null, 'both steps were rolled back');
  t.equal(await stores.rooms.get('inside-2'), null);
  t.equal(await written, true);
  t.ok(rowOf('outside'), 'the write outside the unit stands');

  const after: string[] = [];
  await tx.inSteps(async (step) => {
    await step(() => {
      tx.afterCommit(() => after.push('committed'));
      return stores.rooms.insert(room('kept'));
    });
    t.same(after, [], 'not before the commit');
  });
  t.same(after, ['committed']);
  const grouped = await tx.commitGrouped({ write: () => stores.rooms.insert(room('grouped')).then(() => 'g') });
  t.equal(grouped, 'g', 'a group commit runs no context either');
  t.ok(rowOf('kept') && rowOf('grouped'));
});
