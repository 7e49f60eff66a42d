import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { shardedTiers, tierFiles } from '../../helpers/shard.js';

// The unit and service tiers run in shards (test/helpers/shard.ts): a missing or miscounted
// shard file would silently stop a share of the tests, so the set is checked here.
const dir = new URL('../../shards/', import.meta.url);

t.test('every sharded tier has shards 1..K of one K, each file named for its share', async (t) => {
  const shares = new Map<string, { index: number; count: number }[]>();
  for (const name of readdirSync(dir)) {
    const call = /runShard\('(\w+)', (\d+), (\d+)\)/.exec(readFileSync(new URL(name, dir), 'utf8'));
    t.ok(call, `${name} runs a shard`);
    if (!call) continue;
    const [, tier = '', index, count] = call;
    t.equal(name, `${tier}-${index}.test.ts`, `${name} is named for its share`);
    shares.set(tier, [...(shares.get(tier) ?? []), { index: Number(index), count: Number(count) }]);
  }
  t.same([...shares.keys()].sort(), [...shardedTiers].sort(), 'the sharded tiers, and only they');
  for (const [tier, list] of shares) {
    const count = list[0]?.count ?? 0;
    t.ok(
      list.every((share) => share.count === count),
      `${tier}: one K`,
    );
    t.same(
      list.map((share) => share.index).sort((a, b) => a - b),
      Array.from({ length: count }, (_, i) => i + 1),
      `${tier}: shares 1..${count}`,
    );
  }
});

t.test('the shards find the test files of their folder, and only test files', async (t) => {
  for (const tier of shardedTiers) {
    const files = tierFiles(tier);
    t.ok(files.length > 10, `${tier}: ${files.length} files`);
    t.ok(
      files.every((file) => file.endsWith('.test.ts') && file.includes(`/test/${tier}/`)),
      `${tier}: test files of test/${tier}`,
    );
  }
  t.ok(
    tierFiles('unit').some((file) => file.endsWith('/house/shards.test.ts')),
    'this file among them',
  );
});
