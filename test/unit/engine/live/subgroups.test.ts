import t from 'tap';
import { LiveFixture } from '../../../helpers/live-fixture.js';

t.test('sub-groups are named after the main room, numbered, and made once', async (t) => {
  const f = new LiveFixture({ live: { maxSubgroups: 3 } });
  f.room({ roomId: 'r1', name: 'L'.repeat(200) });
  const m = f.connect(f.enter('Mod', 'r1', true));
  m.send({ type: 'create_subgroups', count: 2 });
  const g1 = f.engine.store.rooms.get('r1-g1');
  t.equal(g1?.parentRoomId, 'r1');
  t.equal(g1?.name.length, 200, 'a long main-room name is cut to the room name limit');
  t.same(m.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2']);
  m.send({ type: 'create_subgroups', count: 2 });
  t.equal(m.conn.of('error').length, 0, 'asking again changes nothing and refuses nothing');
  for (const count of [0, 4]) {
    m.send({ type: 'create_subgroups', count });
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
  const a = f.connect(f.enter('Ann'));
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
  const ann = f.enter('Ann');
  const m = f.connect(f.enter('Mod', 'r1', true));
  const a = f.connect(ann);
  m.send({ type: 'create_subgroups', count: 1 });
  f.room({ roomId: 'elsewhere' });
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'elsewhere' });
  t.equal(m.conn.last('error')?.code, 'invalid_message', 'not outside the family');
  m.send({ type: 'move', participant_id: 'nobody', room_id: 'r1-g1' });
  t.equal(m.conn.last('error')?.code, 'participant_not_found');
  t.equal(a.conn.of('move').length, 0);
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1-g1' });
  t.same(a.conn.last('move'), { type: 'move', room_id: 'r1-g1' });
});

t.test('bring back: who does not return within the away grace has left', async (t) => {
  const f = new LiveFixture({ live: { awayGraceMs: 10_000 } });
  const { ann, mod: m } = f.annMovedAway();
  f.timers.advance(5_000);
  m.send({ type: 'bring_back' });
  f.timers.advance(9_999);
  t.equal(f.leftAt(ann), null, 'the deadline restarted at bring_back');
  f.timers.advance(1);
  t.match(f.leftAt(ann), /^\d{4}-/);
});
