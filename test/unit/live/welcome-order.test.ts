// The welcome awaits the store (the room, the chat, the locks, a moderator's waiting list): the
// session is answered at once and the welcome is the socket's first task, so a frame sent as the
// socket opens is handled after it, and a socket closed before it leaves nobody behind.
import t from 'tap';
import type { Participant } from '../../../src/engine/meetings/meeting.js';
import { parseClientMessage } from '../../../src/http/live/client-messages.js';
import { FakeConnection, LiveFixture } from '../../helpers/live-fixture.js';

function open(f: LiveFixture, p: Participant) {
  const conn = new FakeConnection();
  const claims = { room: p.roomId, meeting: p.meetingId, participant: p.participantId, role: p.role, name: p.name };
  const session = f.hub.connect(claims, conn);
  if (!session) throw new Error('refused');
  return {
    conn,
    session,
    send: (m: Record<string, unknown>) => session.receive(parseClientMessage(JSON.stringify(m))),
  };
}

t.test('a frame sent as the socket opens is handled after its welcome, not dropped', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.conn.clear();
  const ann = open(f, await f.enter('Ann'));
  // The same tick as the open: the welcome is still reading the store.
  ann.send({ type: 'rename', name: 'Ann Smith' });
  ann.send({ type: 'chat', text: 'hello' });
  t.same(ann.conn.sent, [], 'the session is answered before the welcome, which awaits the store');
  await f.settled();
  const kinds = ann.conn.sent.map((s) => s.type);
  t.equal(kinds[0], 'welcome', 'the welcome comes first');
  t.ok(kinds.indexOf('welcome') < kinds.indexOf('chat'), 'her own chat message after it');
  t.same(
    m.conn.sent.filter((s) => s.type !== 'state').map((s) => s.type),
    ['participant_joined', 'chat'],
    'the room hears of her arrival, then her message',
  );
  t.equal(m.conn.last('chat')?.message.from.name, 'Ann Smith', 'in the order she sent them');
});

t.test('a moderator who sends at once is answered after her welcome and her waiting list', async (t) => {
  const f = new LiveFixture();
  const mod = open(f, await f.enter('Mod', 'r1', true));
  mod.send({ type: 'waiting_resync' });
  await f.settled();
  t.same(
    mod.conn.sent.map((s) => [s.type, 'seq' in s ? s.seq : null]).filter(([type]) => type !== 'hands'),
    [
      ['welcome', null],
      ['waiting_list', 0],
      ['waiting_room', null],
      ['waiting_list', 0],
    ],
    'welcome, her list and the switch, then the list she asked for',
  );
});

t.test('a socket closed before its welcome leaves no member and tells nobody', async (t) => {
  const f = new LiveFixture({ live: { leaveGraceMs: 2_000 } });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.conn.clear();
  const annP = await f.enter('Ann');
  const ann = open(f, annP);
  ann.send({ type: 'chat', text: 'never' });
  // Closed in the same tick: the welcome is still reading the store.
  ann.session.closed();
  await f.settled();
  t.same(ann.conn.sent, [], 'no welcome for a closed socket');
  t.same(m.conn.sent, [], 'no participant_joined, participant_left or chat for someone never welcomed');
  t.same(
    f.hub.attendees('r1').map((a) => [a.name, a.connected]),
    [
      ['Mod', true],
      ['Ann', false],
    ],
    'she is not a connected member',
  );
  t.same(f.liveStore.chat, [], 'her frame was not handled');
  // As any closed socket: she leaves after the grace unless one opens again.
  f.timers.advance(2_000);
  await f.settled();
  t.match(f.leftAt(annP), /^\d{4}-/, 'she left after the grace');

  // A socket that opens again within the grace keeps her.
  const bob = await f.enter('Bob');
  open(f, bob).session.closed();
  await f.settled();
  await f.connect(bob);
  f.timers.advance(2_000);
  await f.settled();
  t.equal(f.leftAt(bob), null, 'her reconnect within the grace keeps her');
});

t.test('a leave that lands while the welcome reads closes the socket 4401, and nobody is told', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  m.conn.clear();
  const annP = await f.enter('Ann');
  const ann = open(f, annP);
  await f.engine.meetings.leave(annP.participantId);
  await f.settled();
  t.equal(ann.conn.closedWith?.code, 4401);
  t.equal(ann.conn.of('welcome').length, 0);
  t.same(
    m.conn.sent.filter((s) => s.type === 'participant_joined' || s.type === 'participant_left'),
    [],
    'she was never in the room',
  );
});
