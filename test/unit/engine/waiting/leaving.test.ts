import t from 'tap';
import { by, Fixture } from '../../../helpers/engine-fixture.js';

t.test('a pagehide beacon hides the request at once and frees it within 2 s', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  t.ok(await f.waiting.leaving('r1', ann.secret));
  t.same(await f.waiting.list('r1', by(mod.participantId)), [], 'moderators stop seeing her at once');
  f.clock.advance(1999);
  await f.waiting.sweep();
  t.equal(f.store.requests.get(ann.requestId)?.state, 'waiting', 'not yet withdrawn 1 ms before the grace ends');
  f.clock.advance(1);
  await f.waiting.sweep();
  t.equal(f.store.requests.get(ann.requestId)?.state, 'withdrawn');
  t.equal(await f.waiting.poll('r1', ann.secret), null, 'her cookie names nothing any more');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'withdraw', subject: { name: 'Ann' } });
});

t.test('a reload polls again within the grace and keeps her place', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  await f.knock('Bob');
  await f.waiting.leaving('r1', ann.secret);
  f.clock.advance(800);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  f.clock.advance(5000);
  await f.waiting.poll('r1', ann.secret);
  await f.waiting.sweep();
  const list = await f.waiting.list('r1', by(mod.participantId));
  t.same(
    list.map((r) => r.name),
    ['Ann', 'Bob'],
    'Ann is back, still first in line',
  );
  t.equal(list[0]!.request_id, ann.requestId, 'with the same request');
});

t.test('a beacon for a request that is no longer waiting acts like a withdrawal', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  await f.waiting.refuse('r1', ann.requestId, true, by(mod.participantId));
  await f.waiting.leaving('r1', ann.secret);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'barred' }, 'a bar outlives the page');
});
