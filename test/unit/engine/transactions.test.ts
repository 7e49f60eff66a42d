// The engine's transactions over the store's unit of work (issue 30 point 4): the waiting room
// and the meetings share them instead of reaching them through MeetingService, queued writes
// keep their place before any other transaction, memory follows a failed commit back, and the
// port takes an asynchronous store (PostgreSQL's, next) as well as SQLite's.
import t from 'tap';
import { Transactions } from '../../../src/engine/transactions.js';
import type { UnitOfWork } from '../../../src/engine/unit-of-work.js';
import { Fixture, api } from '../../helpers/engine-fixture.js';
import { MemoryStore } from '../../helpers/memory-store.js';

/** A unit of work that records what each commit held, in order. */
class Journal implements UnitOfWork {
  readonly commits: string[][] = [];
  private open: string[] | null = null;
  failNext = false;

  run<T>(work: () => T): T {
    if (this.open) return work();
    const writes: string[] = [];
    this.open = writes;
    try {
      const value = work();
      if (this.failNext) {
        this.failNext = false;
        throw new Error('disk full');
      }
      this.commits.push(writes);
      return value;
    } finally {
      this.open = null;
    }
  }

  write(what: string): void {
    if (!this.open) throw new Error(`${what} written outside a unit of work`);
    this.open.push(what);
  }
}

t.test('a queued write is committed before any later transaction, in its own commit', async (t) => {
  const journal = new Journal();
  const turns: (() => number)[] = [];
  const tx = new Transactions(journal, (run) => turns.push(run));
  const knock = tx.commitGrouped({ write: () => journal.write('knock') });
  t.same(journal.commits, [], 'queued, not yet committed');
  tx.atomically(() => journal.write('admit'));
  t.same(journal.commits, [['knock'], ['admit']], 'the queued knock first: the admission cannot overtake it');
  await knock;
  t.equal(
    turns.splice(0).reduce((n, run) => n + run(), 0),
    0,
    'the scheduled group found nothing left to commit',
  );
});

t.test('a nested transaction is part of the outer one: one commit', async (t) => {
  const journal = new Journal();
  const tx = new Transactions(journal);
  tx.atomically(() => {
    journal.write('a');
    tx.atomically(() => journal.write('b'));
  });
  t.same(journal.commits, [['a', 'b']]);
});

t.test('a failed commit takes back the memory changes registered in it, newest first', async (t) => {
  const journal = new Journal();
  const tx = new Transactions(journal);
  const memory: string[] = ['before'];
  tx.onRollback(() => memory.push('outside a transaction: never'));
  journal.failNext = true;
  t.throws(
    () =>
      tx.atomically(() => {
        memory.push('one');
        tx.onRollback(() => t.same(memory.pop(), 'one', 'the older change is undone last'));
        memory.push('two');
        tx.onRollback(() => t.same(memory.pop(), 'two', 'the newer change is undone first'));
      }),
    /disk full/,
  );
  t.same(memory, ['before'], 'memory is as it was');
  tx.atomically(() => journal.write('next'));
  t.same(journal.commits, [['next']], 'the next transaction commits alone, nothing left over');
  t.same(memory, ['before'], 'no undo step of the failed transaction ran again');
});

