import t from 'tap';
import { SubgroupTimers } from '../../../../src/engine/live/subgroup-timer.js';
import { asyncOf } from '../../../helpers/async-of.js';
import { FakeClock, FakeScheduler } from '../../../helpers/fake-clock.js';
import { LiveFixture, MemoryLiveStore, type Client } from '../../../helpers/live-fixture.js';

t.test('sub-groups are named after the main room, numbered, and made once', async (t) => {
  const f = new LiveFixture({ live: { maxSubgroups: 3 } });
  f.room({ roomId: 'r1', name: 'L'.repeat(200) });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  const g1 = f.engine.store.rooms.get('r1-g1');
  t.equal(g1?.parentRoomId, 'r1');
  t.equal(g1?.name.length, 200, 'a long main-room name is cut to the room name limit');
  t.same(m.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2']);
  m.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  t.equal(m.conn.of('error').length, 0, 'asking again changes nothing and refuses nothing');
  for (const count of [0, 4]) {
    m.send({ type: 'create_subgroups', count });
    await f.settled();
    t.same(m.conn.last('error'), {
      type: 'error',
      code: 'invalid_message',
      message: 'count must be an integer from 1 to 3',
    });
  }
  t.notOk(f.engine.store.rooms.has('r1-g3'));
});

t.test('only a moderator makes, moves and brings back', async (t) => {
  const f = new LiveFixture();
  const a = await f.connect(await f.enter('Ann'));
  for (const message of [
    { type: 'create_subgroups', count: 1 },
    { type: 'move', participant_id: 'x', room_id: 'r1-g1' },
    { type: 'bring_back' },
  ]) {
    a.send(message);
    t.equal(a.conn.last('error')?.code, 'not_moderator', message.type);
  }
  t.notOk(f.engine.store.rooms.has('r1-g1'));
});

t.test('a move names a room of the family and someone connected in this room', async (t) => {
  const f = new LiveFixture();
  const ann = await f.enter('Ann');
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(ann);
  m.send({ type: 'create_subgroups', count: 1 });
  await f.settled();
  f.room({ roomId: 'elsewhere' });
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'elsewhere' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'invalid_message', 'not outside the family');
  m.send({ type: 'move', participant_id: 'nobody', room_id: 'r1-g1' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'participant_not_found');
  t.equal(a.conn.of('move').length, 0);
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1-g1' });
  await f.settled();
  t.same(a.conn.last('move'), { type: 'move', room_id: 'r1-g1' });
});

t.test('bring back: who does not return within the away grace has left', async (t) => {
  const f = new LiveFixture({ live: { awayGraceMs: 10_000 } });
  const { ann, mod: m } = await f.annMovedAway();
  f.timers.advance(5_000);
  m.send({ type: 'bring_back' });
  await f.settled();
  f.timers.advance(9_999);
  t.equal(f.leftAt(ann), null, 'the deadline restarted at bring_back');
  f.timers.advance(1);
  t.match(f.leftAt(ann), /^\d{4}-/);
});

// Issue 31 point 14: names the teacher chose, many moved at once, a durable timer, a message to all groups.

t.test('groups carry the names the moderator chose; unnamed ones say so with an empty name', async (t) => {
  const f = new LiveFixture();
  f.room({ roomId: 'r1', name: 'Maths 7b' });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.send({ type: 'create_subgroups', count: 3, names: ['Foxes', ' <b>Owls</b> '] });
  await f.settled();
  t.same(m.conn.last('subgroups'), {
    type: 'subgroups',
    subgroups: ['r1-g1', 'r1-g2', 'r1-g3'],
    groups: [
      { room_id: 'r1-g1', number: 1, name: 'Foxes' },
      { room_id: 'r1-g2', number: 2, name: '<b>Owls</b>' },
      { room_id: 'r1-g3', number: 3, name: '' },
    ],
    ends_at: null,
  });
  m.send({ type: 'create_subgroups', count: 1, names: ['Badgers'] });
  await f.settled();
  t.equal(f.engine.store.rooms.get('r1-g1')?.name, 'Badgers', 'naming an existing group renames it');
  const late = await f.connect(await f.enter('Ben'));
  t.same(late.conn.last('welcome')?.groups[0], { room_id: 'r1-g1', number: 1, name: 'Badgers' }, 'in the welcome');
  for (const names of [['a\nb'], ['x'.repeat(65)], ['a', 'b']]) {
    m.send({ type: 'create_subgroups', count: 1, names });
    await f.settled();
    t.equal(m.conn.last('error')?.code, 'invalid_field', JSON.stringify(names).slice(0, 30));
  }
  t.match(m.conn.last('error')?.message, /^names\[1\]/, 'the field is named');
});

t.test('assign several at once: evenly in order, or at random; the sender stays', async (t) => {
  const draws = [0.1, 0.1, 0.1];
  const f = new LiveFixture({ random: () => draws.shift() ?? 0 });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const people: Client[] = [];
  for (const name of ['Ann', 'Ben', 'Cem', 'Dora', 'Eve']) people.push(await f.connect(await f.enter(name)));
  const ids = people.map((p) => p.participant.participantId);
  m.send({ type: 'assign_subgroups', participant_ids: ids, mode: 'even' });
  await f.settled();
  t.match(m.conn.last('error')?.message, /create sub-groups first/);
  m.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  m.send({ type: 'assign_subgroups', participant_ids: [m.participant.participantId, ...ids], mode: 'even' });
  await f.settled();
  t.same(
    people.map((p) => p.conn.last('move')?.room_id),
    ['r1-g1', 'r1-g2', 'r1-g1', 'r1-g2', 'r1-g1'],
    'dealt out in order',
  );
  t.equal(m.conn.of('move').length, 0, 'the moderator herself is not moved');
  for (const p of people) p.conn.clear();
  m.send({ type: 'assign_subgroups', participant_ids: ids.slice(0, 4), mode: 'random' });
  await f.settled();
  const moved = people.slice(0, 4).map((p) => p.conn.last('move')?.room_id);
  t.same(moved, ['r1-g2', 'r1-g1', 'r1-g2', 'r1-g1'], 'the injected draw decides the order');
  t.same([moved.filter((g) => g === 'r1-g1').length, moved.filter((g) => g === 'r1-g2').length], [2, 2], 'balanced');
  m.send({ type: 'assign_subgroups', participant_ids: ['nobody'], mode: 'even' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'participant_not_found');
  people[0]?.send({ type: 'assign_subgroups', participant_ids: ids, mode: 'even' });
  await f.settled();
  t.equal(people[0]?.conn.last('error')?.code, 'not_moderator');
  m.send({ type: 'assign_subgroups', participant_ids: ids, mode: 'sideways' });
  await f.settled();
  t.match(m.conn.last('error')?.message, /"mode": "even" or "random"/, 'a bad mode is refused by the schema');
});

t.test('the timer brings everyone back when it runs out, and survives a restart', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.send({ type: 'create_subgroups', count: 1 });
  await f.settled();
  const start = f.engine.clock.now().getTime();
  m.send({ type: 'subgroup_timer', minutes: 10 });
  await f.settled();
  t.equal(m.conn.last('subgroups')?.ends_at, new Date(start + 600_000).toISOString(), 'the family hears when');
  t.same([...f.liveStore.timers.keys()], ['r1'], 'on disk before anyone is told');
  m.send({ type: 'subgroup_timer', minutes: 0 });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'invalid_field');

  // kill -9 and a restart five minutes in: the timer is read back and keeps its end.
  f.timers.advance(300_000);
  await f.hub.close();
  f.build();
  const ann = await f.connect(await f.enter('Ann', 'r1-g1'));
  t.equal(ann.conn.last('welcome')?.groups_end_at, new Date(start + 600_000).toISOString(), 'the end, after restart');
  f.timers.advance(299_999);
  t.equal(ann.conn.of('move').length, 0, 'not before the end');
  f.timers.advance(1);
  await f.settled();
  t.same(ann.conn.last('move'), { type: 'move', room_id: 'r1' }, 'back to the main room at the end');
  t.equal(ann.conn.last('subgroups')?.ends_at, null, 'the timer is over');

  // A page that reconnects into the group after the end (a drop, a restart) is sent back too.
  await f.hub.close();
  f.build();
  const ben = await f.connect(await f.enter('Ben', 'r1-g1'));
  t.same(ben.conn.last('move'), { type: 'move', room_id: 'r1' }, 'late, still sent back');
  // Sending someone into a group again ends the "ran out" record.
  const m2 = await f.connect(await f.enter('Mod2', 'r1', true));
  const cem = await f.connect(await f.enter('Cem'));
  m2.send({ type: 'move', participant_id: cem.participant.participantId, room_id: 'r1-g1' });
  await f.settled();
  t.same([...f.liveStore.timers.keys()], [], 'cleared');
  const cemThere = await f.connect(await f.enter('Cem in group', 'r1-g1'));
  t.equal(cemThere.conn.of('move').length, 0, 'a new group session stays');

  m2.send({ type: 'subgroup_timer', minutes: 5 });
  await f.settled();
  m2.send({ type: 'subgroup_timer', minutes: null });
  await f.settled();
  t.same([...f.liveStore.timers.keys()], [], 'cancelled');
  f.timers.advance(600_000);
  t.equal(cemThere.conn.of('move').length, 0, 'a cancelled timer brings nobody back');
});

