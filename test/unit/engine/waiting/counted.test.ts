// Issue 29, point 12: the waiting room tells its counter (the daemon's metrics) of each knock
// once it is durable and of each way out of waiting, once; and how many wait now.
import t from 'tap';
import { Fixture, by } from '../../../helpers/engine-fixture.js';

function counting(): { counts: Record<string, number>; counter: { counted(outcome: string): void } } {
  const counts: Record<string, number> = {};
  return { counts, counter: { counted: (outcome) => void (counts[outcome] = (counts[outcome] ?? 0) + 1) } };
}

t.test(
  'knocks, admissions, refusals, bars, withdrawals, closed windows and expiry are each counted once',
  async (t) => {
    const { counts, counter } = counting();
    const f = new Fixture({ counter });
    f.room();
    const mod = by((await f.moderator()).participantId);
    const [ann, bob, cy, dan] = [await f.knock('Ann'), await f.knock('Bob'), await f.knock('Cy'), await f.knock('Dan')];
    await f.knock('Eve');
    t.same(counts, { knock: 5 });
    t.equal(f.waiting.waitingCount(), 5);

    await f.waiting.admit('r1', ann.requestId, mod);
    t.same(await f.waiting.admit('r1', ann.requestId, mod), { admitted: 0 }, 'a second click');
    await f.waiting.refuse('r1', bob.requestId, false, mod);
    await f.waiting.refuse('r1', cy.requestId, true, mod);
    await f.waiting.withdraw('r1', dan.secret);
    t.equal(f.waiting.waitingCount(), 1, 'Eve still waits');
    // Eve's page stops polling: after the grace her window counts as closed.
    f.clock.advance(61_000);
    await f.waiting.sweep();
    t.same(counts, { knock: 5, admitted: 1, refused: 1, barred: 1, withdrawn: 1, window_closed: 1 });
    t.equal(f.waiting.waitingCount(), 0);

    const fay = await f.knock('Fay');
    f.clock.advance(601_000);
    t.match(await f.waiting.poll('r1', fay.secret), { status: 'expired' }, 'her request timed out');
    await f.knock('Gus');
    await f.knock('Hal');
    t.same(await f.waiting.admitAll('r1', mod), { admitted: 2 });
    t.same(counts, { knock: 8, admitted: 3, refused: 1, barred: 1, withdrawn: 1, window_closed: 1, expired: 1 });
  },
);

t.test('a knock whose commit failed is not counted; requests left when the meeting ends expire counted', async (t) => {
  const { counts, counter } = counting();
  const f = new Fixture({ counter });
  f.room();
  await f.moderator();
  f.store.commitError = new Error('disk full');
  await t.rejects(f.knock('Ann'), { message: 'disk full' });
  t.same(counts, {}, 'nothing of a lost knock');
  f.store.commitError = null;
  await f.knock('Bob');
  await f.knock('Cy');
  t.equal(f.waiting.waitingCount(), 2);
  await f.meetings.end('r1');
  t.same(counts, { knock: 2, expired: 2 });
  t.equal(f.waiting.waitingCount(), 0, 'no open meeting, nobody waiting');
});