t.test('what waits for the commit runs after it, in order, and never for a failed one', async (t) => {
  const journal = new Journal();
  const tx = new Transactions(journal);
  const told: string[] = [];
  tx.afterCommit(() => told.push('outside a transaction: at once'));
  t.same(told, ['outside a transaction: at once']);
  tx.atomically(() => {
    journal.write('a');
    tx.afterCommit(() => told.push(`after ${journal.commits.length} commit(s): one`));
    tx.atomically(() => tx.afterCommit(() => told.push('two, from the nested one')));
    t.equal(told.length, 1, 'nothing runs before the commit');
  });
  t.same(told.slice(1), ['after 1 commit(s): one', 'two, from the nested one']);
  journal.failNext = true;
  t.throws(() => tx.atomically(() => tx.afterCommit(() => told.push('never'))), /disk full/);
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

t.test('the waiting room reaches transactions through the shared port, not through MeetingService', async (t) => {
  const f = new Fixture({ defer: (run) => void run() });
  t.notOk(
    'atomically' in f.meetings || 'commitGrouped' in f.meetings,
    'MeetingService no longer hands out transactions',
  );
  f.room();
  const commits = f.store.commits;
  const { requestId } = await f.knock('Ann');
  t.equal(f.store.commits, commits + 1, 'the knock: one commit of the unit of work');
  await f.waiting.admit('r1', requestId, api());
  t.equal(f.store.commits, commits + 2, 'her admission (participant, request, timeline): one more');
  t.same(await f.kinds(), ['knock', 'admit']);
  // A failing unit of work leaves nothing of the gesture, on disk or in memory.
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

/** An asynchronous store (as PostgreSQL's adapter will be): the work awaits its writes, `run` resolves after COMMIT. */
class AsyncMemoryUnit implements UnitOfWork<'async'> {
  readonly rows: string[] = [];
  private pending: string[] | null = null;

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.pending) return work();
    this.pending = [];
    try {
      const value = await work();
      await Promise.resolve(); // the COMMIT's round trip
      this.rows.push(...this.pending);
      return value;
    } finally {
      this.pending = null;
    }
  }

  async insert(row: string): Promise<void> {
    await Promise.resolve();
    this.pending?.push(row);
  }
}

t.test('the port takes an asynchronous store: committed on resolve, nothing of a rejected unit', async (t) => {
  const unit = new AsyncMemoryUnit();
  const value = await unit.run(async () => {
    await unit.insert('meeting');
    await unit.run(async () => unit.insert('participant'));
    return 42;
  });
  t.equal(value, 42);
  t.same(unit.rows, ['meeting', 'participant']);
  await t.rejects(
    unit.run(async () => {
      await unit.insert('half');
      throw new Error('lost connection');
    }),
    /lost connection/,
  );
  t.same(unit.rows, ['meeting', 'participant'], 'nothing of the failed unit');
});

t.test('the memory store of the engine tests is a unit of work: a failed run restores every table', async (t) => {
  const store = new MemoryStore();
  store.commitError = new Error('disk full');
  t.throws(() =>
    store.run(() =>
      store.insertMeeting({
        meetingId: 'm1',
        roomId: 'r1',
        startedAt: '2030-01-01T00:00:00.000Z',
        endedAt: null,
        waitingDisabled: false,
        subject: '',
      }),
    ),
  );
  t.same(store.openMeetings(), []);
});

/** A store whose group commits sync to disk later, when the test says (SQLite: the WAL's fdatasync off the event loop). */
class SyncedLaterJournal extends Journal {
  readonly syncs: { resolve: () => void; reject: (error: Error) => void }[] = [];

  runSyncedLater<T>(work: () => T): { value: T; durable: Promise<void> } {
    const value = this.run(work);
    const durable = new Promise<void>((resolve, reject) => this.syncs.push({ resolve, reject }));
    return { value, durable };
  }
}

t.test('a group synced off the event loop: memory follows at the commit, the answer waits for the sync', async (t) => {
  const journal = new SyncedLaterJournal();
  const tx = new Transactions(journal, (run) => setImmediate(run));
  const applied: string[] = [];
  let answered = false;
  const knock = tx
    .commitGrouped({
      write: () => {
        journal.write('knock');
        return 'k1';
      },
      committed: (value) => applied.push(value),
    })
    .then((value) => {
      answered = true;
      return value;
    });
  tx.atomically(() => journal.write('admit'));
  t.same(journal.commits, [['knock'], ['admit']], 'the queued knock is still committed before the admission');
  t.same(applied, ['k1'], 'memory follows the commit at once');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(answered, false, 'not answered while its sync to disk is under way');
  journal.syncs[0]!.resolve();
  t.equal(await knock, 'k1', 'answered once the sync returned');

  const refused = tx.commitGrouped({ write: () => journal.write('knock 2') });
  tx.flushGrouped();
  journal.syncs[1]!.reject(new Error('EIO'));
  await t.rejects(refused, /EIO/, 'a failed sync is told to the knock, never answered as durable');
});
