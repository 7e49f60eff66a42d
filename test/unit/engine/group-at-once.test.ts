// Issue 34 point 7: on a store that applies calls made at once in the order made
// (UnitOfWork.inOrderAtOnce: PostgreSQL on one node), a group's writes are sent together, so the
// group costs one round trip instead of one a write; elsewhere (SQLite, a clustered node whose
// fence awaits before each write) one after another, as before. Writes are held by hand here, so
// "sent before the first answered" is seen, not timed.
import t from 'tap';
import { AsyncLocalStorage } from 'node:async_hooks';
import { AsyncTransactions } from '../../../src/engine/async-transactions.js';
import type { UnitOfWork } from '../../../src/engine/unit-of-work.js';

/** A unit that runs its work as it is and says whether calls made at once keep their order. */
function unit(atOnce: boolean | undefined): UnitOfWork<'async'> {
  return {
    run: (work) => work(),
    ...(atOnce === undefined ? {} : { inOrderAtOnce: () => atOnce }),
  };
}

/** Three queued writes, each answered when the test says: which were started, and their callers' answers. */
function threeWrites(transactions: AsyncTransactions) {
  const started: string[] = [];
  const answer = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const answers = ['a', 'b', 'c'].map((name) =>
    transactions
      .commitGrouped({
        write: () => {
          started.push(name);
          return new Promise<string>((resolve, reject) => answer.set(name, { resolve, reject }));
        },
      })
      .then(
        (value) => `${name}: ${value}`,
        (error: Error) => `${name} failed: ${error.message}`,
      ),
  );
  return { started, answer, answers };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** As the daemon groups them: the writes queued in one turn of the loop are one group. */
const nextTurn = (run: () => Promise<number>) => void setImmediate(() => void run());

t.test(
  'in order at once: the three writes are sent before the first is answered, answered in queue order',
  async (t) => {
    const w = threeWrites(new AsyncTransactions(unit(true), new AsyncLocalStorage(), nextTurn));
    await turn();
    t.same(w.started, ['a', 'b', 'c'], 'all three sent, in queue order');
    w.answer.get('c')!.resolve('third');
    w.answer.get('a')!.resolve('first');
    w.answer.get('b')!.resolve('second');
    t.same(await Promise.all(w.answers), ['a: first', 'b: second', 'c: third']);
  },
);

t.test('in order at once: one write failing fails the group, every caller told', async (t) => {
  const w = threeWrites(new AsyncTransactions(unit(true), new AsyncLocalStorage(), nextTurn));
  await turn();
  w.answer.get('b')!.reject(new Error('statement refused'));
  w.answer.get('a')!.resolve('first');
  w.answer.get('c')!.resolve('third');
  t.same(await Promise.all(w.answers), [
    'a failed: statement refused',
    'b failed: statement refused',
    'c failed: statement refused',
  ]);
});

for (const atOnce of [false, undefined]) {
  t.test(`not in order at once (${String(atOnce)}): each write waits for the one before`, async (t) => {
    const w = threeWrites(new AsyncTransactions(unit(atOnce), new AsyncLocalStorage(), nextTurn));
    await turn();
    t.same(w.started, ['a'], 'only the first sent');
    w.answer.get('a')!.resolve('first');
    await turn();
    t.same(w.started, ['a', 'b'], 'the second once the first was answered');
    w.answer.get('b')!.resolve('second');
    await turn();
    w.answer.get('c')!.resolve('third');
    t.same(await Promise.all(w.answers), ['a: first', 'b: second', 'c: third']);
  });
}
