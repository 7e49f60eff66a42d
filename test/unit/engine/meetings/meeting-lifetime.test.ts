import t from 'tap';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';

const grace = 5 * 60_000;

t.test('a meeting ends after being empty for the grace period (default 5 minutes)', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  const ann = joined.status === 'joined' ? joined.participant : null;
  const meetingId = f.meetings.current('r1')?.meetingId;
  f.clock.advance(60_000);
  await f.meetings.leave(ann!.participantId);
  f.clock.advance(grace - 1);
  await f.waiting.sweep();
  t.equal(f.meetings.current('r1')?.meetingId, meetingId, 'open 1 ms before the grace period is over');
  f.clock.advance(1);
  await f.waiting.sweep();
  t.equal(f.meetings.current('r1'), null, 'ended');
  t.equal(f.store.meetings.get(meetingId!)?.endedAt, f.clock.now().toISOString());
  t.equal(f.meetings.participant(ann!.participantId), null, 'its participants are gone from memory');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'meeting_ended', actor: null });
});

t.test('the grace period is an option', async (t) => {
  const f = new Fixture({ meetings: { emptyGraceMs: 10_000 } });
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  await f.meetings.leave(joined.status === 'joined' ? joined.participant.participantId : '');
  f.clock.advance(10_000);
  await f.waiting.sweep();
  t.equal(f.meetings.current('r1'), null);
});

t.test('a meeting with someone present or waiting is not empty', async (t) => {
  const f = new Fixture();
  f.room();
  await f.moderator();
  f.clock.advance(grace * 3);
  await f.waiting.sweep();
  t.ok(f.meetings.current('r1'), 'a participant is present');

  const g = new Fixture({ waiting: { closedWindowMs: 10_000_000 } });
  g.room({ waitingRoomTimeoutSecs: 3600 });
  await g.knock('Ann');
  g.clock.advance(grace * 2);
  await g.waiting.sweep();
  t.ok(g.meetings.current('r1'), 'someone is waiting');
  g.clock.advance(3600_000 - grace * 2);
  await g.waiting.sweep();
  t.ok(g.meetings.current('r1'), 'the request just expired: the grace period starts now');
  g.clock.advance(grace);
  await g.waiting.sweep();
  t.equal(g.meetings.current('r1'), null, 'ended one grace period after the expiry');
});

t.test('the end of a meeting ends its bars; the next meeting starts clean', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const eve = await f.knock('Eve');
  await f.waiting.refuse('r1', eve.requestId, true, by(mod.participantId));
  const first = f.meetings.current('r1')!.meetingId;
  await f.meetings.leave(mod.participantId);
  f.clock.advance(grace);
  await f.waiting.sweep();
  t.equal(f.meetings.current('r1'), null);
  t.equal(await f.waiting.poll('r1', eve.secret), null, 'the barred cookie names nothing in the next meeting');
  const again = await f.waiting.knock(arrive('r1', 'Eve', { secret: eve.secret }));
  t.equal(again.status, 'waiting', 'she may knock in the next meeting');
  t.not(f.meetings.current('r1')!.meetingId, first, 'a new meeting');
  t.same(
    (await f.meetings.timeline('r1')).map((e) => e.kind),
    ['knock'],
    'the new meeting has its own timeline',
  );
  t.ok(
    (await f.meetings.timeline('r1', first)).some((e) => e.kind === 'bar'),
    'the old timeline is kept',
  );
});

t.test('end: explicit, by a moderator or an integration; waiting requests expire with it', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator('r1', 'Maria');
  const ann = await f.knock('Ann');
  const bob = await f.knock('Bob');
  await f.waiting.admit('r1', bob.requestId, by(mod.participantId));
  const bobId = f.meetings.present('r1').find((p) => p.name === 'Bob')!.participantId;
  await t.rejects(() => f.meetings.end('r1', by(bobId)), { code: 'not_moderator' });
  t.ok(f.meetings.current('r1'), 'still open');
  const meetingId = f.meetings.current('r1')!.meetingId;
  f.clock.advance(1000);
  t.equal(await f.meetings.end('r1', by(mod.participantId)), true);
  t.equal(f.meetings.current('r1'), null);
  t.equal(await f.waiting.poll('r1', ann.secret), null);
  t.equal(f.store.requests.get(ann.requestId)?.state, 'expired', 'no request stays waiting in the store');
  t.same(f.store.meetings.get(meetingId)?.endedAt, '2030-01-01T09:00:01.000Z');
  const attendance = await f.meetings.attendance('r1', meetingId);
  t.ok(
    attendance.participants.every((p) => p.leftAt === '2030-01-01T09:00:01.000Z'),
    'everyone present left at the end',
  );
  t.match((await f.meetings.timeline('r1', meetingId)).slice(-2), [
    { kind: 'expire', subject: { name: 'Ann' } },
    { kind: 'meeting_ended', actor: { name: 'Maria' } },
  ]);
  t.equal(await f.meetings.end('r1', api()), false, 'nothing to end');
});

t.test('leave: once, and she stays a participant of the meeting', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  const id = joined.status === 'joined' ? joined.participant.participantId : '';
  f.clock.advance(1000);
  const left = await f.meetings.leave(id);
  t.equal(left?.leftAt, '2030-01-01T09:00:01.000Z');
  t.same(await f.meetings.leave(id), left, 'leaving twice changes nothing');
  t.same(f.meetings.present('r1'), []);
  t.ok(f.meetings.participant(id), 'she is still a participant of the open meeting');
  t.equal(await f.meetings.leave('unknown'), null);
});

t.test('roomDeleted forgets the meeting and its requests without writing', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  const writes = f.store.writes;
  f.meetings.roomDeleted('r1');
  t.equal(f.meetings.current('r1'), null);
  t.equal(await f.waiting.poll('r1', ann.secret), null);
  f.clock.advance(grace * 2);
  await f.waiting.sweep();
  t.equal(f.store.writes, writes);
});

t.test('list, and timeline of an unknown meeting', async (t) => {
  const f = new Fixture();
  f.room();
  f.room({ roomId: 'r2' });
  await t.rejects(() => f.meetings.timeline('r1'), { code: 'meeting_not_found' });
  await f.moderator();
  await f.meetings.end('r1');
  f.clock.advance(1000);
  await f.moderator();
  const list = await f.meetings.list('r1');
  t.equal(list.length, 2);
  t.equal(list[0]?.meetingId, f.meetings.current('r1')?.meetingId, 'newest first');
  await t.rejects(
    () => f.meetings.timeline('r2', list[0]!.meetingId),
    { code: 'meeting_not_found' },
    'a meeting of another room',
  );
  await t.rejects(() => f.meetings.attendance('r1', 'nope'), { code: 'meeting_not_found' });
});
