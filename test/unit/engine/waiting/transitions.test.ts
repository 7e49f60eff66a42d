import t from 'tap';
import { createHash } from 'node:crypto';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';

t.test('knock → waiting, listed for moderators in knock order', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann', 'r1', { note: 'from sales' });
  f.clock.advance(10);
  const bob = await f.knock('Bob');
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  t.same(await f.waiting.list('r1', by(mod.participantId)), [
    { request_id: ann.requestId, name: 'Ann', note: 'from sales', knocked_at: '2030-01-01T09:00:00.000Z' },
    { request_id: bob.requestId, name: 'Bob', note: '', knocked_at: '2030-01-01T09:00:00.010Z' },
  ]);
  t.same(await f.kinds(), ['moderator_arrived', 'knock', 'knock']);
});

t.test('admit one: the poll carries the participant, the timeline names the moderator', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator('r1', 'Maria');
  const ann = await f.knock('Ann');
  t.same(await f.waiting.admit('r1', ann.requestId, by(mod.participantId)), { admitted: 1 });
  const poll = await f.waiting.poll('r1', ann.secret);
  t.equal(poll?.status, 'admitted');
  const participant = poll?.status === 'admitted' ? poll.participant : null;
  t.match(participant, { name: 'Ann', role: 'participant', roomId: 'r1', leftAt: null });
  t.same(f.meetings.participant(participant!.participantId), participant, 'the participant exists');
  t.same(await f.waiting.poll('r1', ann.secret), poll, 'polling again answers the same participant');
  t.same(await f.waiting.list('r1', by(mod.participantId)), []);
  const entry = (await f.meetings.timeline('r1')).at(-1);
  t.match(entry, {
    kind: 'admit',
    actor: { kind: 'participant', participantId: mod.participantId, name: 'Maria' },
    subject: { requestId: ann.requestId, participantId: participant!.participantId, name: 'Ann' },
  });
  t.same(
    await f.waiting.admit('r1', ann.requestId, by(mod.participantId)),
    { admitted: 0 },
    'a second click admits nobody',
  );
  await t.rejects(() => f.waiting.admit('r1', 'no-such-request', by(mod.participantId)), { code: 'request_not_found' });
});

t.test('admit all: everyone waiting, one timeline entry with the count', async (t) => {
  const f = new Fixture();
  f.room();
  await f.knock('Ann');
  await f.knock('Bob');
  const cy = await f.knock('Cy');
  t.same(await f.waiting.admitAll('r1', api('moodle')), { admitted: 3 }, 'an integration may admit');
  t.equal((await f.waiting.poll('r1', cy.secret))?.status, 'admitted');
  t.same(
    f.meetings.present('r1').map((p) => p.name),
    ['Ann', 'Bob', 'Cy'],
  );
  t.match((await f.meetings.timeline('r1')).at(-1), {
    kind: 'admit_all',
    actor: { kind: 'api', participantId: null, name: 'moodle' },
    count: 3,
  });
  t.same(await f.waiting.admitAll('r1', api()), { admitted: 0 });
  t.equal(
    (await f.meetings.timeline('r1')).filter((e) => e.kind === 'admit_all').length,
    1,
    'nothing recorded when nobody waited',
  );
});

t.test('refuse: refused with retry; a new knock from that browser is a new request', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  await f.waiting.refuse('r1', ann.requestId, false, by(mod.participantId));
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'refused', retry: true });
  await t.rejects(() => f.waiting.refuse('r1', ann.requestId, true, by(mod.participantId)), {
    code: 'request_not_waiting',
  });
  await t.rejects(() => f.waiting.admit('r1', ann.requestId, by(mod.participantId)), { code: 'request_not_waiting' });
  const again = await f.waiting.knock(arrive('r1', 'Ann', { secret: ann.secret }));
  t.equal(again.status, 'waiting');
  t.not(again.status === 'waiting' && again.requestId, ann.requestId, 'a new request');
  t.not(again.status === 'waiting' && again.secret, ann.secret, 'with a new secret');
  t.equal(await f.waiting.poll('r1', ann.secret), null, 'the replaced cookie names nothing');
  t.match((await f.meetings.timeline('r1')).slice(-3), [
    { kind: 'knock' },
    { kind: 'refuse', actor: { name: 'Mod' } },
    { kind: 'knock' },
  ]);
});

