// Issue 35 point 3: the relayed frames between a front node and a room's owner. They travel
// inside the signed channel, so a bad one is a bug rather than an attack; still, what is not a
// frame is refused whole (null), never read past its end or taken for another connection.
import t from 'tap';
import { closePayload, frame, ownerGoneCode, readClose, unframe } from '../../../../src/http/live/relay-wire.js';

const conn = 'a'.repeat(32);

t.test('a frame is its kind, its connection and its payload, as sent', async (t) => {
  const text = Buffer.from('{"type":"chat","text":"grüße"}', 'utf8');
  const parts = unframe(frame('f', conn, text));
  t.equal(parts?.kind, 'f');
  t.equal(parts?.conn, conn);
  t.equal(parts?.payload.toString('utf8'), '{"type":"chat","text":"grüße"}');
  t.same(unframe(frame('x', conn))?.payload.length, 0, 'a close by the page has no payload');
  const inside = Buffer.concat([Buffer.from('head'), frame('m', conn, Buffer.from('{}'))]);
  t.equal(unframe(inside.subarray(4))?.payload.toString(), '{}', 'read where it sits in a larger buffer');
});

t.test('what is not a frame is refused whole', async (t) => {
  t.equal(unframe(Buffer.alloc(0)), null, 'empty');
  t.equal(unframe(Buffer.from(`f${conn.slice(1)}`)), null, 'shorter than a connection id');
  t.equal(unframe(Buffer.from(`f${'A'.repeat(32)}{}`)), null, 'a connection id not of the front node’s making');
  t.equal(unframe(Buffer.from(`f${'../'.repeat(10)}ab{}`)), null);
});

t.test('a close carries its code and reason; a close without them is the owner gone', async (t) => {
  t.same(readClose(closePayload(4410, 'the meeting ended')), { code: 4410, reason: 'the meeting ended' });
  t.same(readClose(closePayload(1000, '')), { code: 1000, reason: '' });
  t.same(readClose(Buffer.alloc(1)), { code: ownerGoneCode, reason: 'room moved' });
});
