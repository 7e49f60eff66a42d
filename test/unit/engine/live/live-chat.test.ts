import t from 'tap';
import { EngineError } from '../../../../src/engine/errors.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

t.test('a chat message is stored and counted before everyone is told, with the author marked by fields', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'chat', text: 'hello' });
  await f.settled();
  t.equal(f.liveStore.chat.length, 1, 'on disk');
  t.equal(
    (await f.stats.of(a.participant.meetingId)).find((s) => s.participantId === a.participant.participantId)
      ?.chatMessages,
    1,
  );
  t.match(m.conn.last('chat')?.message, {
    from: { participant_id: a.participant.participantId, name: 'Ann', role: 'participant', system: false },
    text: 'hello',
  });
  m.send({ type: 'chat', text: 'welcome' });
  await f.settled();
  t.match(a.conn.last('chat')?.message.from, { role: 'moderator', system: false });
  const later = await f.connect(await f.enter('Bob'));
  t.same(
    later.conn.last('welcome')?.chat.map((c) => c.text),
    ['hello', 'welcome'],
    'a newcomer reads the latest messages in her welcome',
  );
});

t.test('a refused text goes back to its author only and is not stored', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'chat', text: '   ' });
  await f.settled();
  t.equal(a.conn.last('error')?.code, 'invalid_message');
  t.equal(m.conn.of('chat').length + m.conn.of('error').length, 0);
  t.equal(f.liveStore.chat.length, 0);
});

t.test("System's messages: no role, marked system, only into a room's open meeting", async (t) => {
  const f = new LiveFixture();
  const a = await f.connect(await f.enter('Ann'));
  const entry = await f.hub.postSystemChat('r1', 'the meeting ends soon');
  t.equal(entry?.participantId, null);
  t.match(a.conn.last('chat')?.message.from, { participant_id: null, role: null, system: true });
  await t.rejects(() => f.hub.postSystemChat('r1', ''), EngineError);
  t.equal(await f.hub.postSystemChat('nowhere', 'x'), null);
});
