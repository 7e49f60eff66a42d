import t from 'tap';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';

/** The durability scenario, against the memory store (the SQLite one is in test/unit/store). */
t.test(
  'after a restart: waiting still waits, barred still barred, admitted still a participant, timeline whole',
  async (t) => {
    const f = new Fixture();
    f.room();
    const mod = await f.moderator();
    const admitted = await f.knock('Admitted');
    const barred = await f.knock('Barred');
    const waiting = await f.knock('Waiting');
    const refused = await f.knock('Refused');
    await f.waiting.admit('r1', admitted.requestId, by(mod.participantId));
    await f.waiting.refuse('r1', barred.requestId, true, by(mod.participantId));
    await f.waiting.refuse('r1', refused.requestId, false, by(mod.participantId));
    const before = await f.meetings.timeline('r1');
    const meetingId = f.meetings.current('r1')!.meetingId;
    const participant = await f.waiting.poll('r1', admitted.secret);

    f.clock.advance(5000);
    f.restart();

    t.equal(f.meetings.current('r1')?.meetingId, meetingId, 'the meeting is still open');
    t.same(await f.waiting.poll('r1', waiting.secret), { status: 'waiting' });
    t.same(await f.waiting.poll('r1', barred.secret), { status: 'barred' });
    t.same(await f.waiting.poll('r1', refused.secret), { status: 'refused', retry: true });
    t.same(await f.waiting.poll('r1', admitted.secret), participant);
    const admittedId = participant?.status === 'admitted' ? participant.participant.participantId : '';
    t.match(f.meetings.participant(admittedId), { name: 'Admitted', leftAt: null });
    await t.rejects(f.waiting.knock(arrive('r1', 'Barred', { secret: barred.secret })), { code: 'barred' });
    t.same(await f.meetings.timeline('r1'), before, 'the timeline is whole');
    t.same(
      (await f.waiting.list('r1', by(mod.participantId))).map((r) => r.name),
      ['Waiting'],
      'the moderator is still a moderator',
    );
  },
);

t.test('a restart gives last-seen times a fresh start', async (t) => {
  const f = new Fixture();
  f.room();
  const ann = await f.knock('Ann');
  f.clock.advance(60_000); // the service was down for a minute: nobody could poll
  f.restart();
  await f.waiting.sweep();
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' }, 'not swept as a closed window');
  f.clock.advance(60_000);
  await f.waiting.sweep();
  t.equal(
    await f.waiting.poll('r1', ann.secret),
    null,
    'but a window that stays closed through the grace is still removed',
  );
});

t.test('a restart keeps the expiry time of each request', async (t) => {
  const f = new Fixture({ waiting: { missedPolls: 1_000_000 } });
  f.room({ waitingRoomTimeoutSecs: 30 });
  const ann = await f.knock('Ann');
  f.clock.advance(20_000);
  f.restart();
  f.clock.advance(9_999);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  f.clock.advance(1);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'expired', retry: true });
});

t.test('a restart gives an empty meeting a fresh grace period', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  await f.meetings.leave(joined.status === 'joined' ? joined.participant.participantId : '');
  f.clock.advance(4 * 60_000);
  f.restart();
  f.clock.advance(2 * 60_000);
  await f.waiting.sweep();
  t.ok(f.meetings.current('r1'), 'not ended 6 minutes after the leave: the restart reset the clock');
  f.clock.advance(3 * 60_000);
  await f.waiting.sweep();
  t.equal(f.meetings.current('r1'), null);
});

t.test('a disabled waiting room stays disabled after a restart', async (t) => {
  const f = new Fixture();
  f.room();
  await f.moderator();
  await f.waiting.disableWaitingRoom('r1', api());
  f.restart();
  t.equal((await f.waiting.knock(arrive('r1', 'Ann'))).status, 'joined');
});

t.test('an ended meeting is not reloaded, and neither are its bars', async (t) => {
  const f = new Fixture();
  f.room();
  const eve = await f.knock('Eve');
  await f.waiting.refuse('r1', eve.requestId, true, api());
  await f.meetings.end('r1');
  f.restart();
  t.equal(f.meetings.current('r1'), null);
  t.equal(await f.waiting.poll('r1', eve.secret), null);
});
