// Issue 30 point 1: an access code's hash keeps its scrypt cost (`scrypt$N$r$p$salt$key`, as
// account passwords do), so an installation (or a test proving order, not cost) may hash at a
// lower one; hashes made before (`scrypt$salt$key`, at Node's default cost) still verify.
import { randomBytes, scryptSync } from 'node:crypto';
import t from 'tap';
import {
  AccessCodeChecker,
  accessCodeCost,
  hashAccessCode,
  type AccessCodeCost,
  type DeriveKey,
} from '../../../../src/engine/rooms/access-code.js';

const cheap: AccessCodeCost = { N: 16, r: 1, p: 1 };

/** scrypt itself, recording the cost each derivation was asked for. */
function recordingDerive(): { derive: DeriveKey; costs: AccessCodeCost[] } {
  const costs: AccessCodeCost[] = [];
  return {
    costs,
    derive: (code, salt, length, cost) => {
      costs.push(cost);
      return Promise.resolve(scryptSync(code, salt, length, { ...cost, maxmem: 256 * cost.N * cost.r }));
    },
  };
}

t.test("today's cost is kept in the hash, and a hash verifies at its own cost", async (t) => {
  t.same(accessCodeCost, { N: 16384, r: 8, p: 1 }, "today's cost: Node's scrypt defaults, as before");
  const hash = hashAccessCode('open-sesame');
  t.match(hash, /^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/, 'scrypt$N$r$p$salt$key');
  const [, , , , salt, key] = hash.split('$');
  t.equal(
    scryptSync('open-sesame', Buffer.from(salt!, 'base64url'), 32).toString('base64url'),
    key,
    'the key is scrypt at that cost',
  );
  const real = new AccessCodeChecker();
  t.equal(await real.matches('open-sesame', hash), true);
  t.equal(await real.matches('open-sesam', hash), false);
});

t.test('a lower cost is taken from the hash, not from the code', async (t) => {
  const hash = hashAccessCode('2468', cheap);
  t.match(hash, /^scrypt\$16\$1\$1\$[\w-]{22}\$[\w-]{43}$/);
  const [, , , , salt, key] = hash.split('$');
  t.equal(scryptSync('2468', Buffer.from(salt!, 'base64url'), 32, cheap).toString('base64url'), key);
  const { derive, costs } = recordingDerive();
  const checker = new AccessCodeChecker({}, derive);
  t.equal(await checker.matches('2468', hash), true);
  t.equal(await checker.matches('1357', hash), false);
  t.same(costs, [cheap, cheap], 'each check derived at the cost written in the hash');
  t.equal(await new AccessCodeChecker().matches('2468', hash), true, 'and scrypt on the pool agrees');
  t.not(hashAccessCode('2468', cheap), hash, 'salted');
});

t.test('a hash made before the cost was kept in it still verifies, at that cost', async (t) => {
  const salt = randomBytes(16);
  const old = `scrypt$${salt.toString('base64url')}$${scryptSync('open-sesame', salt, 32).toString('base64url')}`;
  const { derive, costs } = recordingDerive();
  const checker = new AccessCodeChecker({}, derive);
  t.equal(await checker.matches('open-sesame', old), true);
  t.equal(await checker.matches('open-sesam', old), false);
  t.same(costs, [accessCodeCost, accessCodeCost]);
});

t.test('a malformed hash matches nothing and derives nothing', async (t) => {
  const good = hashAccessCode('x', cheap).split('$');
  const { derive, costs } = recordingDerive();
  const checker = new AccessCodeChecker({}, derive);
  const variants = {
    'another scheme': ['bcrypt', ...good.slice(1)],
    'four parts': good.slice(0, 4),
    'N not a power of two': [good[0], '15', ...good.slice(2)],
    'N of 1': [good[0], '1', ...good.slice(2)],
    'r of 0': [good[0], good[1], '0', ...good.slice(3)],
    'p not a number': [good[0], good[1], good[2], 'x', ...good.slice(4)],
    'a cost with a sign': [good[0], '+16', ...good.slice(2)],
    'an empty key': [...good.slice(0, 5), ''],
    'an empty key (old shape)': ['scrypt', good[4], ''],
  };
  for (const [name, parts] of Object.entries(variants))
    t.equal(await checker.matches('x', parts.join('$')), false, name);
  t.same(costs, [], 'none was hashed');
  t.equal(await checker.matches('x', good.join('$')), true, 'the hash they were made from matches');
});
