// Issue 11, points 2 and 3 against the engine built in-process: one client cannot fill a waiting room (per
// address, through the trusted proxy too), and wrong access codes do not stall the event loop.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { assertError, call, type ApiResult, type Tap } from '../../helpers/api.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

const perClient = 100;

/** `count` knocks from fresh browsers (no cookie), `batch` at a time. */
async function flood(make: (i: number) => Browser, count: number, batch = 50): Promise<ApiResult[]> {
  const results: ApiResult[] = [];
  for (let i = 0; i < count; i += batch) {
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(batch, count - i) }, (_, j) => make(i + j).knock({ name: `Flood ${i + j}` })),
      )),
    );
  }
  return results;
}

function tally(results: ApiResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 202 ? 'waiting' : `${r.status} ${r.body?.error?.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

t.test('a knock flood from one address is held at 100 waiting requests; others still knock', async (t) => {
  const d = await appFor(t);
  await createRoom(t, d, { room_id: 'flooded', name: 'Flooded', waiting_room: 'all' });

  // Knocks nobody polls close after 6 s and free their slots, so each flood is measured in two
  // quick rounds: the first 100 fill the address's share, the next ones find it full.
  async function fillThenOverflow(t: Tap, make: (i: number) => Browser, extra: number): Promise<void> {
    t.same(tally(await flood(make, perClient)), { waiting: perClient }, 'the first 100 wait');
    const over = await flood((i) => make(perClient + i), extra);
    t.same(tally(over), { '429 too_many_waiting': extra }, 'the next ones are refused');
    assertError(t, over[0]!, 429, 'too_many_waiting');
    t.match(over[0]!.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After says when');
    t.equal(over[0]!.headers.getSetCookie().length, 0, 'a refused knock gets no cookie');
  }

  t.test('direct connection', async (t) => {
    await fillThenOverflow(t, () => new Browser(d, 'flooded'), 100);
    const other = await new Browser(d, 'flooded', { forwardedFor: '203.0.113.50' }).knock({ name: 'Real guest' });
    t.equal(other.status, 202, 'another client still knocks');
  });

  t.test('through the trusted proxy: X-Forwarded-For names the client', async (t) => {
    await fillThenOverflow(t, () => new Browser(d, 'flooded', { forwardedFor: '198.51.100.7' }), 20);
    const neighbour = await new Browser(d, 'flooded', { forwardedFor: '198.51.100.8' }).knock({ name: 'Neighbour' });
    t.equal(neighbour.status, 202, 'the next address of the same network is another client');
    await fillThenOverflow(
      t,
      (i) => new Browser(d, 'flooded', { forwardedFor: `2001:db8:1:2::${(i + 1).toString(16)}` }),
      20,
    );
  });
});

// Issue 28 point 8. The clock stands still, so no knock closes its window while the room fills.
t.test('the /64s of one IPv6 /56 share its 100 waiting places; the full room answers Retry-After', async (t) => {
  const d = await appFor(t, { clock: new FakeClock() });

  t.test('ten /64s of one /56', async (t) => {
    await createRoom(t, d, { room_id: 'spread', name: 'Spread', waiting_room: 'all' });
    // 2001:db8:5:100::/56 holds the /64s 2001:db8:5:100 to 2001:db8:5:1ff: ten of them, ten knocks each.
    const from = (i: number) =>
      new Browser(d, 'spread', {
        forwardedFor: `2001:db8:5:1${(i % 10).toString(16)}${(i % 10).toString(16)}::${(i + 1).toString(16)}`,
      });
    t.same(tally(await flood(from, perClient)), { waiting: perClient }, 'the first 100 of the /56 wait');
    const over = await flood(
      (i) => new Browser(d, 'spread', { forwardedFor: `2001:db8:5:1a${i.toString(16)}::1` }),
      10,
    );
    t.same(tally(over), { '429 too_many_waiting': 10 }, 'a further /64 of the same /56 is refused');
    t.match(over[0]!.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After says when');
    const neighbour = await new Browser(d, 'spread', { forwardedFor: '2001:db8:5:200::1' }).knock({ name: 'Next /56' });
    t.equal(neighbour.status, 202, 'the next /56 is another network');
  });

  t.test('ten IPv4 addresses fill the 1,000 places: waiting_room_full with Retry-After', async (t) => {
    await createRoom(t, d, { room_id: 'crowded', name: 'Crowded', waiting_room: 'all' });
    const crowd = await flood(
      (i) => new Browser(d, 'crowded', { forwardedFor: `198.51.100.${100 + (i % 10)}` }),
      10 * perClient,
      100,
    );
    t.same(tally(crowd), { waiting: 10 * perClient }, '100 from each of ten addresses wait');
    const late = await new Browser(d, 'crowded', { forwardedFor: '203.0.113.9' }).knock({ name: 'Late' });
    assertError(t, late, 429, 'waiting_room_full');
    t.match(late.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After says when to come back');
    t.match(late.body.error.message, /try again in \d+ s/, 'and so does the message');
  });
});

t.test('an untrusted peer cannot pick its address with X-Forwarded-For', async (t) => {
  const d = await appFor(t, { env: { SERVICE_TRUSTED_PROXIES: '10.9.9.9' } });
  await createRoom(t, d, { room_id: 'spoofed', name: 'Spoofed', waiting_room: 'all' });
  const results = await flood(
    (i) => new Browser(d, 'spoofed', { forwardedFor: `203.0.113.${i % 250}` }),
    perClient + 20,
  );
  t.same(
    tally(results),
    { waiting: perClient, '429 too_many_waiting': 20 },
    'every knock counted against the real peer',
  );
});

t.test('knocks per minute: withdrawing and knocking again is limited too', async (t) => {
  const d = await appFor(t);
  await createRoom(t, d, { room_id: 'churn', name: 'Churn', waiting_room: 'all' });
  const outcomes: number[] = [];
  for (let i = 0; i < 130; i++) {
    const browser = new Browser(d, 'churn', { forwardedFor: '198.51.100.77' });
    const knocked = await browser.knock({ name: `Churn ${i}` });
    outcomes.push(knocked.status);
    if (knocked.status === 202) await browser.withdraw();
    else {
      assertError(t, knocked, 429, 'too_many_knocks');
      t.match(knocked.headers.get('retry-after'), /^[1-9]\d*$/);
      break;
    }
  }
  t.equal(outcomes.filter((s) => s === 202).length, 120, '120 in the minute, then 429');
});

t.test('ten wrong access codes do not stall other requests', async (t) => {
  const d = await appFor(t);
  await createRoom(t, d, { room_id: 'coded', name: 'Coded', waiting_room: 'all', access_code: 'correct-horse' });
  await createRoom(t, d, { room_id: 'other', name: 'Other', waiting_room: 'off' });
  let guessesDone = 0;
  const guesses = Array.from({ length: 10 }, (_, i) =>
    new Browser(d, 'coded', { forwardedFor: '203.0.113.66' })
      .start({ name: 'Guesser', access_code: `wrong-${i}` })
      .then((r) => {
        guessesDone++;
        return r;
      }),
  );
  // Pings while the guesses are being hashed: each is answered at once, before the guesses end.
  const latencies: number[] = [];
  let pingsBeforeEnd = 0;
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const pong = await call(d, '/room/other/exists', { token: null });
    latencies.push(performance.now() - started);
    t.equal(pong.status, 200);
    if (guessesDone < 10) pingsBeforeEnd++;
  }
  const answers = await Promise.all(guesses);
  for (const answer of answers) assertError(t, answer, 403, 'access_code_invalid', 'access_code');
  latencies.sort((a, b) => a - b);
  // Order, not time, is the assertion (a loaded machine slows both sides); the latency is printed for a reader.
  t.ok(pingsBeforeEnd >= 3, `other requests were answered while the codes were checked (${pingsBeforeEnd} of 5)`);
  t.comment(`median latency of another request meanwhile: ${latencies[2]?.toFixed(1)} ms`);
});
