import t from 'tap';
import { Fixture, api, arrive } from '../../../helpers/engine-fixture.js';

t.test('at most 1,000 open requests per room', async (t) => {
  const f = new Fixture();
  f.room();
  f.room({ roomId: 'r2' });
  // From 20 addresses: one address alone may hold only a tenth of the places.
  const from = (i: number) => ({ clientKey: `198.51.100.${i % 20}` });
  const first = await f.knock('Person 0', 'r1', from(0));
  for (let i = 1; i < 1000; i++) await f.knock(`Person ${i}`, 'r1', from(i));
  t.equal((await f.waiting.list('r1', api())).length, 1000);
  await t.rejects(f.waiting.knock(arrive('r1', 'One too many')), { code: 'waiting_room_full', retryAfterSecs: 30 });
  t.equal((await f.waiting.knock(arrive('r2', 'Elsewhere'))).status, 'waiting', 'other rooms are not affected');
  await f.waiting.withdraw('r1', first.secret);
  t.equal((await f.waiting.knock(arrive('r1', 'Now there is room'))).status, 'waiting', 'a freed slot can be taken');
});

t.test('the cap is configurable and counts only waiting requests', async (t) => {
  const f = new Fixture({ waiting: { maxOpenRequests: 2 } });
  f.room();
  const a = await f.knock('A');
  await f.knock('B');
  await t.rejects(f.waiting.knock(arrive('r1', 'C')), { code: 'waiting_room_full' });
  await f.waiting.refuse('r1', a.requestId, true, api());
  t.equal((await f.waiting.knock(arrive('r1', 'C'))).status, 'waiting', 'a barred request holds no slot');
});

t.test('at the cap, requests whose windows closed free their slots before the knock is refused', async (t) => {
  const f = new Fixture({ waiting: { maxOpenRequests: 2 } });
  f.room();
  await f.knock('A');
  await f.knock('B');
  f.clock.advance(60_000); // the grace of a silent page
  t.equal((await f.waiting.knock(arrive('r1', 'C'))).status, 'waiting');
});
