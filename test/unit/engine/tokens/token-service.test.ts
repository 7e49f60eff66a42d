import t from 'tap';
import { randomBytes } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { TokenService, tokenTypes } from '../../../../src/engine/tokens/token-service.js';

function fakeClock(start = Date.parse('2026-11-22T10:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const key = randomBytes(32);
const session = { room: 'r1', meeting: 'm1', participant: 'p1', role: 'moderator' as const, name: 'Ada' };

t.test('a session token round-trips and expires on the clock', async (t) => {
  const clock = fakeClock();
  const tokens = new TokenService(key, clock);
  const token = await tokens.signSession(session, 60);
  t.same(await tokens.verifySession(token), session);
  clock.advance(61_000);
  t.equal(await tokens.verifySession(token), null, 'expired');
});

t.test('a join token is never accepted as a session, nor the reverse', async (t) => {
  const tokens = new TokenService(key, fakeClock());
  const join = await tokens.signJoin({ room: 'r1', role: 'moderator', source: 'link' }, 60);
  t.equal(await tokens.verifySession(join), null);
  t.same(await tokens.verifyJoin(join), { room: 'r1', role: 'moderator', source: 'link' });
  t.equal(await tokens.verifyJoin(await tokens.signSession(session, 60)), null);
});

t.test('tokens of another key, with alg none, or another algorithm are refused', async (t) => {
  const clock = fakeClock();
  const tokens = new TokenService(key, clock);
  const other = new TokenService(randomBytes(32), clock);
  t.equal(await tokens.verifySession(await other.signSession(session, 60)), null, 'other key');

  const unsecured = new UnsecuredJWT({ ...session, iss: 'meet' }).setIssuedAt().setExpirationTime('1h').encode();
  t.equal(await tokens.verifySession(unsecured), null, 'alg none');

  const hs512 = await new SignJWT({ ...session })
    .setProtectedHeader({ alg: 'HS512', typ: tokenTypes.session })
    .setIssuer('meet')
    .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
    .setExpirationTime(Math.floor(clock.now().getTime() / 1000) + 60)
    .sign(key);
  t.equal(await tokens.verifySession(hs512), null, 'HS512 is not on the allow-list');
  t.equal(await tokens.verifySession('not-a-jwt'), null, 'garbage');
});

t.test('claims of the wrong shape are refused', async (t) => {
  const clock = fakeClock();
  const tokens = new TokenService(key, clock);
  const now = Math.floor(clock.now().getTime() / 1000);
  const forged = await new SignJWT({ room: 'r1', role: 'admin', source: 'link' })
    .setProtectedHeader({ alg: 'HS256', typ: tokenTypes.join })
    .setIssuer('meet')
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(key);
  t.equal(await tokens.verifyJoin(forged), null, 'unknown role');
});

t.test('a short key is refused', async (t) => {
  t.throws(() => new TokenService(randomBytes(16), fakeClock()), /at least 32 bytes/);
});

t.test('framing outlives a join token by the grace it is given, and admits nobody', async (t) => {
  const clock = fakeClock();
  const tokens = new TokenService(key, clock);
  const join = await tokens.signJoin(
    { room: 'vc-1', role: 'participant', source: 'integration', embed: ['https://app.example.org'] },
    900,
  );
  t.same(await tokens.framingOf(join, 3600), { room: 'vc-1', embed: ['https://app.example.org'] }, 'fresh');
  clock.advance(901_000);
  t.equal(await tokens.verifyJoin(join), null, 'expired: it opens nothing');
  t.same(
    await tokens.framingOf(join, 3600),
    { room: 'vc-1', embed: ['https://app.example.org'] },
    'a reload inside the frame may still be framed',
  );
  clock.advance(3600_000);
  t.equal(await tokens.framingOf(join, 3600), null, 'past the grace: the plain page policy');
  const plain = await tokens.signJoin({ room: 'vc-1', role: 'participant', source: 'link' }, 900);
  t.equal(await tokens.framingOf(plain, 3600), null, 'a join token without origins frames nothing');
  t.equal(
    await tokens.framingOf(await tokens.signSession(session, 900), 3600),
    null,
    'a session token is not a join token',
  );
  const forged = await new SignJWT({ room: 'vc-1', embed: ['*'] })
    .setProtectedHeader({ alg: 'HS256', typ: tokenTypes.join })
    .setIssuer('meet')
    .setExpirationTime('1h')
    .sign(randomBytes(32));
  t.equal(await tokens.framingOf(forged, 3600), null, 'another key');
});

// Issue 31 point 2: a teacher who leaves comes back in with the link she came with, for the meeting's life.
t.test(
  'a join token good when the meeting began stays good until it ends, and opens no new meeting once expired',
  async (t) => {
    const clock = fakeClock();
    const tokens = new TokenService(key, clock);
    const claims = { room: 'r1', role: 'moderator' as const, source: 'integration' as const };
    const link = await tokens.signJoin(claims, 3600);
    const meetingBegan = new Date(clock.now().getTime() + 600_000);
    clock.advance(600_000);
    t.same(await tokens.verifyJoin(link, meetingBegan), claims, 'unexpired: good with or without a meeting');
    clock.advance(7 * 24 * 3600_000);
    t.equal(await tokens.verifyJoin(link), null, 'expired, no meeting open: refused');
    t.same(
      await tokens.verifyJoin(link, meetingBegan),
      claims,
      'expired during the open meeting: still good, same role',
    );
    const later = new Date(clock.now().getTime() - 60_000);
    t.equal(
      await tokens.verifyJoin(link, later),
      null,
      'a meeting that began after the link expired does not revive it',
    );
    const other = new TokenService(randomBytes(32), clock);
    t.equal(await other.verifyJoin(link, meetingBegan), null, 'the meeting rule never passes another key');
  },
);

t.test("a join token's avatar (issue 33 point 8): kept when http(s), dropped otherwise", async (t) => {
  const tokens = new TokenService(key, fakeClock());
  const join = (avatar: unknown) =>
    tokens.signJoin({ room: 'r1', role: 'participant', source: 'lms', avatar } as never, 60);
  t.match(await tokens.verifyJoin(await join('https://lms.example.org/a.png')), {
    avatar: 'https://lms.example.org/a.png',
  });
  for (const odd of ['javascript:alert(1)', 'data:image/png;base64,AAAA', `https://x.example/${'a'.repeat(2100)}`, 7])
    t.notOk('avatar' in ((await tokens.verifyJoin(await join(odd))) ?? {}), `${String(odd).slice(0, 30)} is dropped`);
});
