// Issue 31 point 3: a waiting page that falls silent (a network drop, a frozen phone tab, a loaded
// server's slow answers) keeps its place through a grace of 60 s by default. After three missed
// polls (6 s) moderators see her as "connection lost"; her next poll clears it, same place; only a
// grace that ran out closes her window, and moderators are told that she left (`timedOut`).
import t from 'tap';
import { Fixture, api, by } from '../../../helpers/engine-fixture.js';
import type { WaitingListChange } from '../../../../src/engine/waiting/waiting-room-types.js';

async function classroom(options: ConstructorParameters<typeof Fixture>[0] = {}) {
  const f = new Fixture(options);
  f.room({ waitingRoomTimeoutSecs: 3600 });
  const mod = await f.moderator();
  const heard: WaitingListChange[] = [];
  f.waiting.onWaitingListChange((_, change) => heard.push(change));
  const ann = await f.knock('Ann', 'r1', { clientKey: '198.51.100.1' });
  f.clock.advance(10);
  const bob = await f.knock('Bob', 'r1', { clientKey: '198.51.100.2' });
  f.clock.advance(10);
  const cy = await f.knock('Cy', 'r1', { clientKey: '198.51.100.3' });
  // Everyone polls now: their silences are measured from the same moment.
  for (const one of [ann, bob, cy]) await f.waiting.poll('r1', one.secret);
  heard.splice(0);
  const list = () => f.waiting.list('r1', by(mod.participantId));
  const names = async () => (await list()).map((i) => `${i.name}${i.connection_lost ? ' (connection lost)' : ''}`);
  /** Bob and Cy keep polling every 2 s while Ann is silent for `ms`; the sweep runs every second. */
  const silence = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += 1000) {
      f.clock.advance(Math.min(1000, ms - passed));
      if ((passed / 1000) % 2 === 1) for (const other of [bob, cy]) await f.waiting.poll('r1', other.secret);
      await f.waiting.sweep();
    }
  };
  return { f, mod, heard, ann, bob, cy, list, names, silence };
}

t.test('silent for 59 s: her place is kept; 61 s: it is lost', async (t) => {
  const kept = await classroom();
  await kept.silence(59_000);
  t.same(
    await kept.names(),
    ['Ann (connection lost)', 'Bob', 'Cy'],
    '59 s: still first in line, shown as connection lost',
  );
  t.same(await kept.f.waiting.poll('r1', kept.ann.secret), { status: 'waiting' }, 'and her late poll answers waiting');
  t.same(await kept.names(), ['Ann', 'Bob', 'Cy'], 'her poll clears the mark');

  const lost = await classroom();
  await lost.silence(61_000);
  t.same(await lost.names(), ['Bob', 'Cy'], '61 s: gone from the list');
  t.equal(
    await lost.f.waiting.poll('r1', lost.ann.secret),
    null,
    'her cookie names nothing any more (the page says so)',
  );
  t.equal(lost.f.store.requests.get(lost.ann.requestId)?.state, 'window_closed', 'written as a closed window');
  t.match((await lost.f.meetings.timeline('r1')).at(-1), {
    kind: 'window_closed',
    actor: null,
    subject: { name: 'Ann' },
  });
});

t.test('the grace is measured to the millisecond from her last poll', async (t) => {
  const { f, ann, names } = await classroom();
  f.clock.advance(59_999);
  await f.waiting.sweep();
  t.same(
    await names(),
    ['Ann (connection lost)', 'Bob (connection lost)', 'Cy (connection lost)'],
    '1 ms before: kept',
  );
  f.clock.advance(1);
  await f.waiting.sweep();
  t.same(await names(), [], 'at 60 s: closed');
  t.equal(await f.waiting.poll('r1', ann.secret), null);
});

t.test('a re-attach at 50 s keeps her place and the order; moderators saw her lost, then back', async (t) => {
  const { f, heard, ann, silence, names, mod } = await classroom();
  await silence(5_000);
  t.same(heard, [], 'five quiet seconds: nothing to tell (one late poll is not a lost connection)');
  await silence(1_000);
  t.same(
    heard.map((c) => ({ updated: c.updated.map((i) => [i.name, i.connection_lost]), removed: c.removed })),
    [{ updated: [['Ann', true]], removed: [] }],
    'after three missed polls (6 s): one update, Ann connection lost, nothing removed',
  );
  heard.splice(0);
  await silence(44_000);
  t.same(heard, [], 'the mark is told once, not at every sweep');
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' }, 'back at 50 s: still waiting');
  t.same(
    heard.map((c) => ({
      added: c.added,
      removed: c.removed,
      updated: c.updated.map((i) => [i.name, i.connection_lost]),
    })),
    [{ added: [], removed: [], updated: [['Ann', undefined]] }],
    'moderators see her connection back, in place (no remove, no add)',
  );
  t.same(await names(), ['Ann', 'Bob', 'Cy'], 'same place, same order');
  await silence(59_000);
  t.same((await names())[0], 'Ann (connection lost)', 'the grace starts again from her last poll');
  t.same(
    await f.waiting.admit('r1', ann.requestId, by(mod.participantId)),
    { admitted: 1 },
    'a lost one can be admitted',
  );
});

t.test('a grace that ran out is told as such; other removals are not', async (t) => {
  const { f, heard, bob, cy, mod, silence } = await classroom();
  await f.waiting.withdraw('r1', bob.secret);
  await f.waiting.refuse('r1', cy.requestId, false, by(mod.participantId));
  t.same(
    heard.map((c) => c.timedOut),
    [[], []],
    'withdraw and refuse are not a lost connection',
  );
  heard.splice(0);
  await silence(60_000);
  const last = heard.at(-1)!;
  t.equal(last.removed.length, 1, 'Ann removed');
  t.same(last.timedOut, last.removed, 'and named as timed out: moderators get a notice she left');
});

t.test('the closed window beacon still frees the place at once (2 s), whatever the grace', async (t) => {
  const { f, ann, names } = await classroom();
  t.ok(await f.waiting.leaving('r1', ann.secret));
  t.same(await names(), ['Bob', 'Cy'], 'hidden at once');
  f.clock.advance(2000);
  await f.waiting.sweep();
  t.equal(f.store.requests.get(ann.requestId)?.state, 'withdrawn', 'withdrawn after the beacon grace');
});

t.test('the grace follows closedWindowMs (SERVICE_WAITING_CLOSED_WINDOW_SECS)', async (t) => {
  const { f, names, silence } = await classroom({ waiting: { closedWindowMs: 15_000 } });
  await silence(14_000);
  t.same((await names())[0], 'Ann (connection lost)');
  await silence(1_000);
  t.same(
    (await f.waiting.list('r1', api())).map((i) => i.name),
    ['Bob', 'Cy'],
  );
});
