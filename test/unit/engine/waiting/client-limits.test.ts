import t from 'tap';
import { clientDefaults } from '../../../../src/engine/waiting/waiting-room-types.js';
import { Fixture, api, arrive } from '../../../helpers/engine-fixture.js';

const school = { clientKey: '198.51.100.20' };

t.test('one address holds at most 100 waiting requests in a room; a class of 30 fits three times over', async (t) => {
  const f = new Fixture();
  f.room();
  f.room({ roomId: 'r2' });
  const first = await f.knock('Pupil 0', 'r1', school);
  for (let i = 1; i < clientDefaults.maxOpenPerClient; i++) await f.knock(`Pupil ${i}`, 'r1', school);
  await t.rejects(f.waiting.knock(arrive('r1', 'Flood', school)), {
    code: 'too_many_waiting',
    retryAfterSecs: clientDefaults.retryAfterSecs,
  });
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Other', { clientKey: '198.51.100.21' }))).status,
    'waiting',
    'another address still knocks',
  );
  t.equal(
    (await f.waiting.knock(arrive('r2', 'Elsewhere', school))).status,
    'waiting',
    'the same address in another room',
  );
  t.equal(
    (await f.waiting.list('r1', api())).length,
    clientDefaults.maxOpenPerClient + 1,
    'the refused knock left nothing',
  );

  await f.waiting.withdraw('r1', first.secret);
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Late pupil', school))).status,
    'waiting',
    'a withdrawn request frees its slot',
  );
});

t.test('every way out of waiting frees the slot: admit, refuse, bar, expire, closed window, end', async (t) => {
  const f = new Fixture({ waiting: { maxOpenPerClient: 1 } });
  f.room();
  const full = () => t.rejects(f.waiting.knock(arrive('r1', 'Next', school)), { code: 'too_many_waiting' });
  const admitted = await f.knock('A', 'r1', school);
  await full();
  await f.waiting.admit('r1', admitted.requestId, api());
  const refused = await f.knock('B', 'r1', school);
  await full();
  await f.waiting.refuse('r1', refused.requestId, false, api());
  const barred = await f.knock('C', 'r1', school);
  await f.waiting.refuse('r1', barred.requestId, true, api());
  await f.knock('D', 'r1', school);
  f.clock.advance(60_000); // the grace of a silent page
  await f.waiting.sweep();
  t.equal((await f.waiting.knock(arrive('r1', 'E', school))).status, 'waiting', 'the closed window freed it');
  await full();
  await f.meetings.end('r1', { kind: 'api', name: 'ops' });
  t.equal((await f.waiting.knock(arrive('r1', 'F', school))).status, 'waiting', 'the end freed it');
});

t.test('at most 120 new requests a minute from one address in one room, then 429 with the time to wait', async (t) => {
  const f = new Fixture({ waiting: { maxOpenPerClient: 10_000 } });
  f.room();
  for (let i = 0; i < clientDefaults.knocksPerClient.limit; i++) {
    const knocked = await f.knock(`K${i}`, 'r1', school);
    await f.waiting.withdraw('r1', knocked.secret);
  }
  f.clock.advance(15_000);
  await t.rejects(f.waiting.knock(arrive('r1', 'Flood', school)), { code: 'too_many_knocks', retryAfterSecs: 45 });
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Neighbour', { clientKey: '198.51.100.99' }))).status,
    'waiting',
    'another address is not held back',
  );
  f.clock.advance(45_000);
  t.equal((await f.waiting.knock(arrive('r1', 'Later', school))).status, 'waiting', 'free once the window moved on');
});

t.test('asking again with the cookie of a waiting request costs nothing', async (t) => {
  const f = new Fixture({ waiting: { maxOpenPerClient: 1, knocksPerClient: { limit: 1, windowMs: 60_000 } } });
  f.room();
  const first = await f.knock('Ann', 'r1', school);
  for (let i = 0; i < 5; i++) {
    const again = await f.waiting.knock(arrive('r1', 'Ann', { ...school, secret: first.secret }));
    t.same(again, { status: 'waiting', requestId: first.requestId, secret: first.secret });
  }
});

t.test('a failed commit gives the slot back', async (t) => {
  const f = new Fixture({ waiting: { maxOpenPerClient: 1 } });
  f.room();
  f.store.commitError = new Error('disk full');
  await t.rejects(f.waiting.knock(arrive('r1', 'Ann', school)), { message: 'disk full' });
  f.store.commitError = null;
  t.equal((await f.waiting.knock(arrive('r1', 'Ann', school))).status, 'waiting');
});

t.test('issue 28 point 8: the clients of one IPv6 /56 share its count; each way out frees both counts', async (t) => {
  const f = new Fixture({ waiting: { maxOpenPerClient: 2, maxOpenPerNetwork: 3 } });
  f.room();
  const from = (slash64: string, network = '2001:db8:1:100::/56') => ({
    clientKey: `2001:db8:1:${slash64}::/64`,
    clientNetwork: network,
  });
  const first = await f.knock('A', 'r1', from('100'));
  await f.knock('B', 'r1', from('100'));
  await t.rejects(
    f.waiting.knock(arrive('r1', 'C', from('100'))),
    { code: 'too_many_waiting' },
    'the /64 holds its own 2',
  );
  await f.knock('C', 'r1', from('101'));
  await t.rejects(
    f.waiting.knock(arrive('r1', 'D', from('102'))),
    { code: 'too_many_waiting', retryAfterSecs: clientDefaults.retryAfterSecs },
    'a third /64 of the same /56: the /56 holds 3',
  );
  t.equal(
    (await f.waiting.knock(arrive('r1', 'E', from('200', '2001:db8:1:200::/56')))).status,
    'waiting',
    'another /56 is another network',
  );
  t.equal(
    (await f.waiting.knock(arrive('r1', 'F', { clientKey: '198.51.100.1' }))).status,
    'waiting',
    'an IPv4 client has no network count',
  );
  await f.waiting.withdraw('r1', first.secret);
  t.equal(
    (await f.waiting.knock(arrive('r1', 'D', from('102')))).status,
    'waiting',
    'a withdrawn request frees its place in the /56 too',
  );
  t.equal(
    clientDefaults.maxOpenPerNetwork,
    clientDefaults.maxOpenPerClient,
    'by default a /56 holds what one address holds',
  );
});
