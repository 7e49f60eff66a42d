import t from 'tap';
import { RateWindow } from '../../../../src/engine/live/rate-windows.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

const limit = { count: 3, windowMs: 1_000 };

t.test('a window admits its count, refuses beyond it, and opens again once its time is over', async (t) => {
  const window = new RateWindow(0);
  t.same(
    [0, 10, 20, 30, 999].map((ms) => window.admit(ms, limit)),
    [true, true, true, false, false],
  );
  t.equal(window.admit(1_000, limit), true, 'a new window opens at the first event after the old one ran out');
  t.same(
    [1_001, 1_002, 1_999].map((ms) => window.admit(ms, limit)),
    [true, true, false],
  );
});

t.test("a socket's allowance: admit its count, warn once, drop, close once at twice the count", async (t) => {
  const window = new RateWindow(0);
  t.same(
    Array.from({ length: 8 }, (_, i) => window.allowance(i, limit)),
    ['admit', 'admit', 'admit', 'warn', 'drop', 'drop', 'close', 'drop'],
  );
  t.equal(window.allowance(1_000, limit), 'admit', 'a new window starts afresh');
});

t.test('the live meeting keeps a window per kind: a chat flood does not use up renames', async (t) => {
  const f = new LiveFixture({
    live: { chatLimit: { count: 2, windowMs: 1_000 }, renameLimit: { count: 1, windowMs: 1_000 } },
  });
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'chat', text: 'one' });
  await f.settled();
  a.send({ type: 'chat', text: 'two' });
  await f.settled();
  a.send({ type: 'chat', text: 'three' });
  await f.settled();
  t.equal(a.conn.last('error')?.code, 'rate_limited', 'the third chat in a second is refused');
  t.equal(a.conn.of('chat').length, 2);
  a.send({ type: 'rename', name: 'Anna' });
  await f.settled();
  t.equal(a.conn.last('state')?.participant.name, 'Anna', 'the rename window is its own');
  a.send({ type: 'rename', name: 'Annie' });
  t.equal(a.conn.of('error').length, 2, 'the second rename in the window is refused');
  f.timers.advance(1_000);
  a.send({ type: 'chat', text: 'later' });
  await f.settled();
  t.equal(a.conn.last('chat')?.message.text, 'later', 'after the window, chat is heard again');
});

t.test('the message window counts malformed frames too, before reading them', async (t) => {
  const f = new LiveFixture({ live: { messageLimit: { count: 2, windowMs: 10_000 } } });
  const a = await f.connect(await f.enter('Ann'));
  a.session.receive({ ok: false, message: 'a message must be a JSON object' });
  a.session.receive({ ok: false, message: 'a message must be a JSON object' });
  a.send({ type: 'chat', text: 'hello' });
  await f.settled();
  t.same(
    a.conn.of('error').map((e) => e.code),
    ['invalid_message', 'invalid_message', 'rate_limited'],
  );
  t.equal(a.conn.of('chat').length, 0);
  f.timers.advance(10_000);
  a.send({ type: 'chat', text: 'hello' });
  await f.settled();
  t.equal(a.conn.of('chat').length, 1);
});
