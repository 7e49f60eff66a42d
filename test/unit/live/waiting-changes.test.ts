// The moderators' waiting list over the live connection at the hub: the whole list once, then
// changes in sequence, so a knock costs each moderator one item however many are waiting.
import t from 'tap';
import type { ServerMessage, WaitingItem } from '../../../src/protocol/live.js';
import { arrive, by } from '../../helpers/engine-fixture.js';
import { LiveFixture, type FakeConnection } from '../../helpers/live-fixture.js';

type WaitingMessage = Extract<ServerMessage, { type: 'waiting_list' | 'waiting_changes' }>;

/** The list a page holds after the waiting messages a fake socket received; throws on a gap. */
function held(conn: FakeConnection): { seq: number; names: string[]; ids: string[] } {
  let seq = -1;
  let list = new Map<string, WaitingItem>();
  for (const m of conn.sent.filter(
    (x): x is WaitingMessage => x.type === 'waiting_list' || x.type === 'waiting_changes',
  )) {
    if (m.type === 'waiting_list') {
      seq = m.seq;
      list = new Map(m.requests.map((r) => [r.request_id, r]));
      continue;
    }
    if (m.seq !== seq + 1) throw new Error(`seq ${m.seq} after ${seq}`);
    seq = m.seq;
    for (const id of m.removed) list.delete(id);
    for (const r of m.added) list.set(r.request_id, r);
  }
  const items = [...list.values()].sort((a, b) =>
    a.knocked_at < b.knocked_at ? -1 : a.knocked_at > b.knocked_at ? 1 : 0,
  );
  return { seq, names: items.map((r) => r.name), ids: items.map((r) => r.request_id) };
}

/** A room with a waiting room for everyone, a moderator connected, and a way to knock from distinct clients. */
async function scene(options: ConstructorParameters<typeof LiveFixture>[0] = {}) {
  const f = new LiveFixture(options);
  f.room({ roomId: 'w', waitingRoom: 'all', waitingRoomTimeoutSecs: 3600 });
  const mod = await f.enter('Mod', 'w', true);
  const m = await f.connect(mod);
  let n = 0;
  const knock = async (name: string) => {
    const result = await f.engine.waiting.knock(arrive('w', name, { clientKey: `203.0.113.${++n}` }));
    if (result.status !== 'waiting') throw new Error(`expected to wait, got ${result.status}`);
    await Promise.resolve();
    return result;
  };
  return { f, mod, m, knock };
}

t.test(
  'a moderator gets the whole list on connect, then one change per knock or decision with increasing seq',
  async (t) => {
    const { f, mod, m, knock } = await scene();
    t.same(
      m.conn.of('waiting_list'),
      [{ type: 'waiting_list', seq: 0, requests: [] }],
      'the whole (empty) list at seq 0',
    );
    const wendy = await knock('Wendy');
    const vic = await knock('Vic');
    const changes = m.conn.of('waiting_changes');
    t.same(
      changes.map((c) => [c.seq, c.added.map((r) => r.name), c.removed]),
      [
        [1, ['Wendy'], []],
        [2, ['Vic'], []],
      ],
      'each knock is one change carrying only its own item',
    );
    t.same(changes[1]?.updated, []);

    await f.engine.waiting.admit('w', wendy.requestId, by(mod.participantId));
    await Promise.resolve();
    t.same(
      m.conn.last('waiting_changes'),
      {
        type: 'waiting_changes',
        seq: 3,
        added: [],
        updated: [],
        removed: [wendy.requestId],
        outcomes: { [wendy.requestId]: 'admitted' },
      },
      'an admission: its id only, and what became of it (issue 31 point 4)',
    );
    await f.engine.waiting.refuse('w', vic.requestId, true, by(mod.participantId));
    await Promise.resolve();
    t.same(m.conn.last('waiting_changes')?.removed, [vic.requestId], 'a bar too');
    t.same(held(m.conn), { seq: 4, names: [], ids: [] });
    t.equal(m.conn.of('waiting_list').length, 1, 'no whole list after the first');

    // A second moderator connecting now starts at the room's seq, not at 0.
    const m2 = await f.connect(await f.enter('Second', 'w', true));
    t.same(
      m2.conn.last('waiting_list'),
      { type: 'waiting_list', seq: 4, requests: [] },
      'a later moderator starts at the current seq',
    );
    await knock('Zoe');
    t.equal(m2.conn.last('waiting_changes')?.seq, 5, 'and follows from there');
    t.same(held(m.conn).names, ['Zoe']);
    t.same(held(m2.conn).names, ['Zoe']);
  },
);

