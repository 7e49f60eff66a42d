// "My rooms" over the engine listener in-process (issue 32 point 3): the rooms answer names its
// owner, an admin hands a room to another organiser by email, an organiser cannot (nor reach
// another's room: 404 as for a missing one), writes need the Origin and the CSRF token, and bad
// input names its field. The page itself is in test/e2e/my-rooms.test.ts, its state in
// test/unit/web/state/my-rooms.test.ts.
import t from 'tap';
import { accountOrigin, sendJson, type JsonAnswer } from '../../helpers/account-http.js';
import { appFor, type InProcess } from '../../helpers/app.js';

const passwordCost = { N: 1 << 10, r: 8, p: 1 };

interface Session {
  cookie: string;
  csrf: string;
}

/** A request with a session: its cookie, and on writes the CSRF token and the Origin unless told otherwise. */
function send(
  d: InProcess,
  method: string,
  url: string,
  options: { body?: unknown; session?: Session; csrf?: string | null; origin?: string | null } = {},
): Promise<JsonAnswer> {
  const headers: Record<string, string> = {};
  if (options.session) {
    const csrf = options.csrf === undefined ? options.session.csrf : options.csrf;
    if (csrf !== null) headers['x-csrf-token'] = csrf;
    const from = options.origin === undefined ? accountOrigin : options.origin;
    if (from !== null) headers.origin = from;
  }
  return sendJson(d, method, url, {
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.session ? { cookie: options.session.cookie } : {}),
    headers,
  });
}

/** An account whose password is set through its one-time link, signed in. */
async function signedIn(d: InProcess, email: string, admin = false): Promise<Session> {
  const password = 'Heftklammer-Tafel-7';
  const added = await d.services.accounts.add({ email, admin });
  const set = await send(d, 'POST', '/api/password', { body: { token: added.token, password } });
  if (set.status !== 200) throw new Error(`password: ${JSON.stringify(set.body)}`);
  const answer = await sendJson(d, 'POST', '/api/session', { body: { email, password } });
  const cookie = [answer.headers['set-cookie']].flat().find((c) => String(c).startsWith('meet_account='));
  return { cookie: /^meet_account=([^;]*)/.exec(String(cookie))![1]!, csrf: answer.body.csrf_token };
}

