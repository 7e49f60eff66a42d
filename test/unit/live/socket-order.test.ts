// A socket's messages are handled in arrival order even when handling one awaits the store: a
// rename then a chat message sent back to back reach the room in that order, the chat under the
// new name; a refused or failing message does not stop the ones behind it.
import t from 'tap';
import { SocketQueue } from '../../../src/engine/live/socket-queue.js';
import { LiveFixture } from '../../helpers/live-fixture.js';

t.test('a rename then a chat message, back to back: the chat goes out under the new name', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'rename', name: 'Ann Smith' });
  a.send({ type: 'chat', text: 'hello' });
  await f.settled();
  t.same(
    m.conn.of('chat').map((c) => [c.message.from.name, c.message.text]),
    [['Ann Smith', 'hello']],
    'the chat message was handled after the rename it followed',
  );
  t.equal(f.engine.meetings.participant(a.participant.participantId)?.name, 'Ann Smith');
});

t.test(
  'a moderator sets the subject then renames: both apply in order; a refused one does not block the next',
  async (t) => {
    const f = new LiveFixture();
    const m = await f.connect(await f.enter('Mod', 'r1', true));
    const a = await f.connect(await f.enter('Ann'));
    m.send({ type: 'subject', subject: 'x'.repeat(129) });
    m.send({ type: 'subject', subject: 'Maths' });
    m.send({ type: 'subject', subject: 'Physics' });
    m.send({ type: 'chat', text: 'go' });
    await f.settled();
    t.equal(m.conn.last('error')?.code, 'invalid_field', 'the too-long subject is refused to its sender');
    t.same(
      a.conn.sent.filter((s) => s.type === 'subject' || s.type === 'chat').map((s) => s.type),
      ['subject', 'subject', 'chat'],
      'the others were told in the order they were sent',
    );
    t.equal(a.conn.last('subject')?.subject, 'Physics');
    t.equal(f.engine.meetings.current('r1')?.subject, 'Physics', 'the last subject sent is the one kept');
  },
);

t.test('the queue: a failing handler is reported and the next runs; a backlog beyond its limit is cut', async (t) => {
  const failures: unknown[] = [];
  let overflowed = 0;
  const queue = new SocketQueue(
    (err) => failures.push(err),
    2,
    () => overflowed++,
  );
  const ran: string[] = [];
  let release!: () => void;
  queue.push(() => new Promise<void>((resolve) => (release = resolve)).then(() => void ran.push('slow')));
  queue.push(() => {
    throw new Error('broken');
  });
  queue.push(() => Promise.reject(new Error('rejected')));
  t.same(ran, [], 'nothing behind the slow message runs before it settled');
  queue.push(() => void ran.push('flood'));
  t.equal(overflowed, 1, 'a third message waiting behind a slow one is one too many');
  release();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(ran, ['slow'], 'the backlog was dropped with the socket');
  queue.push(() => void ran.push('after'));
  t.same(ran, ['slow', 'after'], 'an idle queue runs a message at once');
  t.same(failures, [], 'dropped messages never ran');
  queue.push(() => {
    throw new Error('broken');
  });
  queue.push(() => void ran.push('next'));
  t.match(failures, [/broken/], 'a thrown failure is reported');
  t.same(ran, ['slow', 'after', 'next'], 'and the next message still runs');
});

t.test('a leave after the grace that the store refuses is logged under its event, not left unhandled', async (t) => {
  const f = new LiveFixture();
  await f.connect(await f.enter('Mod', 'r1', true));
  const ann = await f.enter('Ann');
  const a = await f.connect(ann);
  f.engine.meetings.leave = async () => {
    await Promise.resolve();
    throw new Error('disk full');
  };
  f.disconnect(a);
  f.timers.advance(5_000);
  await f.settled();
  t.match(f.errors, [{ context: 'leave after grace', err: { message: 'disk full' } }]);
});

t.test('a statistics write the store refuses is logged; the socket and the room go on', async (t) => {
  const f = new LiveFixture();
  f.liveStore.getStats = () => {
    throw new Error('stats table locked');
  };
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'state', audio: true, video: false, screen: false });
  await f.settled();
  f.timers.advance(1_000);
  await f.settled();
  t.ok(m.conn.of('welcome').length === 1 && a.conn.of('welcome').length === 1, 'both were welcomed');
  t.equal(m.conn.of('participant_joined').length, 1, 'the room heard of her arrival');
  t.ok(m.conn.of('state').length >= 1, 'and of her microphone, though its statistics failed');
  t.same(
    f.errors.map((e) => [e.context, (e.err as Error).message]),
    [
      ['statistics', 'stats table locked'],
      ['statistics', 'stats table locked'],
      ['statistics', 'stats table locked'],
    ],
    'each refused recorder (two joins, her state) is logged under statistics',
  );
});
