import t from 'tap';
import { closeCodes } from '../../../../src/protocol/live.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

t.test('a closed socket is a leave only once the grace has run out, to the millisecond', async (t) => {
  const f = new LiveFixture({ live: { leaveGraceMs: 2_000 } });
  const ann = await f.enter('Ann');
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  f.disconnect(await f.connect(ann));
  t.same(
    m.conn.last('participant_left'),
    { type: 'participant_left', participant_id: ann.participantId },
    'the others are told at once',
  );
  f.timers.advance(1_999);
  t.equal(f.leftAt(ann), null);
  f.timers.advance(1);
  t.match(f.leftAt(ann), /^\d{4}-/);
  t.equal(f.timers.size, 0);
});

t.test('a reload within the grace cancels the leave', async (t) => {
  const f = new LiveFixture({ live: { leaveGraceMs: 2_000 } });
  const ann = await f.enter('Ann');
  f.disconnect(await f.connect(ann));
  f.timers.advance(1_500);
  const again = await f.connect(ann);
  t.equal(f.timers.size, 0, 'the pending leave is gone');
  f.timers.advance(10_000);
  t.equal(f.leftAt(ann), null);
  t.equal(again.conn.closedWith, null);
});

t.test('a leave the engine decides closes the socket with 1000, and no grace timer is left behind', async (t) => {
  const f = new LiveFixture();
  const ann = await f.enter('Ann');
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(ann);
  await f.engine.meetings.leave(ann.participantId);
  t.same(a.conn.closedWith, { code: 1000, reason: 'left the meeting' });
  t.equal(m.conn.last('participant_left')?.participant_id, ann.participantId);
  f.disconnect(a);
  t.equal(f.timers.size, 0, 'the socket closing afterwards starts nothing');
});

t.test('moved into a sub-group: away, not leaving, until the away grace finds no sub-group meeting', async (t) => {
  const f = new LiveFixture({ live: { awayGraceMs: 30_000 } });
  const { ann } = await f.annMovedAway();
  f.timers.advance(29_999);
  t.equal(f.leftAt(ann), null, 'away, still present in the class');
  t.notOk(
    f.hub.attendees('r1').some((x) => x.participantId === ann.participantId),
    'not an attendee of the class while away',
  );
  f.timers.advance(1);
  t.match(f.leftAt(ann), /^\d{4}-/, 'no sub-group meeting opened: she left');
});

t.test('a closing hub stops every timer and makes nobody leave', async (t) => {
  const f = new LiveFixture();
  const ann = await f.enter('Ann');
  f.disconnect(await f.connect(ann));
  const bob = await f.enter('Bob');
  const b = await f.connect(bob);
  t.equal(f.timers.size, 1);
  await f.hub.close();
  t.equal(f.timers.size, 0);
  f.disconnect(b);
  f.timers.advance(60_000);
  t.equal(f.leftAt(ann), null);
  t.equal(f.leftAt(bob), null);
  const late = f.hub.connect(
    { room: 'r1', meeting: bob.meetingId, participant: bob.participantId, role: 'participant', name: 'Bob' },
    b.conn,
  );
  t.equal(late, null, 'a closed hub takes no connection');
  t.equal(b.conn.closedWith?.code, closeCodes.unauthorized);
});
