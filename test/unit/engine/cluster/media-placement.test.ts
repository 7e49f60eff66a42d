// Issue 35 point 6: the two-choice rule that places a meeting's Janus room, over the memory store
// with a fake clock and an injected random source. 200 creates in 10 s over 4 servers stay within
// 1.2 of the mean; a dead server gets none; a meeting keeps its server; a move avoids the old one.
import t from 'tap';
import { MediaPlacement, twoChoices } from '../../../../src/engine/cluster/media-servers.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { MemoryMediaServers } from '../../../helpers/memory-media-servers.js';
import { seededRandom } from '../../../helpers/seeded-random.js';

const servers = ['http://j1/janus', 'http://j2/janus', 'http://j3/janus', 'http://j4/janus'];

t.test('two choices: two distinct servers, the less loaded of them', async (t) => {
  const live = [
    { url: 'a', load: 5 },
    { url: 'b', load: 1 },
    { url: 'c', load: 3 },
  ];
  // random() = 0 picks the first, then the first of the others: a and b, so b.
  t.equal(
    twoChoices(live, () => 0),
    'b',
  );
  // 0.99 picks c first, then the last of the others (b): b.
  t.equal(
    twoChoices(live, () => 0.99),
    'b',
  );
  const draws = [0.0, 0.6];
  // a, then index 1 of [b, c] → c: c (3) beats a (5).
  t.equal(
    twoChoices(live, () => draws.shift()!),
    'c',
  );
  t.equal(
    twoChoices([{ url: 'only', load: 9 }], () => 0.5),
    'only',
  );
  t.equal(
    twoChoices([], () => 0.5),
    null,
  );
  // Never the same server twice: over many draws, the pair always differs, so the most loaded never wins.
  const random = seededRandom(7);
  const chosen = new Set(Array.from({ length: 1000 }, () => twoChoices(live, random)));
  t.same([...chosen].sort(), ['b', 'c'], 'the most loaded never wins: the two are never the same server');
});

t.test('200 creates in 10 s over 4 servers: max/mean load at most 1.2', async (t) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const store = new MemoryMediaServers();
    await store.register(servers);
    const clock = new FakeClock();
    const placement = new MediaPlacement(store, seededRandom(seed), clock);
    for (let i = 0; i < 200; i += 1) {
      await placement.place(`meeting-${i}`);
      clock.advance(50);
    }
    const loads = (await placement.servers()).map((s) => s.load);
    t.equal(
      loads.reduce((a, b) => a + b, 0),
      200,
      `seed ${seed}: every create reserved one`,
    );
    const mean = 200 / servers.length;
    t.ok(Math.max(...loads) / mean <= 1.2, `seed ${seed}: loads ${loads.join(', ')}, max/mean ≤ 1.2`);
  }
});

t.test('a meeting keeps its server; an end releases its load', async (t) => {
  const store = new MemoryMediaServers();
  await store.register(servers);
  const placement = new MediaPlacement(store, seededRandom(11), new FakeClock());
  const first = await placement.place('m1');
  t.equal(await placement.place('m1'), first, 'asked again: the same server, no second reservation');
  t.equal((await placement.servers()).find((s) => s.url === first)?.load, 1);
  await placement.release('m1');
  t.same(
    (await placement.servers()).map((s) => s.load),
    [0, 0, 0, 0],
  );
  await placement.release('m1');
  t.same(
    (await placement.servers()).map((s) => s.load),
    [0, 0, 0, 0],
    'a second release changes nothing',
  );
});

t.test('a dead server gets no meeting; its meetings move elsewhere; it comes back', async (t) => {
  const store = new MemoryMediaServers();
  await store.register(servers.slice(0, 2));
  const clock = new FakeClock();
  const placement = new MediaPlacement(store, seededRandom(3), clock);
  const first = (await placement.place('m1'))!;
  const other = servers.slice(0, 2).find((url) => url !== first)!;
  await placement.markDead(first);
  t.same((await placement.servers()).find((s) => s.url === first)?.downSince, clock.now(), 'dead since now');
  clock.advance(1000);
  await placement.markDead(first);
  t.same(
    (await placement.servers()).find((s) => s.url === first)?.downSince,
    new Date(clock.now().getTime() - 1000),
    'the first death time stays',
  );
  const placed = new Set<string | null>();
  for (let i = 0; i < 20; i += 1) placed.add(await placement.place(`n${i}`));
  t.same([...placed], [other], 'every new meeting on the live server');
  t.equal(await placement.place('m1', first), other, 'm1 moves off the dead server');
  const loads = new Map((await placement.servers()).map((s) => [s.url, s.load]));
  t.equal(loads.get(first), 0, 'the dead server lost its reservation');
  t.equal(loads.get(other), 21);
  await placement.markDead(other);
  t.equal(await placement.place('m2'), null, 'no live server: placed nowhere');
  await placement.markAlive(first);
  t.equal(await placement.place('m2'), first, 'alive again: chosen again');
  t.equal(await placement.place('m1', other), first, 'moving off the other one lands on the live one');
});

t.test('a server off this node’s list gets no new meeting from it, though the store still has it', async (t) => {
  const store = new MemoryMediaServers();
  await store.register(servers);
  const placement = new MediaPlacement(store, seededRandom(5), new FakeClock(), servers.slice(0, 2));
  const placed = new Set<string | null>();
  for (let i = 0; i < 40; i += 1) placed.add(await placement.place(`m${i}`));
  t.same([...placed].sort(), servers.slice(0, 2), 'only the listed servers');
  const narrow = new MediaPlacement(store, seededRandom(5), new FakeClock(), ['http://elsewhere/janus']);
  t.equal(await narrow.place('x'), null, 'none of its list is in the store: placed nowhere');
  t.equal(await narrow.place('m0'), await store.serverOf('m0'), 'a meeting placed already keeps its server');
});
