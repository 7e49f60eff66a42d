// Issue 32 points 1 and 5 at the engine listener, in process (app.inject, real SQLite): `/` serves
// the home page, the same bytes for everyone (no cookie read or set, no room, count or name on it;
// cacheable); the rooms API gives a room created without an id a readable one and keeps every id
// format it took before; the room addresses do not normalise codes (the page does, asking only what
// any address asks); the meeting API's own room ids are not changed.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { assertError, rooms } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';
import { compatAppFor } from '../../helpers/compat-app.js';
import { ConfapiClient, assertSuccess } from '../../helpers/compat.js';

const readable = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;

t.test('GET / is the home page: HTML, a strict policy, cacheable, the same for everyone', async (t) => {
  const d = await appFor(t);
  const before = await d.app.inject({ method: 'GET', url: '/' });
  t.equal(before.statusCode, 200, 'GET / answers 200 (it answered a JSON 404)');
  t.match(before.headers['content-type'], /^text\/html; charset=utf-8/);
  t.match(before.body, /<script type="module" src="\/assets\/web\/home\.js"><\/script>/, 'the home page script');
  t.match(before.headers['content-security-policy'], /default-src 'self'/, 'the strict policy of the pages');
  t.match(before.headers['content-security-policy'], /frame-ancestors 'self'(;|$)/, 'framed by nobody else');
  t.equal(before.headers['cache-control'], 'public, max-age=300', 'any cache may keep it for five minutes');
  t.equal(before.headers['set-cookie'], undefined, 'no cookie set');
  t.equal(before.headers.vary, undefined, 'nothing varies per person or language');
  t.equal(before.headers['x-content-type-options'], 'nosniff');

  // Rooms made, one of them in use: the page says nothing of them.
  for (const [room_id, name] of [
    ['secret-board', 'Board of Governors'],
    ['Mathematik', 'Mathe 7b'],
  ]) {
    t.equal((await rooms.create(d, { room_id, name, waiting_room: 'all' })).status, 201);
  }
  await d.app.inject({ method: 'POST', url: '/room/secret-board/knock', payload: { name: 'Eve', note: '' } });
  const variants = [
    {},
    { cookie: 'meet_wait=abc; meet_session=x' },
    { authorization: `Bearer ${d.adminToken}` },
    { 'accept-language': 'de-DE,de;q=0.9' },
    { 'x-forwarded-for': '203.0.113.7' },
  ];
  for (const headers of variants) {
    const answer = await d.app.inject({ method: 'GET', url: '/', headers });
    t.equal(answer.body, before.body, `the same bytes with ${JSON.stringify(Object.keys(headers))}`);
    t.equal(answer.headers['set-cookie'], undefined, 'and no cookie');
  }
  for (const word of ['secret-board', 'Board of Governors', 'Mathematik', 'Mathe 7b', 'Eve', 'room_id'])
    t.notMatch(before.body, word, `nothing names ${word}`);
  const head = await d.app.inject({ method: 'HEAD', url: '/' });
  t.equal(head.statusCode, 200, 'HEAD / too');
  // The bundle as the daemon serves it (this app runs the sources, whose web folder holds no bundle).
  const script = readFileSync(new URL('../../../dist/web/home.js', import.meta.url), 'utf8');
  t.notMatch(script, /\/api\/|\/exists|fetch\(/, 'the home page asks the server nothing');
  const query = await d.app.inject({ method: 'GET', url: '/?code=secret-board&lang=de' });
  t.equal(query.body, before.body, 'a query changes nothing of it');
});

t.test('the rooms API: a room created without an id gets a readable one; every id format still works', async (t) => {
  const d = await appFor(t);
  const made = await rooms.create(d, { name: 'Maths 7b', waiting_room: 'all' });
  t.equal(made.status, 201, 'created without room_id (it was required)');
  t.match(made.body.room_id, readable, `a readable id: ${made.body.room_id}`);
  t.equal(made.body.name, 'Maths 7b');
  t.equal((await rooms.get(d, made.body.room_id)).body.name, 'Maths 7b', 'found under it');
  const exists = await d.app.inject({ method: 'GET', url: `/room/${made.body.room_id}/exists` });
  t.same(JSON.parse(exists.body), { exists: true, access_code: false }, 'its address works');
  const ids = new Set([made.body.room_id]);
  for (let i = 0; i < 20; i++) ids.add((await rooms.create(d, { name: `Room ${i}` })).body.room_id);
  t.equal(ids.size, 21, 'twenty-one rooms, twenty-one different ids');

  for (const room_id of ['Mathematik', 'lesson-7', 'a.b_c-D', 'cf-0123456789abcdef', 'x', 'A'.repeat(64), 'abcdefghij'])
    t.equal((await rooms.create(d, { room_id, name: room_id })).body.room_id, room_id, `${room_id} is kept as chosen`);
  assertError(t, await rooms.create(d, { room_id: 'Mathematik', name: 'Again' }), 409, 'room_exists', 'room_id');
  assertError(t, await rooms.create(d, { room_id: 'caf\u00e9', name: 'x' }), 400, 'invalid_field', 'room_id');
  assertError(t, await rooms.create(d, { room_id: 'abc defg hij', name: 'x' }), 400, 'invalid_field', 'room_id');
  assertError(t, await rooms.create(d, { room_id: '', name: 'x' }), 400, 'invalid_field', 'room_id');
  assertError(t, await rooms.create(d, {}), 400, 'invalid_field', 'name');
  assertError(
    t,
    await rooms.create(d, { name: 'Child', parent_room_id: 'nope' }),
    400,
    'invalid_field',
    'parent_room_id',
  );
  const child = await rooms.create(d, { name: 'Group 1', parent_room_id: made.body.room_id });
  t.match(child.body.room_id, readable, 'a sub-group made through the API without an id gets one too');
});

t.test('the room addresses take ids as written: odd encodings and overlong codes are refused plainly', async (t) => {
  const d = await appFor(t);
  const id = (await rooms.create(d, { name: 'Lesson' })).body.room_id as string;
  const exists = (path: string) => d.app.inject({ method: 'GET', url: `/room/${path}/exists` });
  t.equal((await exists(id)).statusCode, 200);
  for (const typed of [id.toUpperCase(), encodeURIComponent(id.replaceAll('-', ' ')), id.replaceAll('-', '')]) {
    const answer = await exists(typed);
    t.equal(answer.statusCode, 404, `${typed}: the server does not guess (the page reads codes)`);
    t.same(JSON.parse(answer.body), { exists: false }, 'and says only that');
  }
  const page = await d.app.inject({
    method: 'GET',
    url: `/room/${encodeURIComponent(id.toUpperCase().replaceAll('-', ' '))}`,
  });
  t.equal(page.statusCode, 200, 'the page is served for a code typed with spaces and capitals (it reads it)');
  for (const odd of ['%FF', '%C0%AF', '%E0%80%80', '%ZZ']) {
    const answer = await d.app.inject({ method: 'GET', url: `/room/${odd}` });
    t.equal(answer.statusCode, 400, `/room/${odd}: 400`);
    t.equal(JSON.parse(answer.body).error.code, 'bad_request', 'in the error shape');
  }
  const overlong = await d.app.inject({ method: 'GET', url: `/room/${'a'.repeat(5000)}` });
  t.ok(overlong.statusCode >= 400 && overlong.statusCode < 500, `an overlong code: ${overlong.statusCode}`);
  const knock = await d.app.inject({
    method: 'POST',
    url: `/room/${'a'.repeat(65)}/knock`,
    payload: { name: 'Eve', note: '' },
  });
  t.equal(knock.statusCode, 404, 'a knock at an id no room can have: not found, as any missing room');
  t.equal(JSON.parse(knock.body).error.code, 'room_not_found');
});

t.test("the meeting API's meeting ids and engine rooms are the platform's, not readable ids", async (t) => {
  const secret = 'readable-ids-secret-0123456789';
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const api = new ConfapiClient(d.compatUrl, secret);
  const created = await api.get('create', [
    ['meetingID', 'moodle-course-42'],
    ['name', 'Algebra'],
  ]);
  assertSuccess(t, created, 'create');
  t.equal(created.xml.meetingID, 'moodle-course-42', 'the meeting keeps the id the platform gave');
  const joined = await api.get('join', [
    ['meetingID', 'moodle-course-42'],
    ['fullName', 'Mia'],
    ['role', 'MODERATOR'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, 'join');
  t.match(String(joined.xml.url), /\/room\/cf-[0-9a-f]{32}\?t=/, 'its engine room is still cf- and 128 random bits');
});
