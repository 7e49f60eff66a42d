import t from 'tap';
import { Fixture, arrive, by, claims } from '../../../helpers/engine-fixture.js';

t.test('a wrong code is refused and leaves no trace for moderators', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  const mod = await f.moderator();
  const writes = f.store.writes;
  await t.rejects(f.waiting.knock(arrive('r1', 'Ann', { accessCode: 'wrong', note: 'hello' })), {
    code: 'access_code_invalid',
    field: 'access_code',
  });
  await t.rejects(
    f.waiting.knock(arrive('r1', 'Ann')),
    { code: 'access_code_invalid', field: 'access_code' },
    'no code at all',
  );
  await t.rejects(f.waiting.start(arrive('r1', 'Ann', { accessCode: 'wrong' })), { code: 'access_code_invalid' });
  t.equal(f.store.writes, writes, 'nothing written');
  t.equal(f.store.requests.size, 0);
  t.same(await f.waiting.list('r1', { kind: 'participant', participantId: mod.participantId }), []);
  t.same(await f.kinds(), ['moderator_arrived']);
});

t.test('a wrong code does not start a meeting either', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off', accessCode: 'open-sesame' });
  await t.rejects(f.waiting.start(arrive('r1', 'Ann', { accessCode: 'nope' })), { code: 'access_code_invalid' });
  t.equal(f.meetings.current('r1'), null);
});

t.test('the right code leads on to the waiting room', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  const result = await f.waiting.knock(arrive('r1', 'Ann', { accessCode: 'open-sesame' }));
  t.equal(result.status, 'waiting');
  t.equal((await f.waiting.start(arrive('r1', 'Bob', { accessCode: 'open-sesame' }))).status, 'knock');
});

t.test('moderators and platform arrivals are not asked for the code', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'guests', accessCode: 'open-sesame' });
  t.equal((await f.waiting.start(arrive('r1', 'Mod', { claims: claims('moderator') }))).status, 'joined');
  t.equal((await f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') }))).status, 'joined');
  await t.rejects(f.waiting.start(arrive('r1', 'Linked', { claims: claims('participant', 'link') })), {
    code: 'access_code_invalid',
  });
});

t.test('10 wrong codes per room and client in 10 minutes, then too_many_attempts with retry-after', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  f.room({ roomId: 'r2', accessCode: 'open-sesame' });
  for (let i = 0; i < 10; i++) {
    await t.rejects(f.waiting.knock(arrive('r1', 'Mallory', { accessCode: `guess-${i}` })), {
      code: 'access_code_invalid',
    });
    f.clock.advance(1000);
  }
  await t.rejects(
    f.waiting.knock(arrive('r1', 'Mallory', { accessCode: 'open-sesame' })),
    { code: 'too_many_attempts', retryAfterSecs: 590 },
    'even the right code is held back',
  );
  await t.rejects(f.waiting.start(arrive('r1', 'Mallory', { accessCode: 'x' })), { code: 'too_many_attempts' });
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Ann', { accessCode: 'open-sesame', clientKey: '198.51.100.1' }))).status,
    'waiting',
    'another client',
  );
  t.equal(
    (await f.waiting.knock(arrive('r2', 'Mallory', { accessCode: 'open-sesame' }))).status,
    'waiting',
    'another room',
  );
  f.clock.advance(590_000);
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Mallory', { accessCode: 'open-sesame' }))).status,
    'waiting',
    'free again',
  );
  t.equal(f.store.requests.size, 3, 'no request from any wrong attempt');
});

t.test('a missing code is not counted as a guess', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  for (let i = 0; i < 15; i++) await t.rejects(f.waiting.start(arrive('r1', 'Ann')), { code: 'access_code_invalid' });
  t.equal((await f.waiting.start(arrive('r1', 'Ann', { accessCode: 'open-sesame' }))).status, 'knock');
});

t.test('the sweep forgets old failures', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  await t.rejects(f.waiting.start(arrive('r1', 'Ann', { accessCode: 'bad' })));
  f.clock.advance(600_000);
  await f.waiting.sweep();
  const limiter = (f.waiting as unknown as { gate: { screening: { limiter: { failures: Map<string, unknown> } } } })
    .gate.screening.limiter;
  t.equal(limiter.failures.size, 0);
});

t.test('asking again with the cookie of a refused request needs no code again', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: '2468' });
  const mod = await f.moderator();
  const first = await f.knock('Ann', 'r1', { accessCode: '2468' });
  await f.waiting.refuse('r1', first.requestId, false, by(mod.participantId));
  const again = await f.waiting.knock(arrive('r1', 'Ann', { secret: first.secret }));
  t.equal(again.status, 'waiting', 'her cookie shows she passed the code in this meeting');
  await t.rejects(
    f.waiting.knock(arrive('r1', 'Eve', { secret: 'x'.repeat(43) })),
    { code: 'access_code_invalid' },
    'an unknown cookie proves nothing',
  );
});

t.test('guesses sent at once are counted before they are hashed: no burst gets past the limit', async (t) => {
  const f = new Fixture();
  f.room({ accessCode: 'open-sesame' });
  const outcomes = await Promise.allSettled(
    Array.from({ length: 25 }, (_, i) => f.waiting.start(arrive('r1', 'Mallory', { accessCode: `guess-${i}` }))),
  );
  const codes = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code: string }).code : 'passed'));
  t.equal(codes.filter((c) => c === 'access_code_invalid').length, 10, 'ten were checked');
  t.equal(codes.filter((c) => c === 'too_many_attempts').length, 15, 'the rest were refused unhashed');
});

t.test('a right code takes its own attempt back, so a class typing it at once is not blocked', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off', accessCode: 'open-sesame' });
  const school = { clientKey: '198.51.100.20', accessCode: 'open-sesame' };
  const entered = await Promise.all(
    Array.from({ length: 30 }, (_, i) => f.waiting.start(arrive('r1', `Pupil ${i}`, school))),
  );
  t.ok(
    entered.every((r) => r.status === 'joined'),
    '30 pupils behind one address entered',
  );
  await t.rejects(f.waiting.start(arrive('r1', 'Typo', { ...school, accessCode: 'open-sesam' })), {
    code: 'access_code_invalid',
  });
  t.equal((await f.waiting.start(arrive('r1', 'Pupil 31', school))).status, 'joined');
});

t.test('the meeting is read again after the code was hashed', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomMode: 'until_moderator', accessCode: 'open-sesame' });
  const pending = f.waiting.start(arrive('r1', 'Ann', { accessCode: 'open-sesame' }));
  await f.moderator();
  t.equal((await pending).status, 'joined', 'the moderator who arrived meanwhile lets her in');
});
