// Issue 3, behaviour 13 and the privacy paragraph against a real daemon: what a person who is
// not admitted can learn, field bounds, markup kept as text, the cookie, and who may moderate.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { appFor, type InProcess } from '../../helpers/app.js';
import { assertError, type ApiResult } from '../../helpers/api.js';
import {
  Browser,
  asSession,
  createRoom,
  linkToken,
  moderator,
  names,
  timeline,
  waitingApi,
  type Session,
} from '../../helpers/waiting.js';

const roomName = 'Zebra Council Quarterly';
const modName = 'Quixote Vane';
const participantName = 'Ulrich Xylophone';
const otherWaiter = 'Wanda Otherwaiter';
const code = 'hush-hush-42';

/** Every number anywhere in a parsed JSON value (a count or a position would be one). */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

onEachServiceStore('privacy and abuse under the default policy', async (t, store) => {
  const d: InProcess = await appFor(t, { store });
  const room = 'secret-room';
  await createRoom(t, d, { room_id: room, name: roomName, waiting_room: 'guests', access_code: code });
  await createRoom(t, d, { room_id: 'other-room', name: 'Other room', waiting_room: 'guests' });
  // Guessing codes locks this client out of a room for ten minutes: guess in a room of its own.
  await createRoom(t, d, { room_id: 'guess-room', name: roomName, waiting_room: 'guests', access_code: code });
  const mod: Session = await moderator(d, room, modName);
  const linked = await linkToken(d, room, { role: 'participant', name: participantName });
  const participantEntry = await new Browser(d, room).start({ name: 'whatever', t: linked });
  t.equal(participantEntry.body?.status, 'joined', 'a participant is in the room');
  const participantSession = String(participantEntry.body?.session);
  const other = new Browser(d, room);
  t.equal((await other.knock({ name: otherWaiter, access_code: code })).status, 202, 'someone else waits');

  t.test(
    'nothing answered to a person not admitted names the room, the moderator, the others, or counts',
    async (t) => {
      const nosy = new Browser(d, room, { forwardedFor: '10.9.9.9' });
      const answers: ApiResult[] = [];
      const keep = async (what: string, result: Promise<ApiResult>, status: number) => {
        const r = await result;
        t.equal(r.status, status, `${what}: ${status} (${r.text.slice(0, 100)})`);
        answers.push(r);
        return r;
      };
      t.same(
        (await keep('exists', nosy.exists(), 200)).body,
        { exists: true, access_code: true },
        'exists says only exists and access_code',
      );
      t.same((await keep('exists elsewhere', nosy.request('GET', '/exists', { room: 'no-such-room' }), 404)).body, {
        exists: false,
      });
      await keep('start without the code', nosy.start({ name: 'Nosy Nora' }), 403);
      await keep('start with a wrong code', nosy.start({ name: 'Nosy Nora', access_code: 'guess' }), 403);
      t.same((await keep('start with the code', nosy.start({ name: 'Nosy Nora', access_code: code }), 200)).body, {
        status: 'knock',
      });
      await keep('knock with a wrong code', nosy.knock({ name: 'Nosy Nora', access_code: 'guess-2' }), 403);
      await keep('knock with a long name', nosy.knock({ name: 'n'.repeat(65), access_code: code }), 400);
      t.same(
        (await keep('knock', nosy.knock({ name: 'Nosy Nora', note: 'who is in?', access_code: code }), 202)).body,
        { status: 'waiting' },
      );
      t.same((await keep('knock again', nosy.knock({ name: 'Nosy Nora', access_code: code }), 202)).body, {
        status: 'waiting',
      });
      t.same((await keep('poll', nosy.poll(), 200)).body, { status: 'waiting' });
      await keep('poll at another room', nosy.request('GET', '/waiting', { room: 'other-room' }), 404);
      await keep('waiting-list without a session', nosy.request('GET', '/waiting-list'), 401);
      await keep('admit without a session', nosy.request('POST', '/admit', { json: { all: true } }), 401);
      await keep(
        'a join token of another room',
        nosy.start({ name: 'Nosy Nora', t: await linkToken(d, 'other-room', { role: 'moderator' }) }),
        403,
      );
      await keep(
        'knock at a missing room',
        nosy.request('POST', '/knock', { room: 'no-such-room', json: { name: 'Nosy Nora' } }),
        404,
      );

      const nosyId = (await waitingApi.list(d, room)).body.find(
        (i: { name: string }) => i.name === 'Nosy Nora',
      ).request_id;
      t.equal((await asSession.refuse(d, room, mod.session, { request_id: nosyId, bar: false })).status, 200);
      t.same((await keep('poll refused', nosy.poll(), 200)).body, { status: 'refused', retry: true });
      await keep('knock after refusal', nosy.knock({ name: 'Nosy Nora', access_code: code }), 202);
      const againId = (await waitingApi.list(d, room)).body.find(
        (i: { name: string }) => i.name === 'Nosy Nora',
      ).request_id;
      t.equal((await asSession.refuse(d, room, mod.session, { request_id: againId, bar: true })).status, 200);
      t.same((await keep('poll barred', nosy.poll(), 200)).body, { status: 'barred' });
      await keep('knock barred', nosy.knock({ name: 'Nosy Nora', access_code: code }), 403);
      await keep('start barred', nosy.start({ name: 'Nosy Nora', access_code: code }), 403);
      // Her cookie proves she passed the code, so guessing needs a browser without one.
      const guesser = new Browser(d, 'guess-room');
      for (let i = 0; i < 12; i++) await guesser.knock({ name: 'Nosy Nora', access_code: `wrong-${i}` });
      await keep('too many attempts', guesser.knock({ name: 'Nosy Nora', access_code: code }), 429);

      t.ok(answers.length >= 20, `${answers.length} answers checked`);
      for (const answer of answers) {
        const headers = [...answer.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
        const raw = `${headers}\n\n${answer.text}`;
        const label = answer.text.slice(0, 70);
        for (const secret of [
          roomName,
          'Zebra',
          modName,
          'Quixote',
          participantName,
          'Ulrich',
          otherWaiter,
          'Wanda',
          code,
        ]) {
          t.notOk(raw.includes(secret), `"${secret}" is not in ${answer.status} ${label}`);
        }
        t.same(numbersIn(answer.body), [], `no number (count, position) in ${label}`);
        const allowed = answer.status >= 400 ? ['error', 'exists'] : ['status', 'retry', 'exists', 'access_code'];
        t.ok(
          Object.keys(answer.body ?? {}).every((k) => allowed.includes(k)),
          `only ${allowed.join('/')} in ${label}`,
        );
      }
    },
  );

  t.test('name and note bounds', async (t) => {
    const b = new Browser(d, room);
    const before = names(await waitingApi.list(d, room));
    for (const [json, field] of [
      [{ name: 'n'.repeat(65) }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{}, 'name'],
      [{ name: 7 }, 'name'],
      [{ name: 'Bell\u0007' }, 'name'],
      [{ name: 'Ok', note: 'x'.repeat(281) }, 'note'],
      [{ name: 'Ok', note: 5 }, 'note'],
    ] as const) {
      assertError(t, await b.knock({ ...json, access_code: code }), 400, 'invalid_field', field);
    }
    assertError(t, await b.start({ name: 'n'.repeat(65), access_code: code }), 400, 'invalid_field', 'name');
    t.same(names(await waitingApi.list(d, room)), before, 'no request was created');
    t.equal(b.cookie, null, 'and no cookie set');

    const longest = 'L'.repeat(63) + 'Z';
    t.equal(
      (await b.knock({ name: longest, note: 'y'.repeat(280), access_code: code })).status,
      202,
      '64 and 280 characters are accepted',
    );
    const emoji = '😀'.repeat(64);
    t.equal(
      (await new Browser(d, room).knock({ name: emoji, access_code: code })).status,
      202,
      '64 emoji are 64 characters',
    );
    const list = (await waitingApi.list(d, room)).body as { name: string; note: string }[];
    t.match(
      list.find((i) => i.name === longest),
      { note: 'y'.repeat(280) },
    );
    t.ok(
      list.some((i) => i.name === emoji),
      'the emoji name is stored whole',
    );
  });

  t.test('markup in a name or note is stored and returned as plain text', async (t) => {
    const name = '<script>alert("x")</script>';
    const note = '<b>bold</b> & <i>"quoted"</i> <img src=x onerror=alert(1)> &amp;';
    const b = new Browser(d, room);
    t.equal((await b.knock({ name, note, access_code: code })).status, 202);
    const list = await asSession.list(d, room, mod.session);
    t.match(list.headers.get('content-type'), /^application\/json/, 'JSON, not HTML');
    const item = (list.body as { name: string; note: string }[]).find((i) => i.name === name);
    t.same(item && { name: item.name, note: item.note }, { name, note }, 'returned exactly as typed to the moderator');
    t.ok(
      list.text.includes('<script>alert(\\"x\\")</script>'),
      'the raw JSON carries the characters unescaped as HTML',
    );
    t.notOk(list.text.includes('&lt;') || list.text.includes('&amp;amp;'), 'no HTML entities were introduced');
    t.same(
      ((await waitingApi.list(d, room)).body as { name: string; note: string }[])
        .filter((i) => i.name === name)
        .map((i) => i.note),
      [note],
      'the rooms API returns the same text',
    );
    t.ok(
      (await timeline(d, room)).some((e) => e.kind === 'knock' && e.subject?.name === name),
      'the timeline keeps it as typed',
    );
  });

  t.test('the cookie: HttpOnly, SameSite=Lax, scoped to the room, unguessable', async (t) => {
    const [a, b] = [new Browser(d, room), new Browser(d, room)];
    t.equal((await a.knock({ name: 'Cookie A', access_code: code })).status, 202);
    t.equal((await b.knock({ name: 'Cookie B', access_code: code })).status, 202);
    const cookie = a.lastSetCookie!;
    t.ok(cookie, `Set-Cookie: ${cookie?.raw}`);
    t.equal(cookie.name, 'meet_wait');
    t.equal(cookie.attributes.httponly, true, 'HttpOnly');
    t.match(String(cookie.attributes.samesite), /^lax$/i, 'SameSite=Lax');
    t.equal(cookie.attributes.path, `/room/${room}`, 'Path=/room/{id}');
    t.notOk('domain' in cookie.attributes, 'no Domain attribute');
    t.match(cookie.value, /^[A-Za-z0-9_-]+$/, 'base64url');
    t.ok(cookie.value.length >= 22, `at least 128 bits: ${cookie.value.length} characters`);
    t.not(a.cookie, b.cookie, 'two browsers, two cookies');
    const ids = (await waitingApi.list(d, room)).body.map((i: { request_id: string }) => i.request_id) as string[];
    t.ok(
      ids.every((id) => /^[A-Za-z0-9_-]{22,}$/.test(id)),
      'request ids are at least 128 bits too',
    );
    t.notOk(ids.includes(a.cookie!), 'the cookie is not the request id');

    // Room A's cookie means nothing in room B, even sent there by hand.
    const elsewhere = new Browser(d, 'other-room');
    elsewhere.setCookie(a.cookie, '/room/other-room');
    assertError(t, await elsewhere.poll(), 404, 'not_found');
    t.equal((await elsewhere.withdraw()).status, 204, 'a leave there is harmless');
    t.same((await a.poll()).body, { status: 'waiting' }, 'and did not withdraw the request in room A');
    const forged = new Browser(d, room);
    forged.setCookie(a.cookie!.slice(0, -1) + (a.cookie!.endsWith('A') ? 'B' : 'A'));
    assertError(t, await forged.poll(), 404, 'not_found');
    forged.setCookie('short');
    assertError(t, await forged.poll(), 404, 'not_found');
    assertError(t, await new Browser(d, room).poll(), 404, 'not_found');
  });

  t.test("the moderators' gestures need a moderator session of this room", async (t) => {
    const target = new Browser(d, room);
    t.equal((await target.knock({ name: 'Target Tom', access_code: code })).status, 202);
    const targetId = (await waitingApi.list(d, room)).body.find((i: { name: string }) => i.name === 'Target Tom')
      .request_id as string;
    const otherMod = await moderator(d, 'other-room', 'Other Mod');
    const modLink = await linkToken(d, room, { role: 'moderator' });
    const gestures: [string, (session: string | null) => Promise<ApiResult>][] = [
      ['waiting-list', (s) => asSession.list(d, room, s)],
      ['admit one', (s) => asSession.admit(d, room, s, { request_id: targetId })],
      ['admit all', (s) => asSession.admit(d, room, s, { all: true })],
      ['refuse', (s) => asSession.refuse(d, room, s, { request_id: targetId, bar: true })],
      ['disable', (s) => asSession.disable(d, room, s)],
    ];
    for (const [what, gesture] of gestures) {
      const none = await gesture(null);
      assertError(t, none, 401, 'unauthorized');
      t.match(none.headers.get('www-authenticate'), /^Bearer\b/, `${what}: WWW-Authenticate`);
      assertError(t, await gesture(otherMod.session), 401, 'unauthorized');
      assertError(t, await gesture(modLink), 401, 'unauthorized');
      assertError(t, await gesture(d.adminToken), 401, 'unauthorized');
      assertError(t, await gesture('not.a.token'), 401, 'unauthorized');
      assertError(t, await gesture(participantSession), 403, 'not_moderator');
    }
    t.same((await target.poll()).body, { status: 'waiting' }, 'none of that decided anything');
    t.notOk(
      (await timeline(d, room)).some((e) => e.kind === 'waiting_room_disabled'),
      'the waiting room is still on',
    );
    t.same(
      (await asSession.admit(d, room, mod.session, { request_id: targetId })).body,
      { admitted: 1 },
      "the room's moderator may",
    );
    t.same(
      (await asSession.list(d, 'other-room', otherMod.session)).status,
      200,
      'and the other moderator in her own room',
    );
  });
});