t.test(
  'a message to all groups reaches every page of the family, as text; moderators only, rate-limited',
  async (t) => {
    const f = new LiveFixture();
    const m = await f.connect(await f.enter('Ms Keller', 'r1', true));
    m.send({ type: 'create_subgroups', count: 2 });
    await f.settled();
    const main = await f.connect(await f.enter('Ann'));
    const g1 = await f.connect(await f.enter('Ben', 'r1-g1'));
    const g2 = await f.connect(await f.enter('Cem', 'r1-g2'));
    m.send({ type: 'group_message', text: '  Two minutes left <b>!</b> ' });
    await f.settled();
    for (const c of [m, main, g1, g2])
      t.same(c.conn.last('group_message'), {
        type: 'group_message',
        text: 'Two minutes left <b>!</b>',
        from: 'Ms Keller',
      });
    g1.send({ type: 'group_message', text: 'hi' });
    await f.settled();
    t.equal(g1.conn.last('error')?.code, 'not_moderator');
    m.send({ type: 'group_message', text: '   ' });
    await f.settled();
    t.equal(m.conn.last('error')?.code, 'invalid_field');
    for (let i = 0; i < 12; i++) m.send({ type: 'group_message', text: `n${i}` });
    await f.settled();
    t.equal(m.conn.last('error')?.code, 'rate_limited', 'a flood is cut');
    t.ok(g2.conn.of('group_message').length <= 10, 'and never reaches the groups');
  },
);

