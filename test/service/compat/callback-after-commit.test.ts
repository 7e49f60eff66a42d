// A callback queued inside a transaction (the meeting's end writes its row and its callback in one)
// is sent once that transaction commits, and never when it rolls back, on both stores. Two faults
// found by CI run 32 (lifecycle's PostgreSQL half waited 5 s for an end callback that never came):
// the queue's timer, set inside the transaction, ran its claim inside it too (where the job is
// seen before the commit); and a claim outside it, on PostgreSQL's other connection, found nothing
// before the commit, and nothing woke the queue again.
import { CallbackQueue } from '../../../src/compat/confapi/callbacks.js';
import { CachedCompatStore } from '../../../src/compat/confapi/cached-store.js';
import { TargetGuard } from '../../../src/compat/confapi/target-guard.js';
import type { NewCallbackJob } from '../../../src/compat/confapi/model.js';
import { onEachCompatStore } from '../../helpers/compat-store-adapters.js';
import { receiverFor } from '../../helpers/compat.js';

const quiet = { info: () => undefined, warn: () => undefined };
const turns = async (n: number) => {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

onEachCompatStore(
  'a callback queued in a transaction is sent once it commits, never when it rolls back',
  async (t, { store }) => {
    const receiver = await receiverFor(t);
    const cached = await CachedCompatStore.load(store);
    const queue = new CallbackQueue(cached, new TargetGuard(['127.0.0.1']), quiet, { retryDelaysMs: [0, 50] });
    t.teardown(() => queue.stop());
    queue.start();

    const ended = (meeting: string): Omit<NewCallbackJob, 'nextAt' | 'createdAt'> => ({
      kind: 'meeting_ended',
      tenantId: 'uni',
      internalId: `int-${meeting}`,
      method: 'GET',
      url: `${receiver.url}/end/${meeting}?meetingID=${meeting}`,
      body: null,
      contentType: null,
    });

    await t.rejects(
      cached.transaction(async () => {
        await queue.enqueue(ended('rolled-back'));
        await turns(10);
        throw new Error('the end failed');
      }),
      'a transaction that rolls back',
    );
    await turns(120);
    t.equal(receiver.received.length, 0, 'sends no callback of its job, before or after');

    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const transaction = cached.transaction(async () => {
      await queue.enqueue(ended('physics'));
      // The queue's wake runs while the transaction is still open (a slow commit, a busy database).
      await turns(10);
      await held;
    });
    await turns(20);
    t.equal(receiver.received.length, 0, 'nothing is sent before the commit');
    commit();
    await transaction;
    t.match((await receiver.next()).url, /^\/end\/physics\?meetingID=physics$/, 'sent after the commit');
  },
);
