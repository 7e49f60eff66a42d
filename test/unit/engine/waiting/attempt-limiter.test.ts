import t from 'tap';
import { AttemptLimiter, TooManyAttemptsError } from '../../../../src/engine/waiting/attempt-limiter.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

t.test('10 failures in 10 minutes block the key until the oldest leaves the window', async (t) => {
  const clock = new FakeClock();
  const limiter = new AttemptLimiter(clock);
  for (let i = 0; i < 10; i++) {
    limiter.check('k');
    limiter.record('k');
    clock.advance(1000);
  }
  // first failure at 0 s, now 10 s: it leaves the window at 600 s
  const error = (() => {
    try {
      limiter.check('k');
    } catch (e) {
      return e;
    }
    return null;
  })();
  t.ok(error instanceof TooManyAttemptsError);
  t.equal((error as TooManyAttemptsError).code, 'too_many_attempts');
  t.equal((error as TooManyAttemptsError).retryAfterSecs, 590);
  limiter.check('other');
  t.pass('another key is not blocked');
  clock.advance(589_999);
  t.throws(() => limiter.check('k'), { code: 'too_many_attempts' }, 'still blocked 1 ms before');
  clock.advance(1);
  limiter.check('k');
  t.pass('free once the oldest failure is 10 minutes old');
});

t.test('retry-after is at least one second', async (t) => {
  const clock = new FakeClock();
  const limiter = new AttemptLimiter(clock, { limit: 1, windowMs: 500 });
  limiter.record('k');
  clock.advance(499);
  t.throws(() => limiter.check('k'), new TooManyAttemptsError(1));
});

t.test('prune forgets keys with nothing in the window', async (t) => {
  const clock = new FakeClock();
  const limiter = new AttemptLimiter(clock, { limit: 2, windowMs: 1000 });
  limiter.record('a');
  limiter.record('a');
  clock.advance(1000);
  limiter.prune();
  t.equal((limiter as unknown as { failures: Map<string, number[]> }).failures.size, 0);
});

t.test(
  'prune, run every second over every address that knocked, copies nothing and keeps what still counts',
  async (t) => {
    const clock = new FakeClock();
    const limiter = new AttemptLimiter(clock, { limit: 2, windowMs: 60_000 });
    const failures = (limiter as unknown as { failures: Map<string, number[]> }).failures;
    // A class of 50,000 knocked a minute ago, then one address knocked twice since.
    for (let i = 0; i < 50_000; i++) limiter.record(`room|10.0.${i}`);
    clock.advance(30_000);
    limiter.record('room|late');
    clock.advance(30_000);
    limiter.record('room|late');
    const live = failures.get('room|late');
    limiter.prune();
    t.equal(failures.size, 1, 'the 50,000 addresses whose knocks left the window are forgotten');
    t.equal(failures.get('room|late'), live, 'the active address keeps its list as it was: no copy per key per second');
    t.throws(
      () => limiter.check('room|late'),
      { code: 'too_many_attempts' },
      'and it still counts: two attempts inside the window block it',
    );
    clock.advance(30_001);
    limiter.check('room|late');
    t.pass('once the first of them is a minute old the address may try again');
  },
);

t.test('a key goes from one attempt to several and back, counted the same way', async (t) => {
  const clock = new FakeClock();
  const limiter = new AttemptLimiter(clock, { limit: 3, windowMs: 1000 });
  limiter.record('k');
  limiter.check('k');
  clock.advance(400);
  limiter.record('k');
  clock.advance(400);
  limiter.record('k');
  t.throws(() => limiter.check('k'), new TooManyAttemptsError(1), 'three inside the window block it');
  clock.advance(200);
  limiter.check('k');
  t.pass('the first left the window at 1,000 ms: two are left');
  clock.advance(400);
  limiter.check('k');
  limiter.record('k');
  limiter.record('k');
  t.throws(() => limiter.check('k'), { code: 'too_many_attempts' }, 'one left, then two more: three again');
  clock.advance(1000);
  limiter.prune();
  limiter.record('k');
  limiter.check('k');
  t.pass('after a quiet window a single attempt counts alone');
  const one = new AttemptLimiter(clock, { limit: 1, windowMs: 1000 });
  one.record('k');
  t.throws(() => one.check('k'), new TooManyAttemptsError(1), 'a limit of one is reached by one attempt');
  clock.advance(999);
  one.prune();
  t.throws(() => one.check('k'), new TooManyAttemptsError(1), 'prune keeps a single attempt still inside');
  clock.advance(1);
  one.prune();
  one.check('k');
  t.pass('and forgets it once it left');
});

t.test('a key with one attempt keeps its time alone, not a list of one', async (t) => {
  // Issue 36 point 2: the knock limiter holds a key per waiting person's address; a list of one
  // time each cost about 60 bytes of heap more than the time alone (0.6 MiB per 10,000).
  const clock = new FakeClock();
  const limiter = new AttemptLimiter(clock, { limit: 3, windowMs: 1000 });
  const failures = (limiter as unknown as { failures: Map<string, number | number[]> }).failures;
  limiter.record('once');
  limiter.record('twice');
  clock.advance(10);
  limiter.record('twice');
  t.equal(typeof failures.get('once'), 'number', 'one attempt: its time');
  t.equal(failures.get('once'), 0, 'in ms since the limiter was made (a small integer)');
  t.same(failures.get('twice'), [0, 10], 'two attempts: their list');
  clock.advance(995);
  limiter.check('twice');
  t.equal(failures.get('twice'), 10, 'back to one once the first left the window');
  limiter.prune();
  t.notOk(failures.has('once'), 'and prune drops a key with none left');
  t.equal(failures.get('twice'), 10);
});
