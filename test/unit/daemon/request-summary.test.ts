import t from 'tap';
import { bucketOf, bucketTop, RequestSummary } from '../../../src/daemon/request-summary.js';
import { isExpectedRefusal, lineFor } from '../../../src/platform/access-log.js';

function clockAt(start: number) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

t.test('buckets: exact below 16 µs, then at most 12.5% wide, every value inside its own bucket', async (t) => {
  for (let us = 0; us < 16; us++) t.equal(bucketTop(bucketOf(us)), us, `${us} µs is exact`);
  let previousTop = 15;
  for (let bucket = 16; bucket < bucketOf(2 ** 31 - 1); bucket++) {
    const top = bucketTop(bucket);
    t.equal(bucketOf(previousTop + 1), bucket, `bucket ${bucket} starts right after the one before`);
    t.equal(bucketOf(top), bucket, `bucket ${bucket} ends at its top`);
    t.ok((top - previousTop) / (previousTop + 1) <= 0.125, `bucket ${bucket} is at most 12.5% wide`);
    previousTop = top;
  }
  t.equal(bucketOf(-5), 0, 'a negative time (clock step) is 0');
  t.equal(bucketOf(1e12), bucketOf(2 ** 31 - 1), 'beyond 35 minutes: the last bucket');
});

t.test('percentiles per family over a window, from plain data and an injected clock', async (t) => {
  const clock = clockAt(1_000_000);
  const summary = new RequestSummary(clock);
  t.equal(summary.take(), null, 'no request: no summary line');

  // 1..100 ms for the polls, one failure and two expected refusals among them.
  for (let ms = 1; ms <= 100; ms++) summary.record('room.waiting', ms === 50 ? 500 : ms <= 2 ? 404 : 200, ms);
  for (let i = 0; i < 10; i++) summary.record('room.knock', 202, 5);
  clock.advance(60_000);
  const line = summary.take();
  t.ok(line);
  t.equal(line!.windowSecs, 60, 'the window is what the clock says');
  t.equal(line!.requests, 110);
  t.same(Object.keys(line!.families), ['room.knock', 'room.waiting'], 'families sorted by name');
  const polls = line!.families['room.waiting']!;
  t.equal(polls.n, 100);
  t.equal(polls['4xx'], 2, 'expected refusals are counted');
  t.equal(polls['5xx'], 1);
  t.equal(polls.max, 100);
  for (const [name, exact] of [
    ['p50', 50],
    ['p95', 95],
    ['p99', 99],
  ] as const) {
    const value = polls[name];
    t.ok(value >= exact && value <= exact * 1.125, `${name} ${value} is within 12.5% above ${exact}`);
  }
  const knocks = line!.families['room.knock']!;
  t.same(
    { p50: knocks.p50, p95: knocks.p95, p99: knocks.p99, max: knocks.max },
    { p50: 5, p95: 5, p99: 5, max: 5 },
    'all equal: every percentile is that value (never above the largest seen)',
  );

  clock.advance(60_000);
  t.equal(summary.take(), null, 'a quiet window after a busy one: no line');
  summary.record('room.knock', 202, 0.2);
  clock.advance(30_000);
  const next = summary.take();
  t.same(Object.keys(next!.families), ['room.knock'], 'a family seen before but idle now is left out');
  t.equal(next!.families['room.knock']!.n, 1, 'counts start again in each window');
  t.equal(next!.families['room.knock']!.p99, 0.2);
  t.equal(next!.windowSecs, 30, 'the window runs from the last take (the quiet one ended then)');
});

t.test('the policy: which finished request gets a line', async (t) => {
  t.equal(lineFor('errors', 1000, 'room.waiting', 200, 3, false), null, 'a fast poll: nothing');
  t.equal(lineFor('all', 1000, 'room.waiting', 200, 3, false), 'request', 'all: a line');
  t.equal(lineFor('errors', 1000, 'room.waiting', 200, 1000, false), 'slow', 'at the threshold: slow');
  t.equal(lineFor('errors', 0, 'room.waiting', 200, 0, false), 'slow', 'threshold 0: every request is slow');
  t.equal(lineFor('errors', 1000, 'live', 101, 60_000, true), null, 'a live socket that lived a minute is not slow');
  t.equal(lineFor('errors', 1000, 'room.waiting', 500, 1, false), 'error', '5xx always');
  t.equal(lineFor('errors', 1000, 'room.knock', 503, 1, false), 'error');
  t.equal(lineFor('errors', 1000, 'api.rooms', 404, 1, false), 'refused', 'an unexpected 4xx');
  t.equal(lineFor('errors', 1000, 'room.admit', 403, 1, false), 'refused');
  for (const [family, status] of [
    ['room.waiting', 404],
    ['room.waiting', 401],
    ['room.exists', 404],
    ['live', 401],
    ['videoconf', 403],
    ['room.knock', 429],
    ['room.start', 429],
  ] as const) {
    t.ok(isExpectedRefusal(family, status), `${family} ${status} is expected`);
    t.equal(lineFor('errors', 1000, family, status, 1, false), null, `${family} ${status}: counted, not logged`);
  }
  t.notOk(isExpectedRefusal('room.waiting', 403), 'a poll refused 403 is not');
  t.notOk(isExpectedRefusal('api.rooms', 401), 'a wrong rooms-API token is not');
});
