// Issue 34 point 2: the meeting API's callbacks queue, one contract on both adapters: jobs come
// back pending by when they are due, then by id; a retry moves a job back in the queue, a give-up
// or a delivery takes it out, over another connection too; a claim takes the due jobs in that
// order and leases them, and two claims at once (two nodes) never take the same job.
import type { CallbackJob, NewCallbackJob } from '../../../src/compat/confapi/model.js';
import { onEachCompatStore } from '../../helpers/compat-store-adapters.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');

const job = (n: number, nextAt: number, fields: Partial<NewCallbackJob> = {}): NewCallbackJob => ({
  kind: 'meeting_ended',
  tenantId: 'uni',
  internalId: `int-${n}`,
  method: 'GET',
  url: `https://lms.example/end?n=${n}&ä=ü`,
  body: null,
  contentType: null,
  nextAt: t0 + nextAt,
  createdAt: t0,
  ...fields,
});

const order = (jobs: readonly CallbackJob[]) => jobs.map((j) => j.internalId);

onEachCompatStore('pending by due time then id; retry, give-up and delivery', async (t, { store, another }) => {
  const first = await store.insertCallback(job(1, 0));
  t.same(
    { ...first, id: 0 },
    { ...job(1, 0), id: 0, attempts: 0, doneAt: null, outcome: null, lastError: null },
    'a new job, as stored',
  );
  const body = '<analytics>' + 'ü'.repeat(20_000) + '</analytics>';
  const second = await store.insertCallback(
    job(2, 0, { kind: 'analytics', method: 'POST', body, contentType: 'application/xml; charset=utf-8' }),
  );
  const third = await store.insertCallback(job(3, -10));
  t.ok(first.id < second.id && second.id < third.id, 'ids ascend');
  t.same(order(await store.pendingCallbacks()), ['int-3', 'int-1', 'int-2'], 'due first, then by id');
  t.same((await another().pendingCallbacks())[2], second, 'another connection reads them whole');

  // A retry: one attempt more, due later, its error kept.
  const retried = { ...third, attempts: 1, nextAt: t0 + 30_000, lastError: 'answered HTTP 503' };
  await store.updateCallback(retried);
  t.same(order(await store.pendingCallbacks()), ['int-1', 'int-2', 'int-3'], 'a retried job goes back');
  // A give-up and a delivery take jobs out of the queue for good.
  await store.updateCallback({ ...retried, attempts: 6, doneAt: t0 + 99, outcome: 'gave_up', lastError: 'timeout' });
  await store.updateCallback({ ...first, attempts: 1, doneAt: t0 + 1, outcome: 'delivered' });
  const node = another();
  t.same(await node.pendingCallbacks(), [second], 'only the job not done');
  t.same(await node.claimDueCallbacks(t0 + 1_000_000, t0 + 2_000_000, 10), [{ ...second, nextAt: t0 + 2_000_000 }]);
});

onEachCompatStore('a claim takes the due jobs in order and leases them until they are due again', async (t, s) => {
  const { store } = s;
  for (const [n, at] of [
    [1, 20],
    [2, 10],
    [3, 10],
    [4, 500],
  ] as const)
    await store.insertCallback(job(n, at));
  t.same(await store.claimDueCallbacks(t0 + 5, t0 + 1000, 10), [], 'nothing due yet');
  await t.rejects(
    store.transaction(async () => {
      t.equal((await store.claimDueCallbacks(t0 + 100, t0 + 1000, 10)).length, 3, 'claimed inside a transaction');
      throw new Error('the sender failed');
    }),
    /the sender failed/,
  );
  const claimed = await store.claimDueCallbacks(t0 + 100, t0 + 1000, 2);
  t.same(order(claimed), ['int-2', 'int-3'], 'oldest due first, then by id, at most the limit');
  t.ok(
    claimed.every((j) => j.nextAt === t0 + 1000 && j.attempts === 0),
    'leased: due again when the lease ends',
  );
  t.same(order(await s.another().claimDueCallbacks(t0 + 100, t0 + 1000, 10)), ['int-1'], 'the rest, on another node');
  t.same(await store.claimDueCallbacks(t0 + 400, t0 + 2000, 10), [], 'leased jobs are not claimed again');
  // The sender of int-2 delivered it; int-3's sender died: at the lease's end int-3 is due again.
  await store.updateCallback({ ...claimed[0]!, attempts: 1, doneAt: t0 + 200, outcome: 'delivered' });
  t.same(
    order(await store.claimDueCallbacks(t0 + 1000, t0 + 3000, 10)),
    ['int-4', 'int-1', 'int-3'],
    'the lease of int-1 and int-3 ended: due again, after int-4 (due earlier)',
  );
});

onEachCompatStore('two claims at once never take the same job', async (t, { store, another }) => {
  const ids: number[] = [];
  for (let n = 1; n <= 40; n += 1) ids.push((await store.insertCallback(job(n, n % 7))).id);
  const nodes = [store, store, another(), another(), another()];
  // Each sender claims until nothing is left, all of them at once. A sender whose pool is still
  // connecting may find nothing left, so how the work splits is not asserted, only that one
  // round of claims at once leaves everyone a distinct share (40 jobs are enough for 5 × 3).
  const first = await Promise.all(nodes.map((node) => node.claimDueCallbacks(t0 + 10, t0 + 60_000, 3)));
  t.same(
    first.map((got) => got.length),
    [3, 3, 3, 3, 3],
    'five claims at once: each takes its own three',
  );
  const results = await Promise.all(
    nodes.map(async (node, i) => {
      const mine: CallbackJob[] = [...first[i]!];
      for (;;) {
        const got = await node.claimDueCallbacks(t0 + 10, t0 + 60_000, 3);
        if (got.length === 0) return mine;
        mine.push(...got);
      }
    }),
  );
  const taken = results.flat().map((j) => j.id);
  t.equal(new Set(taken).size, taken.length, 'no job taken twice');
  t.same(
    [...taken].sort((a, b) => a - b),
    ids,
    'every due job taken once',
  );
});
