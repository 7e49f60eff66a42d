// Issue 36 point 4: the poll is the hottest path (everyone waiting, every 2 s), so it answers from
// memory with no promise made; only a poll that finds an expiry to write waits for that write.
import t from 'tap';
import { Fixture, by } from '../../../helpers/engine-fixture.js';

const isThenable = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

t.test('waiting, refused, barred and unknown cookies are answered at once, not as promises', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 3600 });
  const mod = await f.moderator();
  const ann = await f.knock('Ann', 'r1', { clientKey: '198.51.100.1' });
  const bob = await f.knock('Bob', 'r1', { clientKey: '198.51.100.2' });
  const waiting = f.waiting.poll('r1', ann.secret);
  t.notOk(isThenable(waiting), 'a waiting poll makes no promise');
  t.same(waiting, { status: 'waiting' });
  t.equal(f.waiting.poll('r1', 'x'.repeat(43)), null, 'a cookie naming nothing: null at once');
  t.equal(f.waiting.poll('r2', ann.secret), null, "another room's cookie: null at once");

  await f.waiting.refuse('r1', ann.requestId, false, by(mod.participantId));
  await f.waiting.refuse('r1', bob.requestId, true, by(mod.participantId));
  t.same(f.waiting.poll('r1', ann.secret), { status: 'refused', retry: true }, 'refused, at once');
  t.same(f.waiting.poll('r1', bob.secret), { status: 'barred' }, 'barred, at once');
});

t.test('a poll that finds its expiry waits for the write, then answers expired', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 30 });
  const ann = await f.knock('Ann');
  f.clock.advance(30_000);
  const expiring = f.waiting.poll('r1', ann.secret);
  t.ok(isThenable(expiring), 'the expiry is written before the answer');
  t.same(await expiring, { status: 'expired', retry: true });
  t.equal(f.store.requests.get(ann.requestId)?.state, 'expired', 'written through');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'expire', subject: { requestId: ann.requestId } });
  t.same(f.waiting.poll('r1', ann.secret), { status: 'expired', retry: true }, 'the next poll: at once');
});

t.test('a poll reads the time without making a Date when the clock can say it in milliseconds', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 30 });
  const ann = await f.knock('Ann');
  let dates = 0;
  const now = f.clock.now.bind(f.clock);
  f.clock.now = () => (dates++, now());
  f.clock.advance(29_999);
  t.same(f.waiting.poll('r1', ann.secret), { status: 'waiting' }, '1 ms before the timeout, by the milliseconds');
  t.equal(dates, 0, 'no Date made');
  f.clock.advance(1);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'expired', retry: true }, 'at the timeout');
});
