// Issue 34 point 5: the waiting room's service tests once more on PostgreSQL. The meetings and the
// waiting room, wired as the daemon wires them (engineOn), over each store's asynchronous ports
// (SQLite behind them, and a throwaway PostgreSQL, in-process): every transition written through
// and read back by a service rebuilt on the same store (as after kill -9), the meeting's end and
// its attendance, and two decisions on one person at once ending in one state.
import type { AsyncStores } from '../../../src/engine/async-ports.js';
import type { Arrival } from '../../../src/engine/waiting/admission.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { engineOn } from '../../helpers/sqlite-engine.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;
const arrival = (name: string, extra: Partial<Arrival> = {}): Arrival => ({
  roomId: 'r1',
  name,
  clientKey: '192.0.2.1',
  ...extra,
});
const moderator = { claims: { role: 'moderator', source: 'link' } } as const;

async function scene(stores: AsyncStores, clock: FakeClock) {
  const s = await engineOn(stores, clock, { policy });
  const knock = async (name: string, extra: Partial<Arrival> = {}) => {
    const result = await s.waiting.knock(arrival(name, { note: `note of ${name}`, ...extra }));
    if (result.status !== 'waiting') throw new Error(`expected to wait, got ${result.status}`);
    return result;
  };
  /** Maria enters with a moderator link: the actor of the decisions that follow. */
  const moderatorEnters = async () => {
    const joined = await s.waiting.start(arrival('Maria', moderator));
    if (joined.status !== 'joined') throw new Error('the moderator should enter');
    return { kind: 'participant', participantId: joined.participant.participantId } as const;
  };
  return { ...s, knock, moderatorEnters };
}

onEachStore(
  'written through: a service rebuilt on the same store (as after kill -9) has the same state',
  async (t, stores) => {
    const clock = new FakeClock();
    await stores.rooms.insert(room('r1'));
    let s = await scene(stores, clock);
    const maria = await s.moderatorEnters();
    const admitted = await s.knock('Admitted');
    const barred = await s.knock('Barred');
    const waiting = await s.knock('<b>Waiting</b>');
    await s.waiting.admit('r1', admitted.requestId, maria);
    await s.waiting.refuse('r1', barred.requestId, true, { kind: 'api', name: 'moodle' });
    const admittedPoll = await s.waiting.poll('r1', admitted.secret);
    const timeline = await s.meetings.timeline('r1');
    const list = await s.waiting.list('r1', { kind: 'api', name: 'x' });

    // Nothing closed or flushed: what a kill -9 leaves behind is what was committed.
    clock.advance(3000);
    s = await scene(stores, clock);
    t.same(await s.waiting.poll('r1', waiting.secret), { status: 'waiting' });
    t.same(await s.waiting.poll('r1', barred.secret), { status: 'barred' });
    t.same(await s.waiting.poll('r1', admitted.secret), admittedPoll);
    t.equal(admittedPoll?.status, 'admitted');
    await t.rejects(s.waiting.knock(arrival('Barred', { secret: barred.secret })), { code: 'barred' });
    t.same(await s.meetings.timeline('r1'), timeline, 'the timeline is whole');
    t.same(
      timeline.map((e) => e.kind),
      ['moderator_arrived', 'knock', 'knock', 'knock', 'admit', 'bar'],
    );
    t.same(await s.waiting.list('r1', maria), list, 'the moderator is still a moderator; the list is the same');
    t.equal(list[0]?.name, '<b>Waiting</b>', 'plain text survives the round trip');
    t.equal(list[0]?.note, 'note of <b>Waiting</b>');
  },
);

onEachStore('the end of a meeting: attendance, refusals, nobody left waiting, a next meeting', async (t, stores) => {
  const clock = new FakeClock();
  await stores.rooms.insert(room('r1'));
  const s = await scene(stores, clock);
  const maria = await s.moderatorEnters();
  const ann = await s.knock('Ann');
  const bob = await s.knock('Bob');
  const cy = await s.knock('Cy');
  clock.advance(1000);
  await s.waiting.admit('r1', ann.requestId, maria);
  await s.waiting.refuse('r1', bob.requestId, false, maria);
  clock.advance(1000);
  t.ok(await s.meetings.end('r1', maria));
  t.equal(s.meetings.current('r1'), null);
  const attendance = await s.meetings.attendance('r1');
  t.same(
    attendance.participants.map((p) => [p.name, p.leftAt]),
    [
      ['Maria', '2030-01-01T09:00:02.000Z'],
      ['Ann', '2030-01-01T09:00:02.000Z'],
    ],
  );
  t.same(
    attendance.refused.map((r) => r.name),
    ['Bob'],
  );
  t.same(await s.waiting.poll('r1', cy.secret), null, 'the ended meeting answers no poll');
  const ended = (await s.meetings.list('r1'))[0]!.meetingId;
  t.same(
    (await stores.waitingRequests.pollableRequests(ended)).map((r) => [r.name, r.state]),
    [
      ['Ann', 'admitted'],
      ['Bob', 'refused'],
      ['Cy', 'expired'],
    ],
    'nobody is left waiting in a closed meeting',
  );
  const again = await s.waiting.start(arrival('Maria', moderator));
  t.equal(again.status, 'joined', 'a next meeting of the room starts');
  t.equal((await s.meetings.list('r1')).length, 2);
});

onEachStore('two decisions on one person at once end in one state, on the store as in memory', async (t, stores) => {
  const clock = new FakeClock();
  await stores.rooms.insert(room('r1'));
  const s = await scene(stores, clock);
  const maria = await s.moderatorEnters();
  const api = { kind: 'api', name: 'lms' } as const;
  const ann = await s.knock('Ann', { clientKey: '198.51.100.1' });
  const bob = await s.knock('Bob', { clientKey: '198.51.100.2' });

  const [admitted, refused] = await Promise.allSettled([
    s.waiting.admit('r1', ann.requestId, maria),
    s.waiting.refuse('r1', ann.requestId, false, api),
  ]);
  t.same(admitted, { status: 'fulfilled', value: { admitted: 1 } }, 'the first decision is applied');
  t.match(refused, { status: 'rejected', reason: { code: 'request_not_waiting' } }, 'the second is told');

  const [all, refusedBob] = await Promise.allSettled([
    s.waiting.admitAll('r1', maria),
    s.waiting.refuse('r1', bob.requestId, false, api),
  ]);
  t.same(all, { status: 'fulfilled', value: { admitted: 1 } }, 'admit all took Bob');
  t.match(refusedBob, { status: 'rejected', reason: { code: 'request_not_waiting' } }, 'the refusal came too late');

  // A service rebuilt on the store agrees with what was answered.
  const after = await scene(stores, clock);
  for (const secret of [ann.secret, bob.secret])
    t.equal((await after.waiting.poll('r1', secret))?.status, 'admitted', 'admitted, on disk');
  t.same(
    (await after.meetings.timeline('r1')).map((e) => e.kind),
    ['moderator_arrived', 'knock', 'knock', 'admit', 'admit_all'],
    'the timeline holds one decision each',
  );
  t.same(
    after.meetings.present('r1').map((p) => p.name),
    ['Maria', 'Ann', 'Bob'],
  );
});
