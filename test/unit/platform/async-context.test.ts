// One AsyncLocalStorage carries every context of the process (platform/async-context.ts): each
// slot must still behave as an AsyncLocalStorage of its own, through awaits, timers and nesting,
// and leave the other slots' values alone (the engine's transactions, turns and units of work
// read theirs from the same carrier).
import t from 'tap';
import { contextSlot } from '../../../src/platform/async-context.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('a slot follows its run through awaits and timers; outside it there is nothing', async (t) => {
  const slot = contextSlot<string>();
  t.equal(slot.getStore(), undefined);
  const seen = await slot.run('a', async () => {
    const before = slot.getStore();
    await tick();
    const afterAwait = slot.getStore();
    const inTimer = await new Promise((resolve) => setTimeout(() => resolve(slot.getStore()), 1));
    return [before, afterAwait, inTimer];
  });
  t.same(seen, ['a', 'a', 'a']);
  t.equal(slot.getStore(), undefined, 'the run is over');
});

t.test('slots are independent: setting one keeps the others; the inner run of one slot hides the outer', async (t) => {
  const tx = contextSlot<string>();
  const turn = contextSlot<string>();
  const seen: unknown[] = [];
  await turn.run('room-1', () =>
    tx.run('tx-1', async () => {
      seen.push([turn.getStore(), tx.getStore()]);
      await tx.run('tx-2', async () => {
        await tick();
        seen.push([turn.getStore(), tx.getStore()]);
      });
      seen.push([turn.getStore(), tx.getStore()]);
    }),
  );
  t.same(seen, [
    ['room-1', 'tx-1'],
    ['room-1', 'tx-2'],
    ['room-1', 'tx-1'],
  ]);
});

t.test('two runs of one slot at once never see each other', async (t) => {
  const slot = contextSlot<number>();
  const run = (n: number) =>
    slot.run(n, async () => {
      const seen: (number | undefined)[] = [];
      for (let i = 0; i < 3; i++) {
        await tick();
        seen.push(slot.getStore());
      }
      return seen;
    });
  t.same(await Promise.all([run(1), run(2)]), [
    [1, 1, 1],
    [2, 2, 2],
  ]);
});

t.test('a value set to undefined reads as undefined, not as the outer run', async (t) => {
  const slot = contextSlot<string | undefined>();
  slot.run('outer', () => slot.run(undefined, () => t.equal(slot.getStore(), undefined)));
});
