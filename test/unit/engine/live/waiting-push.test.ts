import t from 'tap';
import { arrive } from '../../../helpers/engine-fixture.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

t.test('a knock reaches the moderators as one numbered change, only after it is committed', async (t) => {
  const f = new LiveFixture();
  f.room({ roomId: 'r2', waitingRoom: 'all', waitingRoomTimeoutSecs: 3600 });
  const m = await f.connect(await f.enter('Mod', 'r2', true));
  const p = await f.connect(await f.enter('Pat', 'r2'));
  t.same(
    m.conn.last('waiting_list'),
    { type: 'waiting_list', seq: 0, requests: [] },
    'a moderator starts from the whole list',
  );
  const knocking = f.engine.waiting.knock(arrive('r2', 'Ann', { clientKey: '203.0.113.1' }));
  t.equal(m.conn.of('waiting_changes').length, 0, 'nothing before the commit');
  t.equal((await knocking).status, 'waiting');
  await Promise.resolve();
  const changes = m.conn.of('waiting_changes');
  t.equal(changes.length, 1);
  t.match(changes[0], { seq: 1, updated: [], removed: [] });
  t.same(
    changes[0]?.added.map((i) => i.name),
    ['Ann'],
  );
  t.equal(p.conn.of('waiting_changes').length + p.conn.of('waiting_list').length, 0, 'a participant is never told');
});

t.test('waiting_resync answers the whole list within its window; a participant may not ask', async (t) => {
  const f = new LiveFixture({ live: { resyncLimit: { count: 1, windowMs: 5_000 } } });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'waiting_resync' });
  t.equal(a.conn.last('error')?.code, 'not_moderator');
  t.equal(a.conn.of('waiting_list').length, 0);
  m.conn.clear();
  // The list is read from the waiting room (awaited): wait for the socket's queue before looking.
  m.send({ type: 'waiting_resync' });
  await f.settled();
  t.equal(m.conn.of('waiting_list').length, 1);
  m.send({ type: 'waiting_resync' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'rate_limited');
  f.timers.advance(5_000);
  m.send({ type: 'waiting_resync' });
  await f.settled();
  t.equal(m.conn.of('waiting_list').length, 2);
});

t.test(
  'the switch: a change reaches every moderator, a switch to the state in force answers only its sender',
  async (t) => {
    const f = new LiveFixture();
    f.room({ roomId: 'r2', waitingRoom: 'all' });
    const m1 = await f.connect(await f.enter('One', 'r2', true));
    const m2 = await f.connect(await f.enter('Two', 'r2', true));
    const before = m2.conn.of('waiting_room').length;
    m1.send({ type: 'waiting_room', enabled: m1.conn.last('waiting_room')?.enabled ?? false });
    await f.settled();
    t.equal(m2.conn.of('waiting_room').length, before, 'nothing changed: the other moderator hears nothing');
    t.ok(m1.conn.last('waiting_room'), 'the sender gets the state as it stands');
    m1.send({ type: 'waiting_room', enabled: false });
    await f.settled();
    t.same(
      m2.conn.last('waiting_room'),
      { type: 'waiting_room', enabled: false, switchable: true },
      'a change reaches the other moderator',
    );
    t.same(m1.conn.last('waiting_room'), { type: 'waiting_room', enabled: false, switchable: true });
  },
);

t.test(
  'turned off, the switch reaches the moderators before the admissions it caused, both once committed',
  async (t) => {
    // Her page takes the removals that follow her own switch as her answer ("Admitted", not "by another
    // moderator"): the order is part of the protocol.
    const f = new LiveFixture();
    f.room({ roomId: 'r2', waitingRoom: 'all', waitingRoomTimeoutSecs: 3600 });
    const m1 = await f.connect(await f.enter('One', 'r2', true));
    const m2 = await f.connect(await f.enter('Two', 'r2', true));
    await f.engine.waiting.knock(arrive('r2', 'Gil', { clientKey: '203.0.113.1' }));
    await f.settled();
    for (const m of [m1, m2]) m.conn.clear();
    m1.send({ type: 'waiting_room', enabled: false });
    await f.settled();
    for (const [who, m] of [
      ['the moderator who switched', m1],
      ['the other moderator', m2],
    ] as const) {
      t.same(
        m.conn.sent.map((message) => message.type),
        ['waiting_room', 'waiting_changes'],
        `${who}: the switch first, then the list's change`,
      );
      t.same(Object.values(m.conn.last('waiting_changes')?.outcomes ?? {}), ['admitted'], `${who}: Gil admitted`);
    }
  },
);
