// Issue 31 points 4 and 5, the remaining gaps. Turning the waiting room off admits everyone waiting,
// but not a request under the name of a person barred in this meeting: it keeps waiting for a
// moderator's decision, as under Admit all, and the answer counts it (`skipped`). And every removal
// told to the moderators' lists says what became of the request (`outcomes`), so a row that another
// moderator answered, or whose person left, can say so in words before the list closes up.
import t from 'tap';
import { Fixture, by } from '../../../helpers/engine-fixture.js';
import type { WaitingListChange } from '../../../../src/engine/waiting/waiting-room-types.js';

t.test('the waiting room turned off admits everyone but marked requests, and counts them', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const max = await f.knock('Max', 'r1', { clientKey: '198.51.100.1' });
  await f.waiting.refuse('r1', max.requestId, true, by(mod.participantId));
  const again = await f.knock('MAX', 'r1', { clientKey: '198.51.100.2' });
  const ann = await f.knock('Ann', 'r1', { clientKey: '198.51.100.3' });
  const heard: WaitingListChange[] = [];
  f.waiting.onWaitingListChange((_, change) => heard.push(change));

  t.same(
    await f.waiting.disableWaitingRoom('r1', by(mod.participantId)),
    { admitted: 1, skipped: 1 },
    'one in, one skipped',
  );
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'admitted', 'Ann is in');
  t.same(await f.waiting.poll('r1', again.secret), { status: 'waiting' }, 'the marked request still waits');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => [r.name, r.barred_as]),
    [['MAX', 'Max']],
    'and the moderators still see it, marked',
  );
  t.same(
    heard.map((c) => [c.removed, c.outcomes]),
    [[[ann.requestId], { [ann.requestId]: 'admitted' }]],
    'the list is told that Ann was admitted, and nothing of him',
  );
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'admit_all', count: 1 });
  t.same(await f.waiting.switchState('r1'), { enabled: false, switchable: true }, 'the waiting room is off');
  t.same(
    await f.waiting.admit('r1', again.requestId, by(mod.participantId)),
    { admitted: 1 },
    'a moderator may let him in',
  );

  const none = new Fixture();
  none.room();
  const other = await none.moderator();
  await none.knock('Lea');
  t.same(
    await none.waiting.disableWaitingRoom('r1', by(other.participantId)),
    { admitted: 1 },
    'nobody marked: no count',
  );
});

t.test('every removal says what became of the request', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 3600 });
  const mod = await f.moderator();
  const heard: WaitingListChange[] = [];
  f.waiting.onWaitingListChange((_, change) => heard.push(change));
  const knock = (name: string, n: number) => f.knock(name, 'r1', { clientKey: `198.51.100.${n}` });
  const [ann, bob, cy, dan, eve, fay] = await Promise.all(
    ['Ann', 'Bob', 'Cy', 'Dan', 'Eve', 'Fay'].map((name, i) => knock(name, i + 1)),
  );
  heard.splice(0);
  const outcomes = () => Object.assign({}, ...heard.splice(0).map((c) => c.outcomes ?? {}));

  await f.waiting.admit('r1', ann!.requestId, by(mod.participantId));
  await f.waiting.refuse('r1', bob!.requestId, false, by(mod.participantId));
  await f.waiting.refuse('r1', cy!.requestId, true, by(mod.participantId));
  await f.waiting.withdraw('r1', dan!.secret);
  await f.waiting.leaving('r1', eve!.secret);
  t.same(
    outcomes(),
    {
      [ann!.requestId]: 'admitted',
      [bob!.requestId]: 'refused',
      [cy!.requestId]: 'barred',
      [dan!.requestId]: 'left',
      [eve!.requestId]: 'left',
    },
    'admitted, refused, barred by a moderator; withdrawn and closing her window are both left',
  );
  // Fay's page falls silent past the grace (Eve's beacon turns into a withdrawal on the way).
  for (let s = 0; s < 62; s += 1) {
    f.clock.advance(1000);
    await f.waiting.sweep();
  }
  t.same(
    outcomes(),
    { [eve!.requestId]: 'left', [fay!.requestId]: 'timed_out' },
    'a grace that ran out is timed_out (a beacon whose page did not come back is withdrawn: left, again)',
  );
});