t.test(
  'refuse and bar: barred on poll, on re-knock and on start with the same cookie, until the meeting ends',
  async (t) => {
    const f = new Fixture();
    f.room();
    const mod = await f.moderator();
    const eve = await f.knock('Eve');
    await f.waiting.refuse('r1', eve.requestId, true, by(mod.participantId));
    t.same(await f.waiting.poll('r1', eve.secret), { status: 'barred' });
    await t.rejects(f.waiting.knock(arrive('r1', 'Eve again', { secret: eve.secret })), { code: 'barred' });
    await t.rejects(f.waiting.start(arrive('r1', 'Eve again', { secret: eve.secret })), { code: 'barred' });
    t.notOk(await f.waiting.withdraw('r1', eve.secret), 'leaving does not lift a bar');
    t.same(await f.waiting.poll('r1', eve.secret), { status: 'barred' }, 'reloading the page still says barred');
    t.equal((await f.waiting.knock(arrive('r1', 'Someone else'))).status, 'waiting', 'another browser may knock');
    t.match(
      (await f.meetings.timeline('r1')).find((e) => e.kind === 'bar'),
      { subject: { requestId: eve.requestId, name: 'Eve' }, actor: { name: 'Mod' } },
    );
  },
);

t.test('expiry happens exactly at the timeout, not one millisecond before', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 30 });
  const ann = await f.knock('Ann');
  for (let elapsed = 2000; elapsed < 30_000; elapsed += 2000) {
    f.clock.advance(2000);
    t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'waiting', `at ${elapsed} ms`);
  }
  f.clock.advance(1999); // 29,999 ms
  await f.waiting.sweep();
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' }, '1 ms before the timeout');
  f.clock.advance(1); // 30,000 ms
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'expired', retry: true }, 'at the timeout');
  t.match((await f.meetings.timeline('r1')).at(-1), {
    kind: 'expire',
    actor: null,
    subject: { requestId: ann.requestId },
    at: '2030-01-01T09:00:30.000Z',
  });
  t.equal(
    (await f.waiting.knock(arrive('r1', 'Ann', { secret: ann.secret }))).status,
    'waiting',
    'she may knock again',
  );
});

t.test('the sweep expires a request at exactly the timeout', async (t) => {
  const f = new Fixture({ waiting: { missedPolls: 1000 } });
  f.room({ waitingRoomTimeoutSecs: 30 });
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  f.clock.advance(29_999);
  await f.waiting.sweep();
  t.equal((await f.waiting.list('r1', by(mod.participantId))).length, 1);
  f.clock.advance(1);
  await f.waiting.sweep();
  t.same(await f.waiting.list('r1', by(mod.participantId)), []);
  t.equal(f.store.requests.get(ann.requestId)?.state, 'expired', 'written through');
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'expired', retry: true });
});

t.test('a moderator cannot admit a request whose time is up', async (t) => {
  const f = new Fixture({ waiting: { missedPolls: 1000 } });
  f.room({ waitingRoomTimeoutSecs: 30 });
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  f.clock.advance(30_000);
  await t.rejects(() => f.waiting.admit('r1', ann.requestId, by(mod.participantId)), { code: 'request_not_waiting' });
});

t.test('a closed window: not polled for the grace (60 s), the sweep removes it', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  const bob = await f.knock('Bob');
  f.clock.advance(58_000);
  await f.waiting.poll('r1', bob.secret);
  f.clock.advance(1999); // 59,999 ms since Ann's knock
  await f.waiting.sweep();
  t.equal((await f.waiting.list('r1', by(mod.participantId))).length, 2, 'kept 1 ms before');
  f.clock.advance(1); // 60,000 ms
  await f.waiting.sweep();
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => r.name),
    ['Bob'],
    'Ann removed; Bob polled 2 s ago stays',
  );
  t.equal(await f.waiting.poll('r1', ann.secret), null, 'her cookie names nothing any more');
  t.equal(f.store.requests.get(ann.requestId)?.state, 'window_closed');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'window_closed', actor: null, subject: { name: 'Ann' } });
});