t.test('a burst in one turn is one change; a change too large to be worth it is the whole list', async (t) => {
  // The daemon's group commit: the knocks of one turn of the event loop share one (each reads its room first).
  const { f, mod, m } = await scene({
    live: { waitingFullListAbove: 5 },
    defer: (run) => setImmediate(() => void run()),
  });
  const burst = await Promise.all(
    ['A', 'B', 'C', 'D'].map((name, i) => f.engine.waiting.knock(arrive('w', name, { clientKey: `198.51.100.${i}` }))),
  );
  t.ok(burst.every((r) => r.status === 'waiting'));
  await Promise.resolve();
  t.equal(m.conn.of('waiting_changes').length, 1, 'four knocks committed together: one change');
  t.same(
    m.conn.last('waiting_changes')?.added.map((r) => r.name),
    ['A', 'B', 'C', 'D'],
  );

  // Added then removed before the room's push went out: the change says removed only. The push
  // waits its turn behind a second moderator's whole list, whose read is held here by hand.
  let open!: () => void;
  const reading = new Promise<void>((resolve) => (open = resolve));
  const list = f.engine.waiting.list.bind(f.engine.waiting);
  f.engine.waiting.list = async (roomId, actor) => {
    await reading;
    return list(roomId, actor);
  };
  const m2 = await f.connect(await f.enter('Second', 'w', true));
  const e = await f.engine.waiting.knock(arrive('w', 'E', { clientKey: '198.51.100.9' }));
  if (e.status !== 'waiting') throw new Error(`expected to wait, got ${e.status}`);
  const eId = e.requestId;
  await f.engine.waiting.admit('w', eId, by(mod.participantId));
  await f.settled();
  t.equal(m.conn.of('waiting_changes').length, 1, 'not pushed while the turn before it runs');
  open();
  await f.settled();
  t.same(
    m.conn.last('waiting_changes'),
    { type: 'waiting_changes', seq: 2, added: [], updated: [], removed: [eId], outcomes: { [eId]: 'admitted' } },
    'knocked and admitted before the push',
  );
  t.same(m2.conn.last('waiting_changes'), m.conn.last('waiting_changes'), 'the second moderator too, after her list');
  f.engine.waiting.list = list;

  // Admit all of 6 (above 5): the whole list, empty, is shorter than six removed ids.
  await Promise.all(
    ['F', 'G'].map((name, i) => f.engine.waiting.knock(arrive('w', name, { clientKey: `198.51.100.${20 + i}` }))),
  );
  await f.settled();
  await f.engine.waiting.admitAll('w', by(mod.participantId));
  await f.settled();
  t.same(
    m.conn.sent.at(-1),
    { type: 'waiting_list', seq: 4, requests: [] },
    'admit all: the whole (empty) list, as the next seq',
  );
  t.same(held(m.conn), { seq: 4, names: [], ids: [] });
});

t.test(
  "leaving hides a request from moderators, a poll shows it again; another room's changes are not sent",
  async (t) => {
    const { f, m, knock } = await scene();
    f.room({ roomId: 'v', waitingRoom: 'all' });
    const elsewhere = await f.connect(await f.enter('Other moderator', 'v', true));
    await f.engine.waiting.knock(arrive('v', 'Somebody', { clientKey: '198.51.100.50' }));
    await Promise.resolve();
    t.equal(elsewhere.conn.of('waiting_changes').length, 1, "the other room's moderator hears of its knock");
    t.equal(m.conn.of('waiting_changes').length, 0, "this room's does not");
    const wendy = await knock('Wendy');
    await f.engine.waiting.leaving('w', wendy.secret);
    await Promise.resolve();
    t.same(m.conn.last('waiting_changes')?.removed, [wendy.requestId], 'her page said it was going');
    await f.engine.waiting.poll('w', wendy.secret);
    await Promise.resolve();
    t.same(
      m.conn.last('waiting_changes')?.added.map((r) => r.request_id),
      [wendy.requestId],
      'her page came back (a reload)',
    );
    t.same(held(m.conn).names, ['Wendy']);

    // The closed-window sweep: unpolled for the grace (60 s), she is removed.
    f.timers.advance(60_000);
    await f.engine.waiting.sweep();
    await Promise.resolve();
    t.same(m.conn.last('waiting_changes')?.removed, [wendy.requestId], 'a closed window');
    t.same(f.errors, [], 'no background failure');
  },
);

