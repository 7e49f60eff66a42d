// Issue 31 points 2 and 13: a teacher who leaves gets back in as moderator (her link lasts a school
// term by default, a room setting, and stays good for the meeting's life; she never waits), and the
// invite link a moderator copies from inside the meeting carries a participant's rights only.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { assertError, call } from '../../helpers/api.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import {
  asSession,
  Browser,
  claimsOf,
  createRoom,
  knockAndAdmit,
  linkToken,
  moderator,
} from '../../helpers/waiting.js';

const day = 86_400;

t.test('a moderator link lasts the room setting moderator_link_ttl_secs, 120 days unless set', async (t) => {
  const d = await appFor(t);
  await createRoom(t, d, { room_id: 'term', name: 'Maths 7b', waiting_room: 'all' });
  const room = await call(d, '/api/rooms/term');
  t.equal(room.body.moderator_link_ttl_secs, 120 * day, 'the room record shows the default: a school term');
  const made = await call(d, '/api/rooms/term/links', { method: 'POST', json: { role: 'moderator' } });
  t.equal(made.body.expires_in, 120 * day, 'a moderator link lasts 120 days');
  const exp = Number(claimsOf(new URL(made.body.url, 'http://x').searchParams.get('t')).exp);
  const iat = Number(claimsOf(new URL(made.body.url, 'http://x').searchParams.get('t')).iat);
  t.equal(exp - iat, 120 * day, 'and the token says so');
  const pupil = await call(d, '/api/rooms/term/links', { method: 'POST', json: { role: 'participant' } });
  t.equal(pupil.body.expires_in, day, "a participant's link keeps its one day");

  const patched = await call(d, '/api/rooms/term', { method: 'PATCH', json: { moderator_link_ttl_secs: 200 * day } });
  t.equal(patched.status, 200);
  t.equal(patched.body.moderator_link_ttl_secs, 200 * day);
  const longer = await call(d, '/api/rooms/term/links', { method: 'POST', json: { role: 'moderator' } });
  t.equal(longer.body.expires_in, 200 * day, 'the room setting is what a moderator link gets');
  const asked = await call(d, '/api/rooms/term/links', { method: 'POST', json: { role: 'moderator', ttl_secs: 3600 } });
  t.equal(asked.body.expires_in, 3600, 'an explicit ttl_secs still wins');

  for (const bad of [59, 3599, 366 * day, 1.5, '90']) {
    const refused = await call(d, '/api/rooms/term', { method: 'PATCH', json: { moderator_link_ttl_secs: bad } });
    assertError(t, refused, 400, 'invalid_field', 'moderator_link_ttl_secs');
    t.match(
      refused.body.error.message,
      /moderator_link_ttl_secs/,
      `${JSON.stringify(bad)}: the message names the field`,
    );
  }
  const created = await call(d, '/api/rooms', {
    method: 'POST',
    json: { room_id: 'short', name: 'Short', moderator_link_ttl_secs: 7200 },
  });
  t.equal(created.body.moderator_link_ttl_secs, 7200, 'set on create');
});

t.test(
  'SERVICE_MODERATOR_LINK_TTL_SECS: the lifetime of moderator links in rooms that do not set their own',
  async (t) => {
    const d = await appFor(t, { env: { SERVICE_MODERATOR_LINK_TTL_SECS: String(30 * day) } });
    await createRoom(t, d, { room_id: 'plain', name: 'Plain', waiting_room: 'all' });
    t.equal((await call(d, '/api/rooms/plain')).body.moderator_link_ttl_secs, 30 * day, 'the instance default');
    const made = await call(d, '/api/rooms/plain/links', { method: 'POST', json: { role: 'moderator' } });
    t.equal(made.body.expires_in, 30 * day, 'a moderator link lasts the instance default');
    const claims = claimsOf(new URL(made.body.url, 'http://x').searchParams.get('t'));
    t.equal(Number(claims.exp) - Number(claims.iat), 30 * day, "and the token's expiry says so");
    const own = await call(d, '/api/rooms', {
      method: 'POST',
      json: { room_id: 'own', name: 'Own', moderator_link_ttl_secs: 200 * day },
    });
    t.equal(own.body.moderator_link_ttl_secs, 200 * day, "a room's own value wins");
    const ownLink = await call(d, '/api/rooms/own/links', { method: 'POST', json: { role: 'moderator' } });
    t.equal(ownLink.body.expires_in, 200 * day);
    const patched = await call(d, '/api/rooms/plain', { method: 'PATCH', json: { name: 'Renamed' } });
    t.equal(patched.body.moderator_link_ttl_secs, 30 * day, 'a PATCH that does not name it keeps it');
  },
);