t.test('owners in the answer; an admin hands a room over by email; scope follows', async (t) => {
  const d = await appFor(t, { passwordCost });
  const dora = await signedIn(d, 'dora@school.example');
  const emil = await signedIn(d, 'emil@school.example');
  const admin = await signedIn(d, 'head@school.example', true);
  const doraId = (await d.services.accounts.show('dora@school.example')).accountId;
  const emilId = (await d.services.accounts.show('emil@school.example')).accountId;

  const made = await send(d, 'POST', '/api/rooms', { body: { name: 'Maths 7b' }, session: dora });
  t.equal(made.status, 201);
  t.match(made.body, { owner_account_id: doraId, owner_email: 'dora@school.example' }, 'her room names her');
  const id: string = made.body.room_id;
  t.match(id, /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/, 'a readable id when none is chosen');
  const sub = await send(d, 'POST', '/api/rooms', { body: { name: 'Group 1', parent_room_id: id }, session: dora });
  t.equal(sub.status, 201);
  await d.api('/api/rooms', { method: 'POST', body: JSON.stringify({ room_id: 'lms-1', name: 'LMS' }) });

  const all = await send(d, 'GET', '/api/rooms', { session: admin });
  const lms = all.body.rooms.find((r: { room_id: string }) => r.room_id === 'lms-1');
  t.match(lms, { owner_account_id: null, owner_email: null }, 'an admin sees the token room, with no owner');

  // An organiser may not hand her room over; the field is named.
  const hers = await send(d, 'PATCH', `/api/rooms/${id}`, {
    body: { owner_email: 'emil@school.example' },
    session: dora,
  });
  t.match(hers, { status: 403, body: { error: { code: 'forbidden', field: 'owner_email' } } });
  t.equal((await d.services.rooms.get(id)).ownerAccountId, doraId, 'still hers');

  const unknown = await send(d, 'PATCH', `/api/rooms/${id}`, {
    body: { owner_email: 'nobody@school.example' },
    session: admin,
  });
  t.match(unknown, { status: 400, body: { error: { code: 'invalid_field', field: 'owner_email' } } });
  t.match(unknown.body.error.message, /nobody@school\.example/);
  const notText = await send(d, 'PATCH', `/api/rooms/${id}`, { body: { owner_email: 7 }, session: admin });
  t.match(notText, { status: 400, body: { error: { code: 'invalid_field', field: 'owner_email' } } });

  const handed = await send(d, 'PATCH', `/api/rooms/${id}`, {
    body: { owner_email: 'EMIL@school.example', name: 'Maths 8b' },
    session: admin,
  });
  t.match(handed, {
    status: 200,
    body: { name: 'Maths 8b', owner_account_id: emilId, owner_email: 'emil@school.example' },
  });
  t.equal((await d.services.rooms.get(sub.body.room_id)).ownerAccountId, emilId, 'its sub-group goes with it');

  const ids = async (s: Session) =>
    (await send(d, 'GET', '/api/rooms', { session: s })).body.rooms.map((r: { room_id: string }) => r.room_id);
  t.same(await ids(dora), [], 'no longer in her list');
  t.same(await ids(emil), [id, sub.body.room_id].sort(), 'in his');
  const notFound = { status: 404, body: { error: { code: 'room_not_found' } } };
  t.match(await send(d, 'GET', `/api/rooms/${id}`, { session: dora }), notFound, 'she cannot read it now');
  t.match(await send(d, 'PATCH', `/api/rooms/${id}`, { body: { name: 'x' }, session: dora }), notFound);
  t.match(await send(d, 'POST', `/api/rooms/${id}/links`, { body: { role: 'moderator' }, session: dora }), notFound);
  t.match(await send(d, 'DELETE', `/api/rooms/${id}`, { session: dora }), notFound);
  t.match(await send(d, 'GET', '/api/rooms/no-such-room', { session: dora }), notFound, 'the same as a missing room');
  const link = await send(d, 'POST', `/api/rooms/${id}/links`, { body: { role: 'moderator' }, session: emil });
  t.equal(link.status, 201, 'he gets a moderator link');

  // An access token (an integration) may hand a room to an organiser too.
  const byToken = await d.api('/api/rooms/lms-1', {
    method: 'PATCH',
    body: JSON.stringify({ owner_email: 'dora@school.example' }),
  });
  t.equal(byToken.status, 200);
  t.same(await ids(dora), ['lms-1']);
});

t.test('writes need the Origin and the CSRF token; bad input names its field', async (t) => {
  const d = await appFor(t, { passwordCost });
  const dora = await signedIn(d, 'dora@school.example');
  const id = (await send(d, 'POST', '/api/rooms', { body: { name: 'Art' }, session: dora })).body.room_id as string;
  const refused = { status: 403, body: { error: { code: 'csrf_refused' } } };
  for (const [method, url, body] of [
    ['POST', '/api/rooms', { name: 'Other' }],
    ['PATCH', `/api/rooms/${id}`, { name: 'Changed' }],
    ['POST', `/api/rooms/${id}/links`, { role: 'moderator' }],
    ['DELETE', `/api/rooms/${id}`, undefined],
  ] as const) {
    t.match(
      await send(d, method, url, { body, session: dora, csrf: null }),
      refused,
      `${method} ${url} without the token`,
    );
    t.match(
      await send(d, method, url, { body, session: dora, origin: 'https://evil.example' }),
      refused,
      `${method} ${url} from another origin`,
    );
  }
  t.equal((await d.services.rooms.get(id)).name, 'Art', 'nothing changed');
  t.equal((await send(d, 'GET', '/api/rooms', { session: dora })).body.rooms.length, 1, 'nothing made');

  const long = await send(d, 'PATCH', `/api/rooms/${id}`, { body: { name: 'x'.repeat(201) }, session: dora });
  t.match(long, { status: 400, body: { error: { code: 'invalid_field', field: 'name' } } });
  t.match(long.body.error.message, /name/);
  const ttl = await send(d, 'POST', '/api/rooms', { body: { name: 'A', moderator_link_ttl_secs: 5 }, session: dora });
  t.match(ttl, { status: 400, body: { error: { code: 'invalid_field', field: 'moderator_link_ttl_secs' } } });
  t.equal((await send(d, 'DELETE', `/api/rooms/${id}`, { session: dora })).status, 204, 'with both: deleted');
});