t.test('the connection-lost mark follows the poll interval (three missed polls)', async (t) => {
  const f = new Fixture({ waiting: { pollIntervalMs: 1000, missedPolls: 3 } });
  f.room();
  await f.knock('Ann');
  f.clock.advance(2999);
  await f.waiting.sweep();
  t.same((await f.waiting.list('r1', api()))[0]?.connection_lost, undefined, 'two missed polls: not yet');
  f.clock.advance(1);
  await f.waiting.sweep();
  t.same(
    (await f.waiting.list('r1', api()))[0]?.connection_lost,
    true,
    'three: her connection is lost, her place kept',
  );
});

t.test('the moderator list drops a closed window even between sweeps', async (t) => {
  const f = new Fixture();
  f.room();
  await f.knock('Ann');
  f.clock.advance(60_000);
  t.same(await f.waiting.list('r1', api()), []);
});

t.test('withdraw: removed at once', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  t.ok(await f.waiting.withdraw('r1', ann.secret));
  t.same(await f.waiting.list('r1', api()), []);
  t.equal(await f.waiting.poll('r1', ann.secret), null);
  t.equal(f.store.requests.get(ann.requestId)?.state, 'withdrawn');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'withdraw', subject: { requestId: ann.requestId } });
  t.notOk(await f.waiting.withdraw('r1', ann.secret), 'a second leave finds nothing');
  t.notOk(await f.waiting.withdraw('r1', 'not a secret'));
});

t.test('an admitted person leaving the waiting page keeps her admission', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  await f.waiting.admitAll('r1', api());
  await f.waiting.withdraw('r1', ann.secret);
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'admitted');
});

t.test('knocking again with a cookie still waiting is the same request', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  const again = await f.waiting.knock(arrive('r1', 'Ann', { secret: ann.secret }));
  t.same(again, { status: 'waiting', requestId: ann.requestId, secret: ann.secret });
  t.equal(f.store.requests.size, 1);
});

t.test('disable the waiting room: everyone waiting enters, later arrivals do not wait', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const ann = await f.knock('Ann');
  await f.knock('Bob');
  t.same(await f.waiting.disableWaitingRoom('r1', by(mod.participantId)), { admitted: 2 });
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'admitted');
  t.equal(f.meetings.current('r1')?.waitingDisabled, true);
  t.equal((await f.waiting.knock(arrive('r1', 'Late'))).status, 'joined');
  t.match((await f.meetings.timeline('r1')).slice(-2), [
    { kind: 'waiting_room_disabled', actor: { name: 'Mod' } },
    { kind: 'admit_all', actor: { name: 'Mod' }, count: 2 },
  ]);
  t.same(await f.waiting.disableWaitingRoom('r1', by(mod.participantId)), { admitted: 0 }, 'idempotent');
  t.equal((await f.kinds()).filter((k) => k === 'waiting_room_disabled').length, 1);
});

t.test('disable is refused under a forced policy, and needs a meeting', async (t) => {
  const forced = new Fixture({ policy: { waitingRoom: 'forced', waitingRoomMode: null } });
  forced.room();
  const mod = await forced.moderator();
  await forced.knock('Ann');
  await t.rejects(() => forced.waiting.disableWaitingRoom('r1', by(mod.participantId)), {
    code: 'waiting_room_forced',
  });
  t.equal((await forced.waiting.list('r1', api())).length, 1, 'still waiting');

  const none = new Fixture();
  none.room();
  await t.rejects(() => none.waiting.disableWaitingRoom('r1', api()), { code: 'meeting_not_found' });
});

t.test('a disable recorded before the instance was forced does not hold under forced', async (t) => {
  const f = new Fixture();
  f.room();
  await f.moderator();
  await f.waiting.disableWaitingRoom('r1', api());
  f.restart({ waitingRoom: 'forced', waitingRoomMode: null });
  t.equal((await f.waiting.knock(arrive('r1', 'Ann'))).status, 'waiting');
});

