// Issue 34 point 2: one operation at a time per key (a room), in arrival order; keys independent;
// a key its own operation holds runs at once; a failure rejects only its caller.
import t from 'tap';
import { AsyncLocalStorage } from 'node:async_hooks';
import { KeyedQueue } from '../../../src/engine/keyed-queue.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

t.test('operations on one key run one at a time, in arrival order; other keys do not wait', async (t) => {
  const queue = new KeyedQueue(new AsyncLocalStorage());
  const log: string[] = [];
  const op = (name: string, turns: number) => async () => {
    log.push(`${name} starts`);
    for (let i = 0; i < turns; i++) await turn();
    log.push(`${name} ends`);
    return name;
  };
  const results = await Promise.all([
    queue.run('r1', op('a1', 3)),
    queue.run('r1', op('a2', 0)),
    queue.run('r2', op('b1', 1)),
  ]);
  t.same(results, ['a1', 'a2', 'b1']);
  t.same(log, ['a1 starts', 'b1 starts', 'b1 ends', 'a1 ends', 'a2 starts', 'a2 ends']);
  await turn();
  t.equal(queue.size, 0, 'nothing kept once the keys are idle');
});

t.test('two admissions of one person at once: the first admits, the second finds her gone', async (t) => {
  const queue = new KeyedQueue(new AsyncLocalStorage());
  const waiting = new Set(['ann']);
  const admitted: string[] = [];
  // An admission that awaits the store between its check and its write, as the async engine does.
  const admit = (who: string) =>
    queue.run('r1', async () => {
      if (!waiting.has(who)) throw new Error('request_not_waiting');
      await turn();
      waiting.delete(who);
      admitted.push(who);
    });
  const [first, second] = await Promise.allSettled([admit('ann'), admit('ann')]);
  t.equal(first.status, 'fulfilled');
  t.match(second, { status: 'rejected', reason: { message: 'request_not_waiting' } });
  t.same(admitted, ['ann'], 'admitted once');
});

t.test('a failing operation rejects its caller only; the next in line runs', async (t) => {
  const queue = new KeyedQueue(new AsyncLocalStorage());
  const failed = queue.run('r1', async () => {
    await turn();
    throw new Error('disk full');
  });
  const next = queue.run('r1', () => 'ran');
  await t.rejects(failed, /disk full/);
  t.equal(await next, 'ran');
});

t.test('an operation asking for a key it holds runs at once; a timer it started later waits its turn', async (t) => {
  const queue = new KeyedQueue(new AsyncLocalStorage());
  const log: string[] = [];
  const timers: Promise<void>[] = [];
  await queue.run('r1', async () => {
    await queue.run('r1', () => log.push('inner, at once'));
    timers.push(
      new Promise<void>((resolve) =>
        setImmediate(() => void queue.run('r1', () => log.push('timer, in line')).then(() => resolve())),
      ),
    );
    void queue.run('r2', () => log.push('other key'));
  });
  const other = queue.run('r1', async () => {
    await turn();
    await turn();
    log.push('next op');
  });
  await other;
  await Promise.all(timers);
  t.same(log, ['inner, at once', 'other key', 'next op', 'timer, in line']);
});

t.test('inside a transaction a key is refused at once, unless the caller holds it already', async (t) => {
  let inside = false;
  const queue = new KeyedQueue(new AsyncLocalStorage(), () => inside);
  const ran: string[] = [];
  inside = true;
  await t.rejects(
    queue.run('r1', () => ran.push('r1')),
    { message: 'the turn of r1 was asked for inside a transaction: take it before' },
    'refused, not left waiting for a turn whose holder may wait for the transaction',
  );
  t.same(ran, [], 'the operation never ran');
  inside = false;
  await queue.run('r1', async () => {
    // The turn taken first, then a transaction inside it: the held key runs at once, another is refused.
    inside = true;
    await queue.run('r1', () => ran.push('r1, held'));
    await t.rejects(
      queue.run('r2', () => ran.push('r2')),
      /the turn of r2 was asked for inside a transaction/,
    );
    inside = false;
  });
  t.same(ran, ['r1, held']);
});

// Issue 34 point 7: a screening's turn (the knock's) sets no context, so the knock's path runs no
// AsyncLocalStorage; it keeps its place in line with the turns that do, and is refused inside a transaction.
t.test('runAlone: in line with run, no context set, refused inside a transaction', async (t) => {
  const refusing = {
    run(): never {
      throw new Error('a context was run');
    },
    getStore: () => undefined,
  };
  let inside = false;
  const queue = new KeyedQueue(refusing, () => inside);
  const log: string[] = [];
  const slow = (name: string) => async () => {
    log.push(`${name} starts`);
    await turn();
    log.push(`${name} ends`);
    return name;
  };
  const results = await Promise.all([
    queue.runAlone('r1', slow('a')),
    queue.runAlone('r1', slow('b')),
    queue.runAlone('r2', slow('c')),
  ]);
  t.same(results, ['a', 'b', 'c']);
  t.same(
    log.filter((line) => !line.startsWith('c')),
    ['a starts', 'a ends', 'b starts', 'b ends'],
    'one at a time per key',
  );
  t.ok(log.indexOf('c starts') < log.indexOf('a ends'), 'another key does not wait');
  inside = true;
  await t.rejects(queue.runAlone('r1', slow('d')), /the turn of r1 was asked for inside a transaction/);
  inside = false;
  const mixed = new KeyedQueue(new AsyncLocalStorage());
  const order: string[] = [];
  await Promise.all([
    mixed.run('r1', async () => {
      await turn();
      order.push('run');
    }),
    mixed.runAlone('r1', () => order.push('alone')),
  ]);
  t.same(order, ['run', 'alone'], 'a turn taken alone waits behind one taken with its context');
});
