// Issue 34 point 2 (the meeting API's callbacks on a shared store): the sender claims due jobs
// (claimDueCallbacks, a lease) instead of reading the pending ones, so two senders on one store
// (two nodes of a cluster, or two daemons on one SQLite file) deliver each callback once. Run on
// both adapters; requests are counted on a real local HTTP receiver.
import { CallbackQueue } from '../../../src/compat/confapi/callbacks.js';
import type { NewCallbackJob } from '../../../src/compat/confapi/model.js';
import { TargetGuard } from '../../../src/compat/confapi/target-guard.js';
import { receiverFor } from '../../helpers/compat.js';
import { onEachCompatStore } from '../../helpers/compat-store-adapters.js';

const quiet = { info: () => {}, warn: () => {} };

onEachCompatStore('two senders on one store deliver each callback once', async (t, { store, another }) => {
  const receiver = await receiverFor(t, 200);
  const job = (n: number): Omit<NewCallbackJob, 'nextAt' | 'createdAt'> => ({
    kind: 'meeting_ended',
    tenantId: 'uni',
    internalId: `int-${n}`,
    method: 'GET',
    url: `${receiver.url}/end?n=${n}`,
    body: null,
    contentType: null,
  });
  // Left pending by a previous run: both senders find them at start.
  for (let n = 0; n < 12; n++) await store.insertCallback({ ...job(n), nextAt: Date.now(), createdAt: Date.now() });
  const senders = [store, another()].map((node) => new CallbackQueue(node, new TargetGuard(['127.0.0.1']), quiet));
  t.teardown(() => Promise.all(senders.map((s) => s.stop())));
  for (const sender of senders) sender.start();
  // And queued while both run, through either node.
  for (let n = 12; n < 24; n++) await senders[n % 2]!.enqueue(job(n));

  const deadline = Date.now() + 10_000;
  while ((await store.pendingCallbacks()).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await Promise.all(senders.map((s) => s.idle()));
  t.same(await store.pendingCallbacks(), [], 'every job is done');
  const counts = new Map<string, number>();
  for (const r of receiver.received) counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
  t.equal(counts.size, 24, 'every callback arrived');
  t.same(
    [...counts].filter(([, count]) => count !== 1),
    [],
    'none arrived twice',
  );
  t.equal(receiver.received.length, 24, '24 requests for 24 callbacks');
});