t.test('gestures are for moderators of the open meeting', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'guests' });
  await f.moderator();
  const student = await f.waiting.start(arrive('r1', 'Student', { claims: { role: 'participant', source: 'lms' } }));
  const participantId = student.status === 'joined' ? student.participant.participantId : '';
  const ann = await f.knock('Ann');
  const notMod = { code: 'not_moderator' };
  await t.rejects(() => f.waiting.list('r1', by(participantId)), notMod);
  await t.rejects(() => f.waiting.admit('r1', ann.requestId, by(participantId)), notMod);
  await t.rejects(() => f.waiting.admitAll('r1', by(participantId)), notMod);
  await t.rejects(() => f.waiting.refuse('r1', ann.requestId, true, by(participantId)), notMod);
  await t.rejects(() => f.waiting.disableWaitingRoom('r1', by(participantId)), notMod);
  await t.rejects(() => f.waiting.list('r1', by('forged-id')), notMod);
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'waiting', 'nothing changed');

  f.room({ roomId: 'r2' });
  const otherMod = await f.moderator('r2');
  await t.rejects(
    () => f.waiting.admit('r1', ann.requestId, by(otherMod.participantId)),
    notMod,
    'a moderator of another room',
  );
});

t.test('gestures on a room with no meeting', async (t) => {
  const f = new Fixture();
  f.room();
  t.same(await f.waiting.list('r1', api()), []);
  t.same(await f.waiting.admitAll('r1', api()), { admitted: 0 });
  await t.rejects(() => f.waiting.admit('r1', 'x', api()), { code: 'request_not_found' });
  await t.rejects(() => f.waiting.refuse('r1', 'x', false, api()), { code: 'request_not_found' });
  await t.rejects(() => f.waiting.list('r1', by('someone')), { code: 'not_moderator' });
});

t.test('secrets: 256 random bits, base64url, only their hash is stored, scoped to the room', async (t) => {
  const f = new Fixture();
  f.room({ roomId: 'a' });
  f.room({ roomId: 'b' });
  const one = await f.knock('Ann', 'a');
  const two = await f.knock('Bob', 'a');
  await f.knock('Cy', 'b');
  t.match(one.secret, /^[A-Za-z0-9_-]{43}$/);
  t.not(one.secret, two.secret);
  t.not(one.requestId, two.requestId);
  t.match(one.requestId, /^[A-Za-z0-9_-]{30}$/, 'request id: the knock time (8 characters) and 128 random bits (22)');
  const stored = f.store.requests.get(one.requestId)!;
  t.same(stored.secretHash, createHash('sha256').update(one.secret).digest('base64url'));
  t.notOk(
    JSON.stringify([...f.store.requests.values()]).includes(one.secret),
    'the secret itself is nowhere in the store',
  );
  t.equal(await f.waiting.poll('b', one.secret), null, "room b does not know room a's cookie");
  t.notOk(await f.waiting.withdraw('b', one.secret));
  t.equal((await f.waiting.poll('a', one.secret))?.status, 'waiting');
  t.equal(await f.waiting.poll('a', 'A'.repeat(43)), null, 'an unknown cookie');
  t.equal(await f.waiting.poll('a', 42), null, 'not a string');
});

t.test('the poll is served from memory: no store read, no store write', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  const reads = f.store.reads;
  const writes = f.store.writes;
  for (let i = 0; i < 20; i++) {
    f.clock.advance(2000);
    t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'waiting');
  }
  t.equal(f.store.reads, reads, 'no reads');
  t.equal(f.store.writes, writes, 'no writes');
});

t.test('listeners hear which room changed', async (t) => {
  const f = new Fixture();
  f.room();
  const heard: string[] = [];
  const stop = f.waiting.onWaitingListChange((roomId) => heard.push(roomId));
  f.waiting.onWaitingListChange(() => {
    throw new Error('a broken listener');
  });
  const ann = await f.knock('Ann');
  await f.waiting.admit('r1', ann.requestId, api());
  stop();
  await f.knock('Bob');
  t.same(heard, ['r1', 'r1']);
});