t.test(
  'the message to all groups is replayed to a page that arrives while the groups run, and ends with them',
  async (t) => {
    const f = new LiveFixture();
    const m = await f.connect(await f.enter('Ms Keller', 'r1', true));
    m.send({ type: 'create_subgroups', count: 2 });
    await f.settled();
    const early = await f.connect(await f.enter('Ben', 'r1-g1'));
    m.send({ type: 'group_message', text: 'Two minutes left' });
    await f.settled();
    const told = { type: 'group_message', text: 'Two minutes left', from: 'Ms Keller' };
    t.same(early.conn.of('group_message'), [told], 'told once as it was sent');

    // Moved into a group after the message: her new page there is told it after its welcome.
    const late = await f.connect(await f.enter('Cem', 'r1-g2'));
    t.same(late.conn.last('group_message'), told, 'a person moved in later sees the current message');
    const kinds = late.conn.sent.map((message) => message.type);
    t.ok(kinds.indexOf('welcome') < kinds.indexOf('group_message'), 'after her welcome');
    // Her page reconnects (a network drop): told again.
    f.disconnect(early);
    const again = await f.connect(early.participant);
    t.same(again.conn.of('group_message'), [told], 'a reconnecting page sees it too');
    // A newer message replaces it.
    m.send({ type: 'group_message', text: 'One minute left' });
    await f.settled();
    const newer = await f.connect(await f.enter('Dora', 'r1-g1'));
    t.same(newer.conn.of('group_message'), [{ ...told, text: 'One minute left' }], 'only the current one');
    t.same(
      f.liveStore.groupMessages(),
      [{ roomId: 'r1', text: 'One minute left', from: 'Ms Keller' }],
      'kept in the store (a restart reads it back)',
    );

    // Everyone brought back: the message is over, a later group page hears nothing of it.
    m.send({ type: 'bring_back' });
    await f.settled();
    const after = await f.connect(await f.enter('Eve', 'r1-g1'));
    t.equal(after.conn.of('group_message').length, 0, 'not after the groups came back');
    t.same(f.liveStore.groupMessages(), [], 'and gone from the store');

    // The timer's end ends it too.
    m.send({ type: 'group_message', text: 'Round two' });
    await f.settled();
    m.send({ type: 'subgroup_timer', minutes: 1 });
    await f.settled();
    t.equal((await f.connect(await f.enter('Finn', 'r1-g2'))).conn.last('group_message')?.text, 'Round two');
    f.timers.advance(60_000);
    const m2 = await f.connect(await f.enter('Mr Lang', 'r1', true));
    t.equal(m2.conn.of('group_message').length, 0, 'not after the timer brought everyone back');

    // The meeting's end ends it as well: the next meeting starts without it.
    const g = new LiveFixture();
    const teacher = await g.connect(await g.enter('Ms Keller', 'r1', true));
    teacher.send({ type: 'create_subgroups', count: 1 });
    await g.settled();
    teacher.send({ type: 'group_message', text: 'Last round' });
    await g.settled();
    t.equal((await g.connect(await g.enter('Gus', 'r1-g1'))).conn.last('group_message')?.text, 'Last round');
    teacher.send({ type: 'end_meeting' });
    // The end awaits the store; the groups' meetings end after it (awaited): the next page enters the next meeting.
    await g.settled();
    t.equal(teacher.conn.closedWith?.code, 4410, 'the meeting ended');
    const next = await g.connect(await g.enter('Gil', 'r1-g1'));
    t.equal(next.conn.of('group_message').length, 0, 'not in the next meeting');
    t.same(g.liveStore.groupMessages(), [], 'the meeting took it from the store too');
  },
);

