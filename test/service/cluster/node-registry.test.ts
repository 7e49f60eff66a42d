// Issue 35 point 1 (stage 1): a node registers, beats every beatEveryMs with its load under an
// injected clock and scheduler, and marks itself gone on a clean stop; one whose beats stop is
// dead after aliveWithinMs in another's view; a second start under the id of a live node is
// refused while the first beats, and takes the id once the first is gone or dead. The same
// rules hold on PostgreSQL (a fresh database per test) and in the memory fake service tests use.
import t, { type Test } from 'tap';
import {
  aliveWithinMs,
  beatEveryMs,
  DuplicateNodeError,
  NodePresence,
  type NodeLoad,
  type NodeRegistry,
} from '../../../src/engine/cluster/nodes.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres } from '../../../src/platform/postgres.js';
import { PostgresNodeRegistry } from '../../../src/store/postgres/node-registry.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { MemoryNodeRegistry } from '../../helpers/memory-nodes.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

async function postgresRegistry(t: Test): Promise<NodeRegistry> {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const sql = openPostgres(target, { max: 2, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  await migratePostgres(sql, engineSchema, engineMigrationSteps());
  return new PostgresNodeRegistry(sql);
}

/** Lets the beat the scheduler just ran reach the registry (a store answers asynchronously). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

function world(registry: NodeRegistry) {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler(clock);
  const loads = new Map<string, NodeLoad>();
  let n = 0;
  const node = (nodeId: string, problems: unknown[] = []) => {
    n += 1;
    loads.set(nodeId, { openRooms: 0, liveSockets: 0 });
    return new NodePresence(
      registry,
      { nodeId, incarnation: `start-${n}`, httpAddress: `http://127.0.0.1:${3000 + n}` },
      () => loads.get(nodeId)!,
      clock,
      scheduler,
      (problem) => problems.push(problem),
    );
  };
  const step = async (ms: number) => {
    for (let done = 0; done < ms; done += beatEveryMs) {
      scheduler.advance(Math.min(beatEveryMs, ms - done));
      await settle();
    }
  };
  return { clock, scheduler, loads, node, step };
}

const stores: [string, (t: Test) => Promise<NodeRegistry>][] = [
  ['memory', () => Promise.resolve(new MemoryNodeRegistry())],
  ['PostgreSQL', postgresRegistry],
];

for (const [store, open] of stores) {
  const test =
    store === 'PostgreSQL' ? postgresTest : (name: string, fn: (t: Test) => Promise<void>) => t.test(name, fn);

  test(`${store}: register, beat with the load, dead after the beat timeout, gone on a clean stop`, async (t) => {
    const registry = await open(t);
    const { clock, scheduler, loads, node, step } = world(registry);
    const a = node('web-a');
    const b = node('web-b');
    const startedAt = clock.now();
    await a.start();
    await b.start();
    t.same(
      (await a.aliveNodes()).map((x) => x.nodeId),
      ['web-a', 'web-b'],
      'both alive, the asking node first',
    );
    t.same(
      (await b.aliveNodes()).map((x) => x.nodeId),
      ['web-b', 'web-a'],
    );
    const [first] = await registry.list();
    t.match(first, { nodeId: 'web-a', httpAddress: 'http://127.0.0.1:3001', goneAt: null });
    t.equal(first!.startedAt.getTime(), startedAt.getTime());

    loads.set('web-a', { openRooms: 3, liveSockets: 41 });
    await step(beatEveryMs);
    const beaten = (await registry.list()).find((x) => x.nodeId === 'web-a')!;
    t.equal(beaten.lastBeatAt.getTime(), startedAt.getTime() + beatEveryMs, 'the beat is the clock’s time');
    t.same(beaten.load, { openRooms: 3, liveSockets: 41 }, 'the beat carries the load');

    // web-b stops beating without a word (kill -9): its scheduled beat never runs.
    (b as unknown as { stopped: boolean }).stopped = true;
    scheduler.clearTimeout((b as unknown as { timer: unknown }).timer);
    await step(aliveWithinMs - beatEveryMs);
    t.same(
      (await a.aliveNodes()).map((x) => x.nodeId),
      ['web-a', 'web-b'],
      'still alive within the timeout',
    );
    await step(beatEveryMs);
    t.same(
      (await a.aliveNodes()).map((x) => x.nodeId),
      ['web-a'],
      'dead once its last beat is older than the timeout',
    );

    await a.stop();
    t.equal(scheduler.size, 0, 'a stopped node schedules no beat');
    const gone = (await registry.list()).find((x) => x.nodeId === 'web-a')!;
    t.equal(gone.goneAt?.getTime(), clock.now().getTime(), 'a clean stop says gone at once');
    t.same(await a.aliveNodes(), []);
  });

  test(`${store}: a duplicate node id is refused while its holder beats, taken once it is dead or gone`, async (t) => {
    const registry = await open(t);
    const { node, step } = world(registry);
    const first = node('web-a');
    await first.start();
    await step(10 * beatEveryMs);
    const twin = node('web-a');
    const refusal = await twin.start().then(
      () => null,
      (err: unknown) => err,
    );
    t.type(refusal, DuplicateNodeError);
    t.match((refusal as Error).message, /node id web-a is held by a live node at http:\/\/127\.0\.0\.1:3001/);
    t.same(
      (await registry.list()).map((x) => x.httpAddress),
      ['http://127.0.0.1:3001'],
      'the refused start changed nothing',
    );
    await step(beatEveryMs);
    t.equal((await registry.list())[0]!.lastBeatAt.getTime() > 0, true);
    const problems: unknown[] = [];
    await first.stop();
    const successor = node('web-a', problems);
    await successor.start();
    t.same(
      (await registry.list()).map((x) => [x.httpAddress, x.goneAt]),
      [['http://127.0.0.1:3003', null]],
      'after a clean stop the id is free',
    );
    // The stopped start's late word cannot touch its successor's row.
    t.equal(await registry.beat('web-a', 'start-1', new Date(), { openRooms: 9, liveSockets: 9 }), false);
    await registry.markGone('web-a', 'start-1', new Date());
    t.equal((await registry.list())[0]!.goneAt, null, 'the old start cannot mark its successor gone');
    await step(beatEveryMs);
    t.same(problems, [], 'the successor beats its own row');
  });

  test(`${store}: a dead holder's id is taken after the beat timeout`, async (t) => {
    const registry = await open(t);
    const { node, step, scheduler } = world(registry);
    const dead = node('web-a');
    await dead.start();
    scheduler.clearTimeout((dead as unknown as { timer: unknown }).timer);
    await step(aliveWithinMs - beatEveryMs);
    await t.rejects(node('web-a').start(), DuplicateNodeError, 'within the timeout: refused');
    await step(beatEveryMs);
    await node('web-a').start();
    t.match(await registry.list(), [{ nodeId: 'web-a', httpAddress: 'http://127.0.0.1:3003', goneAt: null }]);
  });
}
