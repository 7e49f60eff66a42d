import t from 'tap';
import { Fixture, api, by } from '../../../helpers/engine-fixture.js';
import type { WaitingListChange } from '../../../../src/engine/waiting/waiting-room-types.js';

// Issue 31 point 5: a barred pupil knocking again from a fresh browser profile carries no cookie,
// so nothing bars him; his name marks the request for the moderators, and admit all leaves him waiting.

t.test('a new request under a barred name is marked, whatever its case, accents and spaces', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const max = await f.knock('Max Müller');
  await f.waiting.refuse('r1', max.requestId, true, by(mod.participantId));
  const heard: WaitingListChange[] = [];
  f.waiting.onWaitingListChange((_, change) => heard.push(change));
  // A fresh profile: no cookie, so a new request, not a bar.
  const again = await f.knock('  max   MULLER ');
  const ann = await f.knock('Ann');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => [r.name, r.barred_as]),
    [
      ['max   MULLER', 'Max Müller'],
      ['Ann', undefined],
    ],
    'the list marks him with the name he was barred as; Ann is not marked',
  );
  t.same(
    heard.flatMap((c) => c.added).map((r) => [r.request_id, r.barred_as]),
    [
      [again.requestId, 'Max Müller'],
      [ann.requestId, undefined],
    ],
    'the change that tells the moderators of his knock carries the mark',
  );
  t.same(await f.waiting.poll('r1', again.secret), { status: 'waiting' }, 'the name match is not a bar: he waits');

  t.same(await f.waiting.admitAll('r1', by(mod.participantId)), { admitted: 1, skipped: 1 }, 'admit all skips him');
  t.equal((await f.waiting.poll('r1', again.secret))?.status, 'waiting', 'still waiting after admit all');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'admit_all', count: 1 });
  t.same(
    await f.waiting.admit('r1', again.requestId, by(mod.participantId)),
    { admitted: 1 },
    'one by one he may be let in',
  );
});

t.test('refused (not barred) names mark nothing; a bar marks who already waits under that name', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const first = await f.knock('Lea');
  await f.waiting.refuse('r1', first.requestId, false, by(mod.participantId));
  await f.knock('Lea');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => r.barred_as),
    [undefined],
    'a refusal is no bar',
  );
  t.same(await f.waiting.admitAll('r1', api()), { admitted: 1 }, 'nobody skipped: no skipped count');

  const tom = await f.knock('Tom');
  const tomToo = await f.knock('Tóm');
  const heard: WaitingListChange[] = [];
  f.waiting.onWaitingListChange((_, change) => heard.push(change));
  await f.waiting.refuse('r1', tom.requestId, true, by(mod.participantId));
  t.same(
    heard.map((c) => [c.removed, c.added.map((r) => [r.request_id, r.barred_as])]),
    [[[tom.requestId], [[tomToo.requestId, 'Tom']]]],
    'the bar tells the moderators again of the other Tom, now marked',
  );
});

t.test('the mark outlives a restart (bars are reloaded with the meeting)', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const max = await f.knock('Max');
  await f.waiting.refuse('r1', max.requestId, true, by(mod.participantId));
  f.restart();
  await f.knock('max');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => r.barred_as),
    ['Max'],
  );
});

// The remaining gap: under until_moderator, the moderator's arrival let everyone in, marked requests too.
t.test('a moderator arriving under until_moderator lets in everyone waiting but the marked', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomMode: 'until_moderator' });
  const max = await f.knock('Max Müller');
  // Nobody moderates yet: the school's platform bars him through the rooms API.
  await f.waiting.refuse('r1', max.requestId, true, api());
  f.clock.advance(1000);
  const again = await f.knock('max muller');
  const ann = await f.knock('Ann');
  const ben = await f.knock('Ben');
  f.clock.advance(3000);
  for (const r of [again, ann, ben]) t.same(await f.waiting.poll('r1', r.secret), { status: 'waiting' });

  const mod = await f.moderator();
  t.equal((await f.waiting.poll('r1', ann.secret))?.status, 'admitted', 'Ann enters with the moderator');
  t.equal((await f.waiting.poll('r1', ben.secret))?.status, 'admitted', 'so does Ben');
  t.same(await f.waiting.poll('r1', again.secret), { status: 'waiting' }, 'the marked request keeps waiting');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((r) => [r.name, r.barred_as]),
    [['max muller', 'Max Müller']],
    'the moderator sees him marked, to decide on him',
  );
  t.match(
    (await f.meetings.timeline('r1')).slice(-2),
    [{ kind: 'moderator_arrived' }, { kind: 'admit_all', actor: null, count: 2, skipped: 1 }],
    'the skipped one is counted as under Admit all',
  );

  // Later arrivals wait no more; a second moderator's arrival admits nobody and records nothing.
  f.clock.advance(5000);
  t.same(await f.waiting.poll('r1', again.secret), { status: 'waiting' });
  await f.moderator('r1', 'Second');
  t.same(await f.waiting.poll('r1', again.secret), { status: 'waiting' }, 'still waiting');
  t.equal((await f.kinds()).at(-1), 'moderator_arrived', 'no admission recorded for nobody');
  t.same(await f.waiting.admitAll('r1', by(mod.participantId)), { admitted: 0, skipped: 1 }, 'Admit all says the same');
  t.match((await f.meetings.timeline('r1')).at(-1), { kind: 'admit_all', count: 0, skipped: 1 });
});