t.test('two moderators make the sub-groups at once: they take turns, neither is refused', async (t) => {
  const f = new LiveFixture();
  const m1 = await f.connect(await f.enter('One', 'r1', true));
  const m2 = await f.connect(await f.enter('Two', 'r1', true));
  m1.send({ type: 'create_subgroups', count: 2 });
  m2.send({ type: 'create_subgroups', count: 2, names: ['', 'Owls'] });
  await f.settled();
  t.same(m1.conn.of('error'), [], 'the first is not refused');
  t.same(m2.conn.of('error'), [], 'the second finds the groups made and renames the one it names');
  t.same(m2.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2']);
  t.equal(f.engine.store.rooms.get('r1-g2')?.name, 'Owls', 'the second came after the first, in arrival order');
});

t.test('a timer the store refuses rejects, and nothing is scheduled for it', async (t) => {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler(clock);
  const store = new MemoryLiveStore();
  const ran: string[] = [];
  const errors: unknown[] = [];
  const log = { error: (fields: unknown) => void errors.push(fields) };
  const timers = new SubgroupTimers({ timers: asyncOf(store), clock, scheduler, log }, (root) => void ran.push(root));
  await timers.set('r1', 60_000);
  t.equal(store.timers.size, 1, 'a timer set is written');
  store.saveSubgroupTimer = () => {
    throw new Error('disk full');
  };
  const setting = timers.set('r2', 60_000);
  await t.rejects(setting, { message: 'disk full' }, 'a refused write answers a rejection, not a throw');
  t.equal(timers.running('r2'), null, 'not running');
  scheduler.advance(60_000);
  t.same(ran, ['r1'], 'only the written timer ran out');
  t.same(errors, []);
});

t.test('the timers kept before a start are read at start; a gesture during the read comes after it', async (t) => {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler(clock);
  const store = new MemoryLiveStore();
  store.timers.set('r1', new Date(clock.now().getTime() + 600_000).toISOString());
  store.timers.set('r2', new Date(clock.now().getTime() + 300_000).toISOString());
  const port = asyncOf(store);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // The read at start sees the rows as they are, and its answer is held until the test lets it go (a slow round trip).
  const slow = {
    subgroupTimers: async () => {
      const rows = await port.subgroupTimers();
      await gate;
      return rows;
    },
    saveSubgroupTimer: port.saveSubgroupTimer,
  };
  const ran: string[] = [];
  const log = { error: () => undefined };
  const timers = new SubgroupTimers({ timers: slow, clock, scheduler, log }, (root) => void ran.push(root));
  t.equal(timers.running('r2'), null, 'nothing known before the read returned');
  // A moderator cancels r1's timer while the read is under way: the read must not bring it back.
  const cancelling = timers.set('r1', null);
  release();
  await timers.loaded;
  await cancelling;
  t.equal(timers.running('r1'), null, "r1's timer stays cancelled");
  t.equal(store.timers.has('r1'), false, 'and is gone from the store');
  t.equal(timers.running('r2'), store.timers.get('r2'), "r2's kept timer runs again");
  scheduler.advance(600_000);
  t.same(ran, ['r2'], 'only the kept timer runs out, at its time');
});
