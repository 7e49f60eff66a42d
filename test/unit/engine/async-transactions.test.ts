// Issue 34 point 2: the engine's transactions and group commit over the asynchronous unit of work.
// Queued writes keep their place before any later transaction and share one commit; the undo and
// after-commit lists belong to the transaction of their own asynchronous context, so two units
// running at once (PostgreSQL commits the rooms in parallel) never take back or announce each
// other's changes; on a real SQLite file (store/async-sqlite.ts) a burst is one durable commit.
import t from 'tap';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncTransactions } from '../../../src/engine/async-transactions.js';
import type { UnitOfWork } from '../../../src/engine/unit-of-work.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { databaseFileName, openDatabase } from '../../../src/store/database.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { walCommits } from '../../helpers/wal.js';
import { Fixture, api } from '../../helpers/engine-fixture.js';
import { MemoryStore } from '../../helpers/memory-store.js';
import { MemoryUnitOfWork } from '../../helpers/memory-unit.js';

/**
 * An asynchronous store that runs units at once, as PostgreSQL does on its pool: each unit
 * collects its own writes; a unit's COMMIT waits until the test opens its gate (or at once).
 */
class ParallelJournal implements UnitOfWork<'async'> {
  readonly commits: string[][] = [];
  private readonly open = new AsyncLocalStorage<string[]>();
  private readonly gates = new Map<string, () => void>();
  /** Names of the units whose commit waits for `release(name)`. */
  readonly held = new Set<string>();
  failing = new Set<string>();

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.open.getStore()) return work();
    const writes: string[] = [];
    const value = await this.open.run(writes, work);
    await Promise.resolve(); // the COMMIT's round trip
    const name = writes[0] ?? '';
    if (this.held.has(name)) await new Promise<void>((resolve) => this.gates.set(name, resolve));
    if (this.failing.delete(name)) throw new Error(`commit of ${name} failed`);
    this.commits.push(writes);
    return value;
  }

  release(name: string): void {
    this.held.delete(name);
    this.gates.get(name)?.();
  }

  async write(what: string): Promise<void> {
    await Promise.resolve();
    const writes = this.open.getStore();
    if (!writes) throw new Error(`${what} written outside a unit of work`);
    writes.push(what);
  }
}

