import t from 'tap';
import { AttemptLimiter, TooManyAttemptsError } from '../../../src/engine/waiting/attempt-limiter.js';
import { FakeClock } from '../helpers/fake-clock.js';

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
