// The waiting cookie across sites (issue 14, point 9): over HTTPS, as a TLS proxy says it with
// X-Forwarded-Proto, it is SameSite=None; Secure; Partitioned so that a person waiting inside
// an embedding page of another site can still be admitted; over plain http it stays Lax, and a
// client that is not a trusted proxy cannot make it change by saying https.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

const room = 'cookie-room';

t.test('behind a trusted TLS proxy: SameSite=None; Secure; Partitioned, and it still names the request', async (t) => {
  const d = await appFor(t, { env: { SERVICE_TRUSTED_PROXIES: '127.0.0.1,::1' } });
  await createRoom(t, d, { room_id: room, name: 'Cookie room', waiting_room: 'all' });
  const viaTls = new Browser(d, room, { forwardedProto: 'https', forwardedFor: '203.0.113.7' });
  t.equal((await viaTls.knock({ name: 'Tess Proxy' })).status, 202, 'she waits');
  const cookie = viaTls.lastSetCookie!;
  t.ok(cookie, `Set-Cookie: ${cookie?.raw}`);
  t.match(String(cookie.attributes.samesite), /^none$/i, 'SameSite=None');
  t.equal(cookie.attributes.secure, true, 'Secure');
  t.equal(cookie.attributes.partitioned, true, 'Partitioned');
  t.equal(cookie.attributes.httponly, true, 'still HttpOnly');
  t.equal(cookie.attributes.path, `/room/${room}`, 'still scoped to the room');
  t.notOk('domain' in cookie.attributes, 'no Domain attribute');
  t.same((await viaTls.poll()).body, { status: 'waiting' }, 'the cookie names her request');

  const plain = new Browser(d, room, { forwardedFor: '203.0.113.8' });
  t.equal((await plain.knock({ name: 'Pat Plain' })).status, 202);
  t.match(String(plain.lastSetCookie?.attributes.samesite), /^lax$/i, 'plain http: SameSite=Lax');
  t.notOk('secure' in plain.lastSetCookie!.attributes, 'not Secure (a browser would drop it over http)');
  t.notOk('partitioned' in plain.lastSetCookie!.attributes, 'not Partitioned');

  const saysHttp = new Browser(d, room, { forwardedProto: 'http', forwardedFor: '203.0.113.9' });
  t.equal((await saysHttp.knock({ name: 'Hal Http' })).status, 202);
  t.match(String(saysHttp.lastSetCookie?.attributes.samesite), /^lax$/i, 'X-Forwarded-Proto http: Lax');
});

t.test('X-Forwarded-Proto from a client that is not a trusted proxy changes nothing', async (t) => {
  const d = await appFor(t, { env: { SERVICE_TRUSTED_PROXIES: 'none' } });
  await createRoom(t, d, { room_id: room, name: 'Cookie room', waiting_room: 'all' });
  const liar = new Browser(d, room, { forwardedProto: 'https' });
  t.equal((await liar.knock({ name: 'Lia Liar' })).status, 202);
  const cookie = liar.lastSetCookie!;
  t.match(String(cookie.attributes.samesite), /^lax$/i, `still Lax: ${cookie.raw}`);
  t.notOk('secure' in cookie.attributes, 'not Secure');
  t.notOk('partitioned' in cookie.attributes, 'not Partitioned');
});