t.test('listeners hear what moderators now see and no longer see, at every transition', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 120 });
  const mod = await f.moderator();
  const heard: { added: string[]; removed: string[]; reset: boolean }[] = [];
  const names = new Map<string, string>();
  f.waiting.onWaitingListChange((roomId, change) => {
    t.equal(roomId, 'r1');
    t.equal(change.meetingId, f.meetings.current('r1')?.meetingId ?? change.meetingId);
    for (const item of change.added) names.set(item.request_id, item.name);
    heard.push({
      added: change.added.map((i) => i.name),
      removed: change.removed.map((id) => names.get(id) ?? id),
      reset: change.reset,
    });
  });
  const take = () => heard.splice(0);
  const knocks = {} as Record<string, { requestId: string; secret: string }>;
  for (const name of ['Ann', 'Bob', 'Cy', 'Dee', 'Eve', 'Fay'])
    knocks[name] = await f.knock(name, 'r1', { clientKey: `198.51.100.${name.length + Object.keys(knocks).length}` });
  t.same(
    take().map((c) => c.added),
    [['Ann'], ['Bob'], ['Cy'], ['Dee'], ['Eve'], ['Fay']],
    'each knock: its item, once committed',
  );
  t.match(
    (await f.waiting.list('r1', by(mod.participantId)))[0],
    { request_id: knocks.Ann!.requestId, name: 'Ann', note: '', knocked_at: /^\d{4}-/ },
    'items as the list shows them',
  );

  await f.waiting.admit('r1', knocks.Ann!.requestId, by(mod.participantId));
  await f.waiting.refuse('r1', knocks.Bob!.requestId, false, by(mod.participantId));
  await f.waiting.refuse('r1', knocks.Cy!.requestId, true, by(mod.participantId));
  await f.waiting.withdraw('r1', knocks.Dee!.secret);
  t.same(
    take(),
    [
      { added: [], removed: ['Ann'], reset: false },
      { added: [], removed: ['Bob'], reset: false },
      { added: [], removed: ['Cy'], reset: false },
      { added: [], removed: ['Dee'], reset: false },
    ],
    'admit, refuse, bar, withdraw: the id only',
  );
  t.same(await f.waiting.admit('r1', knocks.Ann!.requestId, by(mod.participantId)), { admitted: 0 });
  t.same(take(), [], 'a second admission changes nothing, and says nothing');

  await f.waiting.leaving('r1', knocks.Eve!.secret);
  await f.waiting.poll('r1', knocks.Eve!.secret);
  t.same(
    take(),
    [
      { added: [], removed: ['Eve'], reset: false },
      { added: ['Eve'], removed: [], reset: false },
    ],
    'leaving hides her, her next poll shows her again',
  );

  f.clock.advance(59_000);
  await f.waiting.poll('r1', knocks.Fay!.secret);
  take(); // the connection-lost marks of Eve and Fay, and Fay's back (grace.test.ts)
  f.clock.advance(2_000);
  await f.waiting.sweep();
  t.same(take(), [{ added: [], removed: ['Eve'], reset: false }], 'the sweep: a closed window');
  f.clock.advance(60_000);
  t.equal((await f.waiting.poll('r1', knocks.Fay!.secret))?.status, 'expired');
  t.same(take(), [{ added: [], removed: ['Fay'], reset: false }], 'an expiry');

  await f.knock('Gil', 'r1', { clientKey: '198.51.100.99' });
  take();
  t.ok(await f.meetings.end('r1'));
  t.same(take(), [{ added: [], removed: [], reset: true }], "the meeting's end drops its list: reset, read it again");
});

t.test(
  'a closed-window delay set on its own (SERVICE_WAITING_CLOSED_WINDOW_SECS) replaces the three missed polls',
  async (t) => {
    const f = new Fixture({ waiting: { closedWindowMs: 30_000 } });
    f.room();
    const ann = await f.knock('Ann');
    f.clock.advance(29_000);
    await f.waiting.sweep();
    t.same(
      (await f.waiting.list('r1', api())).map((i) => i.name),
      ['Ann'],
      'silent for 29 s: still waiting (three missed polls would have closed it at 6 s)',
    );
    f.clock.advance(1000);
    await f.waiting.sweep();
    t.same(await f.waiting.list('r1', api()), [], 'silent for 30 s: a closed window');
    t.equal(await f.waiting.poll('r1', ann.secret), null);
  },
);