t.test(
  'a silent page: moderators get her row updated as connection lost, then back in place, and a grace run out as timed_out',
  async (t) => {
    const { f, m, knock } = await scene();
    const wendy = await knock('Wendy');
    const vic = await knock('Vic');
    const quiet = async (ms: number) => {
      f.timers.advance(ms);
      await f.engine.waiting.poll('w', vic.secret);
      await f.engine.waiting.sweep();
      await Promise.resolve();
    };
    const before = m.conn.of('waiting_changes').length;
    await quiet(5_000);
    t.equal(m.conn.of('waiting_changes').length, before, '5 s of silence: nothing said');
    await quiet(1_000);
    const lost = m.conn.last('waiting_changes');
    t.match(lost, { added: [], removed: [], updated: [{ request_id: wendy.requestId, connection_lost: true }] });
    t.notOk(lost && 'timed_out' in lost, 'nobody timed out');
    await f.engine.waiting.poll('w', wendy.secret);
    await Promise.resolve();
    const back = m.conn.last('waiting_changes');
    t.same(
      back?.updated.map((r) => [r.name, r.connection_lost]),
      [['Wendy', undefined]],
      'her connection is back',
    );
    t.same(back?.removed, []);
    t.same(held(m.conn).names, ['Wendy', 'Vic'], 'her place kept');
    for (let i = 0; i < 60; i++) await quiet(1_000);
    const gone = m.conn.last('waiting_changes');
    t.same(gone?.removed, [wendy.requestId], 'after the grace she is removed');
    t.same(gone?.timed_out, [wendy.requestId], 'told as a grace run out');
    t.same(held(m.conn).names, ['Vic']);
    t.same(f.errors, []);
  },
);

t.test(
  'waiting_resync returns the whole list at the current seq; others may not ask, nor ask without end',
  async (t) => {
    const { f, m, knock } = await scene({ live: { resyncLimit: { count: 2, windowMs: 10_000 } } });
    await knock('Wendy');
    await knock('Vic');
    m.conn.clear();
    // The list is read from the waiting room (awaited): wait for the socket's queue before looking.
    m.send({ type: 'waiting_resync' });
    await f.settled();
    t.same(
      m.conn.sent.map((x) => (x.type === 'waiting_list' ? [x.seq, x.requests.map((r) => r.name)] : x.type)),
      [[2, ['Wendy', 'Vic']]],
      'the whole list, at the seq of the last change',
    );

    // A change not pushed yet goes first, so the list's seq follows every change (no gap, no repeat).
    const zoe = f.engine.waiting.knock(arrive('w', 'Zoe', { clientKey: '198.51.100.77' }));
    void f.engine.transactions.flushGrouped();
    await zoe;
    const m2 = await f.connect(await f.enter('Second', 'w', true));
    t.same(m.conn.last('waiting_changes')?.seq, 3, 'the pending change went to the connected moderator');
    t.same(m2.conn.of('waiting_changes'), [], 'not to the one connecting');
    t.same(m2.conn.last('waiting_list')?.seq, 3, 'who gets the list at that seq');
    await Promise.resolve();
    t.equal(m.conn.of('waiting_changes').length, 1, 'and nothing is sent twice');

    m.send({ type: 'waiting_resync' });
    await f.settled();
    m.conn.clear();
    m.send({ type: 'waiting_resync' });
    await f.settled();
    t.match(m.conn.sent, [{ type: 'error', code: 'rate_limited' }], 'the third within the window is refused');
    f.timers.advance(10_000);
    m.conn.clear();
    m.send({ type: 'waiting_resync' });
    await f.settled();
    t.equal(m.conn.last('waiting_list')?.type, 'waiting_list', 'after the window it answers again');

    const p = await f.connect(await f.enter('Pupil', 'w'));
    p.send({ type: 'waiting_resync' });
    t.same(
      p.conn.sent.filter((x) => x.type !== 'welcome' && x.type !== 'hands'),
      [{ type: 'error', code: 'not_moderator', message: 'only a moderator may do this' }],
      'a participant gets no list',
    );
    p.send({ type: 'waiting_resync', seq: 'x'.repeat(10_000) });
    t.equal(p.conn.of('waiting_list').length, 0, 'extra fields change nothing');
  },
);

t.test('a participant promoted to moderator gets the whole list, then the changes', async (t) => {
  const { f, m, knock } = await scene();
  const pat = await f.enter('Pat', 'w');
  const p = await f.connect(pat);
  await knock('Wendy');
  t.equal(p.conn.of('waiting_changes').length, 0, 'a participant hears nothing of the knock');
  await f.engine.meetings.promote(pat.participantId);
  await f.settled();
  t.same(p.conn.last('role'), { type: 'role', participant_id: pat.participantId, role: 'moderator' });
  const list = p.conn.last('waiting_list');
  t.same([list?.seq, list?.requests.map((r) => r.name)], [1, ['Wendy']], 'the whole list at the room seq');
  t.ok(
    p.conn.sent.findIndex((x) => x.type === 'role') < p.conn.sent.findIndex((x) => x.type === 'waiting_list'),
    'after the role',
  );
  await knock('Vic');
  t.same(p.conn.last('waiting_changes')?.seq, 2, 'then changes in sequence');
  t.same(held(p.conn).names, ['Wendy', 'Vic']);
  t.same(held(m.conn).names, ['Wendy', 'Vic'], 'the same list as the first moderator');
});