t.test(
  'a teacher who left comes back as moderator with her link, even past its expiry, while the lesson goes on',
  async (t) => {
    const clock = new FakeClock();
    const d = await appFor(t, { clock });
    await createRoom(t, d, { room_id: 'lesson', name: 'Lesson', waiting_room: 'all' });
    const t0 = await linkToken(d, 'lesson', { role: 'moderator', name: 'Ms Keller', ttl_secs: 3600 });
    const teacher = new Browser(d, 'lesson');
    const first = await teacher.start({ name: 'ignored', t: t0 });
    t.match(first.body, { status: 'joined', role: 'moderator' });
    const mod = {
      session: String(first.body.session),
      participantId: '',
      name: 'Ms Keller',
      role: 'moderator',
      result: first,
    };
    // A pupil keeps the lesson going while the teacher steps out.
    await knockAndAdmit(d, 'lesson', mod, 'Pupil Pia');
    t.equal((await asSession.leave(d, 'lesson', mod.session)).status, 204, 'the teacher leaves');

    const exists = await teacher.request('GET', `/exists?t=${t0}`);
    t.equal(exists.body.link_valid, true, 'exists says her link still lets her in');

    clock.advance(2 * 3600_000);
    const back = await teacher.start({ name: 'ignored', t: t0 });
    t.equal(back.status, 200, `her link, expired an hour ago, still lets her in (${back.text.slice(0, 80)})`);
    t.match(back.body, { status: 'joined', role: 'moderator' }, 'as moderator, never to the waiting room');
    t.equal(claimsOf(back.body.session).name, 'Ms Keller');
    const knockBack = await new Browser(d, 'lesson').knock({ name: 'x', t: t0 });
    t.match(
      knockBack.body,
      { status: 'joined', role: 'moderator' },
      'knocking with it enters too: a moderator never waits',
    );
  },
);

t.test('an expired link opens no new meeting, and exists says so before any name is asked', async (t) => {
  const clock = new FakeClock();
  const d = await appFor(t, { clock });
  await createRoom(t, d, { room_id: 'empty', name: 'Empty', waiting_room: 'all' });
  const link = await linkToken(d, 'empty', { role: 'moderator', ttl_secs: 3600 });
  const browser = new Browser(d, 'empty');
  t.equal((await browser.request('GET', `/exists?t=${link}`)).body.link_valid, true);
  t.equal((await browser.exists()).body.link_valid, undefined, 'no link, no link_valid');
  clock.advance(2 * 3600_000);
  const said = await browser.request('GET', `/exists?t=${link}`);
  t.same(said.body, { exists: true, access_code: false, link_valid: false }, 'the page can say "expired" at once');
  assertError(t, await browser.start({ name: 'Ms Keller', t: link }), 403, 'join_token_invalid', 't');
});

t.test('Copy invite link: a moderator gets a participant link; nobody else gets one', async (t) => {
  const d = await appFor(t);
  await createRoom(t, d, { room_id: 'inv', name: 'Invite', waiting_room: 'guests' });
  const mod = await moderator(d, 'inv');
  const invite = await call(d, '/room/inv/invite', { method: 'POST', token: mod.session });
  t.equal(invite.status, 200);
  t.match(invite.body.url, /^\/room\/inv\?t=[\w.-]+$/);
  const token = new URL(invite.body.url, 'http://x').searchParams.get('t');
  t.match(claimsOf(token), { room: 'inv', role: 'participant', source: 'link' }, 'a participant link, no name');
  t.notOk('name' in claimsOf(token));
  const guest = new Browser(d, 'inv');
  t.same(
    (await guest.start({ name: 'Guest Gus', t: token })).body,
    { status: 'knock' },
    'its holder waits like any guest',
  );

  const pupil = await knockAndAdmit(d, 'inv', mod, 'Pupil Pia');
  assertError(
    t,
    await call(d, '/room/inv/invite', { method: 'POST', token: pupil.session.session }),
    403,
    'not_moderator',
  );
  assertError(t, await call(d, '/room/inv/invite', { method: 'POST', token: null }), 401, 'unauthorized');
  assertError(t, await call(d, '/room/inv/invite', { method: 'POST', token: token }), 401, 'unauthorized');
});