/** Resolves once `check` holds, looking again after every turn of the loop (no fixed sleep). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error('condition never held');
}

t.test(
  'writes queued in one turn are ONE commit; committed callbacks run in queue order before any promise resolves',
  async (t) => {
    const journal = new ParallelJournal();
    const turns: (() => Promise<number>)[] = [];
    const tx = new AsyncTransactions(journal, new AsyncLocalStorage(), (run) => turns.push(run));
    const memory: string[] = [];
    const resolved: string[] = [];
    const knocks = ['ann', 'bob', 'cy'].map((name) =>
      tx
        .commitGrouped({ write: () => journal.write(name).then(() => name), committed: (v) => memory.push(v) })
        .then((v) => resolved.push(`${v} (memory: ${memory.length})`)),
    );
    t.equal(turns.length, 1, 'one group scheduled for the turn');
    t.same(journal.commits, [], 'queued, not yet committed');
    t.equal(await turns[0]!(), 3, 'the group committed three writes');
    await Promise.all(knocks);
    t.same(journal.commits, [['ann', 'bob', 'cy']], 'one commit holds all three, in queue order');
    t.same(
      resolved,
      ['ann (memory: 3)', 'bob (memory: 3)', 'cy (memory: 3)'],
      'memory followed before anyone was answered',
    );
  },
);

t.test('a transaction started after a queued write commits after it, in its own commit', async (t) => {
  const journal = new ParallelJournal();
  const turns: (() => Promise<number>)[] = [];
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage(), (run) => turns.push(run));
  const knock = tx.commitGrouped({ write: () => journal.write('knock') });
  await tx.atomically(() => journal.write('admit'));
  t.same(journal.commits, [['knock'], ['admit']], 'the queued knock first: the admission cannot overtake it');
  await knock;
  t.equal(await turns[0]!(), 0, 'the scheduled group found nothing left to commit');
});

t.test('groups commit in the order they were taken, even when the first commit is slow', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage(), () => undefined);
  journal.held.add('first');
  const first = tx.commitGrouped({ write: () => journal.write('first') });
  const one = tx.flushGrouped();
  const second = tx.commitGrouped({ write: () => journal.write('second') });
  const two = tx.flushGrouped();
  await until(() => journal.held.has('first'));
  await new Promise((resolve) => setImmediate(resolve));
  t.same(journal.commits, [], 'the second group waits for the first');
  journal.release('first');
  t.same(await Promise.all([one, two, first, second]), [1, 1, undefined, undefined]);
  t.same(journal.commits, [['first'], ['second']]);
});

t.test('writes queued over several turns while a commit runs share the next commit', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage(), (run) => void setImmediate(() => void run()));
  journal.held.add('first');
  const first = tx.commitGrouped({ write: () => journal.write('first') });
  // Its group is taken on the next turn and its COMMIT held.
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  // Three more knocks, each in a turn of its own, while the first commit waits for the database.
  const later: Promise<unknown>[] = [];
  for (const name of ['b', 'c', 'd']) {
    later.push(tx.commitGrouped({ write: () => journal.write(name) }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  journal.release('first');
  await Promise.all([first, ...later]);
  t.same(journal.commits, [['first'], ['b', 'c', 'd']], 'one commit for the three, not one each');
});

t.test('a failed group: every write is told and rejected, nothing reaches memory', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage(), () => undefined);
  journal.failing.add('a');
  const told: string[] = [];
  const writes = ['a', 'b'].map((name) =>
    tx.commitGrouped({
      write: () => journal.write(name),
      committed: () => told.push(`committed ${name}`),
      failed: () => told.push(`failed ${name}`),
    }),
  );
  t.equal(await tx.flushGrouped(), 0);
  for (const write of writes) await t.rejects(write, /commit of a failed/);
  t.same(told, ['failed a', 'failed b']);
  t.same(journal.commits, []);
});

t.test('a nested transaction is part of the outer one: one commit', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage());
  await tx.atomically(async () => {
    await journal.write('a');
    await tx.atomically(() => journal.write('b'));
  });
  t.same(journal.commits, [['a', 'b']]);
});

t.test('two transactions at once: each undoes and announces only its own steps', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage());
  const memory = new Set(['before']);
  const told: string[] = [];
  tx.onRollback(() => memory.add('outside a transaction: never'));
  journal.held.add('room A');
  journal.held.add('room B');
  journal.failing.add('room A');
  const change = (room: string) =>
    tx.atomically(async () => {
      await journal.write(room);
      memory.add(room);
      tx.onRollback(() => memory.delete(room));
      tx.afterCommit(() => told.push(`${room} committed`));
      await journal.write(`${room}: timeline`);
    });
  const a = change('room A');
  const b = change('room B');
  await until(() => journal.held.size === 2 && memory.size === 3);
  t.same([...memory].sort(), ['before', 'room A', 'room B'], 'both under way at once');
  journal.release('room A');
  await t.rejects(a, /commit of room A failed/);
  t.same([...memory].sort(), ['before', 'room B'], "A's failure took back A's change only");
  t.same(told, [], 'nothing announced for the failed A, nor for B before its commit');
  journal.release('room B');
  await b;
  t.same(told, ['room B committed'], "B's step ran once, after B's commit");
  t.same(journal.commits, [['room B', 'room B: timeline']]);
});

t.test('a step registered after its transaction settled (a timer started inside it) runs at once', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage());
  const told: string[] = [];
  let later: () => void = () => undefined;
  await tx.atomically(async () => {
    await journal.write('a');
    later = () => setImmediate(() => tx.afterCommit(() => told.push('from the timer')));
  });
  t.notOk(tx.inside, 'outside any transaction here');
  later();
  await until(() => told.length === 1);
  t.same(told, ['from the timer']);
});

t.test('on SQLite through the async port: a burst queued in one turn is one durable commit in the log', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-async-tx-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const stores = sqliteAsyncStores(db);
  const tx = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage(), (run) => setImmediate(() => void run()));
  const file = join(dir, databaseFileName);
  await stores.rooms.insert(room('warm-up'));
  const before = walCommits(file);
  const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
  await Promise.all(ids.map((id) => tx.commitGrouped({ write: () => stores.rooms.insert(room(id)) })));
  t.equal(walCommits(file).commits - before.commits, 1, 'ten inserts, one commit');
  for (const id of ['s1', 's2']) await tx.commitGrouped({ write: () => stores.rooms.insert(room(id)) });
  t.equal(walCommits(file).commits - before.commits, 3, 'inserts one after another are a commit each');
  await t.rejects(
    tx.atomically(async () => {
      await stores.rooms.insert(room('lost'));
      throw new Error('gone');
    }),
    /gone/,
  );
  t.equal(await stores.rooms.get('lost'), null, 'nothing of a failed transaction');
  t.ok(await stores.rooms.get('r9'), 'the burst is there');
});

// Moved from the synchronous Transactions' tests (deleted with it): what still matters of them.

t.test('a failed commit takes back the memory changes registered in it, newest first, once', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage());
  const memory: string[] = ['before'];
  journal.failing.add('one');
  await t.rejects(
    tx.atomically(async () => {
      await journal.write('one');
      memory.push('one');
      tx.onRollback(() => t.same(memory.pop(), 'one', 'the older change is undone last'));
      memory.push('two');
      tx.onRollback(() => t.same(memory.pop(), 'two', 'the newer change is undone first'));
    }),
    /commit of one failed/,
  );
  t.same(memory, ['before'], 'memory is as it was');
  await tx.atomically(() => journal.write('next'));
  t.same(journal.commits, [['next']], 'the next transaction commits alone, nothing left over');
  t.same(memory, ['before'], 'no undo step of the failed transaction ran again');
});

t.test('what waits for the commit runs after it, in order, nested ones too, and never for a failed one', async (t) => {
  const journal = new ParallelJournal();
  const tx = new AsyncTransactions(journal, new AsyncLocalStorage());
  const told: string[] = [];
  tx.afterCommit(() => told.push('outside a transaction: at once'));
  t.same(told, ['outside a transaction: at once']);
  await tx.atomically(async () => {
    await journal.write('a');
    tx.afterCommit(() => told.push(`after ${journal.commits.length} commit(s): one`));
    await tx.atomically(async () => tx.afterCommit(() => told.push('two, from the nested one')));
    t.equal(told.length, 1, 'nothing runs before the commit');
  });
  t.same(told.slice(1), ['after 1 commit(s): one', 'two, from the nested one']);
  journal.failing.add('b');
  await t.rejects(
    tx.atomically(async () => {
      await journal.write('b');
      tx.afterCommit(() => told.push('never'));
    }),
    /commit of b failed/,
  );
  t.equal(told.length, 3, 'a failed commit tells nothing');
});

t.test('the metrics count a decision once it is committed, not one whose commit failed', async (t) => {
  const counted: string[] = [];
  const f = new Fixture({ defer: (run) => void run(), counter: { counted: (outcome) => counted.push(outcome) } });
  f.room();
  const { requestId } = await f.knock('Ann');
  f.store.commitError = new Error('disk full');
  await t.rejects(() => f.waiting.admit('r1', requestId, api()), /disk full/);
  t.same(counted, ['knock'], 'the failed admission is not counted');
  f.store.commitError = null;
  await f.waiting.admit('r1', requestId, api());
  t.same(counted, ['knock', 'admitted'], 'the admission that reached the disk is, once');
});

t.test('the waiting room writes through the shared transactions; a failed unit leaves nothing anywhere', async (t) => {
  const f = new Fixture({ defer: (run) => void run() });
  t.notOk('atomically' in f.meetings || 'commitGrouped' in f.meetings, 'MeetingService does not hand out transactions');
  f.room();
  const commits = f.store.commits;
  const { requestId } = await f.knock('Ann');
  t.equal(f.store.commits, commits + 1, 'the knock: one commit of the unit of work');
  await f.waiting.admit('r1', requestId, api());
  t.equal(f.store.commits, commits + 2, 'her admission (participant, request, timeline): one more');
  t.same(await f.kinds(), ['knock', 'admit']);
  await f.knock('Bob');
  f.store.commitError = new Error('disk full');
  await t.rejects(() => f.waiting.admitAll('r1', api()), /disk full/);
  f.store.commitError = null;
  t.same(await f.kinds(), ['knock', 'admit', 'knock'], 'nothing of the failed admission on disk');
  t.same(
    (await f.waiting.list('r1', api())).map((item) => item.name),
    ['Bob'],
    'nor in memory: Bob still waits',
  );
  t.same(
    f.meetings.present('r1').map((p) => p.name),
    ['Ann'],
    'and only Ann is present',
  );
  await f.waiting.admitAll('r1', api());
  t.same(
    f.meetings.present('r1').map((p) => p.name),
    ['Ann', 'Bob'],
    'once the disk is back, Bob is admitted once',
  );
});

t.test('the memory unit of the engine tests restores every table when a unit fails, across its awaits', async (t) => {
  const store = new MemoryStore();
  const unit = new MemoryUnitOfWork(store);
  store.commitError = new Error('disk full');
  await t.rejects(
    unit.run(async () => {
      store.insertMeeting({
        meetingId: 'm1',
        roomId: 'r1',
        startedAt: '2030-01-01T00:00:00.000Z',
        endedAt: null,
        waitingDisabled: false,
        subject: '',
      });
      await Promise.resolve();
    }),
    /disk full/,
  );
  t.same(store.openMeetings(), []);
});
