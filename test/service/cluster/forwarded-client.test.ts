// Issue 35 point 3: who the client is, on the owner of a room, when her request reached another
// node. Two engines (node-a owns the rooms, node-b forwards) on one PostgreSQL database and one
// in-memory bus. Her IP and scheme on the owner are what node-b resolved under its own trust rule
// (127.0.0.1, the test's injected peer, is a trusted proxy: its X-Forwarded-For and -Proto name
// the client), carried in the signed message; a header a client sent is never read again on the
// owner. So the wrong-access-code limiter counts per real client through node-b (one stranger's
// wrong codes do not lock out another client), an untrusted peer's forged X-Forwarded-For and
// X-Forwarded-Proto are not believed, a knock from https gets its waiting cookie with Secure and
// Partitioned, an oversized body gets the owner's 413, and a flood of knocks from one client
// through node-b hits the same per-client limit as direct knocks.
import type { Test } from 'tap';
import { assertError, call, type ApiResult } from '../../helpers/api.js';
import { forwardingNodes } from '../../helpers/cluster-engines.js';
import { postgresTest } from '../../helpers/postgres.js';
import { Browser, createRoom, parseSetCookie } from '../../helpers/waiting.js';

type Nodes = Awaited<ReturnType<typeof forwardingNodes>>;

/** A knock injected into `node` from a peer that is no trusted proxy, with the headers it chose. */
async function fromPeer(
  node: Nodes['b'],
  roomId: string,
  peer: string,
  headers: Record<string, string>,
  json: Record<string, unknown>,
) {
  return node.app.inject({
    method: 'POST',
    url: `/room/${roomId}/knock`,
    remoteAddress: peer,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(json),
  });
}

async function ownedByA(t: Test, nodes: Nodes, json: Record<string, unknown>) {
  await createRoom(t, nodes.a, json);
  t.equal((await new Browser(nodes.b, String(json.room_id)).request('GET', '/waiting')).status, 404);
}

postgresTest(
  'wrong access codes through a non-owner count per real client, forged addresses are not believed',
  async (t) => {
    const nodes = await forwardingNodes(t);
    const { b } = nodes;
    await ownedByA(t, nodes, { room_id: 'lesson-2', name: 'Coded', waiting_room: 'all', access_code: 'correct-horse' });
    t.equal(await nodes.leaseOf('lesson-2'), 'node-a', 'node-a owns it');

    const stranger = new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.7' });
    for (let i = 0; i < 10; i++)
      assertError(
        t,
        await stranger.knock({ name: 'Guesser', access_code: `wrong-${i}` }),
        403,
        'access_code_invalid',
        'access_code',
      );
    assertError(t, await stranger.knock({ name: 'Guesser', access_code: 'wrong-10' }), 429, 'too_many_attempts');
    const pupil = new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.8' });
    t.equal(
      (await pupil.knock({ name: 'Pupil', access_code: 'correct-horse' })).status,
      202,
      'another client through the same node is not locked out',
    );

    // An untrusted peer's X-Forwarded-For is not believed at node-b, nor read again on node-a.
    for (let i = 0; i < 10; i++) {
      const guessed = await fromPeer(
        b,
        'lesson-2',
        '198.51.100.9',
        { 'x-forwarded-for': `203.0.113.${100 + i}` },
        {
          name: 'Forger',
          access_code: `wrong-${i}`,
        },
      );
      t.equal(guessed.statusCode, 403);
    }
    const locked = await fromPeer(
      b,
      'lesson-2',
      '198.51.100.9',
      { 'x-forwarded-for': '203.0.113.8' },
      {
        name: 'Forger',
        access_code: 'correct-horse',
      },
    );
    t.equal(locked.statusCode, 429, 'counted on its real address, whatever address it names');
    t.equal(
      (
        await new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.8' }).knock({
          name: 'Pupil 2',
          access_code: 'correct-horse',
        })
      ).status,
      202,
      'and the client it named is not locked out',
    );
  },
);

postgresTest('a knock from https through a non-owner gets its cookie Secure and Partitioned', async (t) => {
  const nodes = await forwardingNodes(t);
  await ownedByA(t, nodes, { room_id: 'lesson-2', name: 'Lesson', waiting_room: 'all' });
  const cookieOf = (raw: string | string[] | undefined) =>
    parseSetCookie(String(Array.isArray(raw) ? raw[0] : raw)).attributes;

  const secure = new Browser(nodes.b, 'lesson-2', { forwardedProto: 'https' });
  t.equal((await secure.knock({ name: 'Ada' })).status, 202);
  const direct = new Browser(nodes.a, 'lesson-2', { forwardedProto: 'https' });
  t.equal((await direct.knock({ name: 'Bea' })).status, 202);
  t.same(secure.lastSetCookie?.attributes, direct.lastSetCookie?.attributes, 'the attributes the owner sets itself');
  t.match(secure.lastSetCookie?.attributes, { secure: true, partitioned: true, samesite: 'None', httponly: true });

  const plain = new Browser(nodes.b, 'lesson-2');
  t.equal((await plain.knock({ name: 'Cy' })).status, 202);
  t.match(plain.lastSetCookie?.attributes, { samesite: 'Lax' }, 'plain http: Lax');
  t.notOk(plain.lastSetCookie?.attributes.secure, 'without Secure');

  const forged = await fromPeer(nodes.b, 'lesson-2', '198.51.100.9', { 'x-forwarded-proto': 'https' }, { name: 'Eve' });
  t.equal(forged.statusCode, 202);
  t.notOk(cookieOf(forged.headers['set-cookie']).secure, "an untrusted peer's X-Forwarded-Proto is not believed");
});

postgresTest('an oversized body gets the owner’s 413; a flood through a non-owner hits the same limit', async (t) => {
  const nodes = await forwardingNodes(t);
  const { a, b } = nodes;
  await ownedByA(t, nodes, { room_id: 'lesson-2', name: 'Lesson', waiting_room: 'all' });
  const big = { name: 'x'.repeat(70 * 1024) };
  const seen = (r: ApiResult) => [r.status, r.headers.get('content-type'), r.text];
  const viaB = await call(b, '/room/lesson-2/knock', { method: 'POST', token: null, json: big });
  const onA = await call(a, '/room/lesson-2/knock', { method: 'POST', token: null, json: big });
  assertError(t, viaB, 413, 'body_too_large');
  t.same(seen(viaB), seen(onA), 'the same answer as on the owner');
  const chunked = await b.app.inject({
    method: 'POST',
    url: '/room/lesson-2/knock',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    payload: JSON.stringify(big),
  });
  t.equal(chunked.statusCode, 413, 'without a Content-Length too');

  // 100 requests waiting per client and room: the 101st is refused, through either node.
  const results: number[] = [];
  for (let i = 0; i < 100; i += 25)
    results.push(
      ...(await Promise.all(
        Array.from(
          { length: 25 },
          async (_, j) =>
            (await new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.20' }).knock({ name: `Flood ${i + j}` }))
              .status,
        ),
      )),
    );
  t.same(new Set(results), new Set([202]), '100 knocks through node-b, all waiting');
  assertError(
    t,
    await new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.20' }).knock({ name: 'More' }),
    429,
    'too_many_waiting',
  );
  assertError(
    t,
    await new Browser(a, 'lesson-2', { forwardedFor: '203.0.113.20' }).knock({ name: 'More' }),
    429,
    'too_many_waiting',
  );
  t.equal(
    (await new Browser(b, 'lesson-2', { forwardedFor: '203.0.113.21' }).knock({ name: 'Other' })).status,
    202,
    'another client still knocks',
  );
});
