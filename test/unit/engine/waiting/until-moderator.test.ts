import t from 'tap';
import { Fixture, arrive, by, claims } from '../../../helpers/engine-fixture.js';

t.test('until_moderator: waiting ends for everyone when a moderator arrives', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomMode: 'until_moderator' });
  const ann = await f.knock('Ann');
  const bob = await f.knock('Bob');
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  const mod = await f.moderator('r1', 'Maria');
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'admitted');
  t.equal((await f.waiting.poll('r1', bob.secret))?.status, 'admitted');
  t.match((await f.meetings.timeline('r1')).slice(-2), [
    { kind: 'moderator_arrived', actor: null, subject: { participantId: mod.participantId, name: 'Maria' } },
    { kind: 'admit_all', actor: null, count: 2 },
  ]);
});

t.test(
  'until_moderator: while a moderator is present arrivals enter; after the last leaves, later arrivals wait',
  async (t) => {
    const f = new Fixture();
    f.room({ waitingRoomMode: 'until_moderator' });
    const first = await f.moderator('r1', 'First');
    const second = await f.moderator('r1', 'Second');
    const early = await f.waiting.knock(arrive('r1', 'Early'));
    t.equal(early.status, 'joined');
    await f.meetings.leave(first.participantId);
    t.equal((await f.waiting.knock(arrive('r1', 'Still'))).status, 'joined', 'one moderator is still present');
    await f.meetings.leave(second.participantId);
    t.same(
      f.meetings.present('r1').map((p) => p.name),
      ['Early', 'Still'],
      'those present stay',
    );
    const late = await f.knock('Late');
    t.same(await f.waiting.poll('r1', late.secret), { status: 'waiting' }, 'later arrivals wait again');
    t.same(await f.waiting.start(arrive('r1', 'Later')), { status: 'knock' });

    // Who left comes back through the door (a left session opens nothing): a new arrival.
    await f.waiting.start(arrive('r1', 'Second again', { claims: claims('moderator') }));
    t.equal((await f.waiting.poll('r1', late.secret))?.status, 'admitted', "a moderator's return counts as an arrival");
  },
);

t.test('approval: a moderator arriving admits nobody', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomMode: 'approval' });
  const ann = await f.knock('Ann');
  const mod = await f.moderator();
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  t.equal((await f.waiting.list('r1', by(mod.participantId))).length, 1);
  t.same(await f.waiting.start(arrive('r1', 'Bob')), { status: 'knock' }, 'presence does not matter in approval mode');
});

t.test('until_moderator: a request whose window closed is not admitted by the arrival', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomMode: 'until_moderator' });
  const gone = await f.knock('Gone');
  f.clock.advance(60_000); // the grace of a silent page
  await f.moderator();
  t.equal(await f.waiting.poll('r1', gone.secret), null);
  t.equal(f.meetings.present('r1').length, 1, 'only the moderator');
});
