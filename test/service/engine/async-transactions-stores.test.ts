// Issue 34 point 2 on both stores (SQLite behind the asynchronous port, and PostgreSQL, which runs
// the units of different rooms at once): the engine's asynchronous transactions commit a turn's
// queued writes together and nothing of a failed group; two transactions under way at once each
// take back and announce only their own steps; and a room's turn (KeyedQueue) keeps a read-then-write
// transition from being applied twice when two callers ask at the same moment.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { AsyncTransactions } from '../../../src/engine/async-transactions.js';
import { KeyedQueue } from '../../../src/engine/keyed-queue.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { openDatabase } from '../../../src/store/database.js';
import type { AsyncStores } from '../../../src/engine/async-ports.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const nextTurn = (run: () => Promise<number>) => setImmediate(() => void run());

onEachStore(
  'a turn of queued writes is one unit; a failed group leaves nothing and rejects every write',
  async (t, stores) => {
    const tx = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage(), nextTurn);
    const committed: string[] = [];
    const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
    await Promise.all(
      ids.map((id) =>
        tx.commitGrouped({ write: () => stores.rooms.insert(room(id)), committed: () => committed.push(id) }),
      ),
    );
    t.same(committed, ids, 'memory followed in queue order');
    for (const id of ids) t.ok(await stores.rooms.get(id), `${id} is stored`);

    const failed: string[] = [];
    const group = ['s1', 's2', 'r0'].map((id) =>
      tx.commitGrouped({ write: () => insertOrThrow(stores, id), failed: () => failed.push(id) }),
    );
    for (const write of group) await t.rejects(write, /r0 exists/);
    t.same(failed, ['s1', 's2', 'r0'], 'every write of the group is told');
    t.equal(await stores.rooms.get('s1'), null, 'nothing of the failed group is stored');
    t.equal(await stores.rooms.get('s2'), null);
  },
);

async function insertOrThrow(stores: AsyncStores, id: string): Promise<void> {
  if (!(await stores.rooms.insert(room(id)))) throw new Error(`${id} exists`);
}

onEachStore('two transactions at once: each takes back and announces only its own steps', async (t, stores) => {
  const tx = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage());
  const memory = new Set<string>();
  const told: string[] = [];
  let open = 0;
  const change = (id: string, fail: boolean) =>
    tx.atomically(async () => {
      await stores.rooms.insert(room(id));
      memory.add(id);
      tx.onRollback(() => memory.delete(id));
      tx.afterCommit(() => told.push(id));
      // Both under way at once on PostgreSQL (SQLite's units take turns: there A waits alone, briefly).
      open += 1;
      for (let i = 0; i < 2000 && open < 2; i++) await new Promise((resolve) => setImmediate(resolve));
      await stores.rooms.children(id);
      if (fail) throw new Error(`${id} refused`);
    });
  const [a, b] = await Promise.allSettled([change('room-a', true), change('room-b', false)]);
  t.match(a, { status: 'rejected', reason: { message: 'room-a refused' } });
  t.equal(b.status, 'fulfilled');
  t.same([...memory], ['room-b'], "A's failure took back A's change only");
  t.same(told, ['room-b'], 'only the committed transaction is announced');
  t.equal(await stores.rooms.get('room-a'), null);
  t.ok(await stores.rooms.get('room-b'));
});

onEachStore("a room's turn: two callers deciding at once, the transition happens once", async (t, stores) => {
  const tx = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage());
  const turns = new KeyedQueue(new AsyncLocalStorage());
  await stores.rooms.insert({ ...room('r1'), name: 'free' });
  // Read, then write what the read allowed: the shape of an admission (waiting? then admitted).
  // Between the two, each waits (2,000 turns of the loop at most, some 0.1 s) for the other to have read too,
  // so without the turn both would read "free" on PostgreSQL and both would write.
  let reads = 0;
  const claim = (by: string) =>
    turns.run('r1', () =>
      tx.atomically(async () => {
        const current = await stores.rooms.get('r1');
        reads += 1;
        for (let i = 0; i < 2000 && reads < 2; i++) await new Promise((resolve) => setImmediate(resolve));
        if (current?.name !== 'free') throw new Error('request_not_waiting');
        await stores.rooms.update({ ...current, name: by });
        return by;
      }),
    );
  const [first, second] = await Promise.allSettled([claim('Mod A'), claim('Mod B')]);
  t.match(first, { status: 'fulfilled', value: 'Mod A' });
  t.match(second, { status: 'rejected', reason: { message: 'request_not_waiting' } });
  t.equal((await stores.rooms.get('r1'))?.name, 'Mod A', 'decided once, by the first in line');
});

// SqliteRoomStore keeps the rooms it read in memory (`known`); one read inside a unit that then
// rolled back stayed there, so the SQLite adapter answered a room that was not on disk.
t.test('SQLite: a room read inside a unit that rolls back is not answered afterwards', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-room-cache-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const stores = sqliteAsyncStores(db);
  await t.rejects(
    stores.unitOfWork.run(async () => {
      await stores.rooms.insert(room('gone'));
      await stores.rooms.get('gone');
      throw new Error('refused');
    }),
  );
  t.equal(await stores.rooms.get('gone'), null);
});
