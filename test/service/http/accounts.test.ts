// Organiser accounts over the engine listener in-process (issue 32): one-time links, sign-in with
// its limits and equal answers, the session cookie and its CSRF defence, and the rooms an
// organiser's cookie reaches. The account commands' own behaviour is in test/service/cli/user.test.ts.
import t from 'tap';
import { appFor, type InProcess } from '../../helpers/app.js';
import { accountOrigin, sendJson, type JsonAnswer } from '../../helpers/account-http.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** The routes are under test here, not scrypt's cost (the unit test and the browser test use the real one). */
const passwordCost = { N: 1 << 10, r: 8, p: 1 };

const send = sendJson;
const origin = accountOrigin;

function cookieOf(answer: JsonAnswer): string {
  const set = [answer.headers['set-cookie']].flat().find((c) => String(c).startsWith('meet_account='));
  return /^meet_account=([^;]*)/.exec(String(set))![1]!;
}

/** An account with its password set through its one-time link, as a person would. */
async function account(d: InProcess, email: string, password: string, admin = false): Promise<void> {
  const added = await d.services.accounts.add({ email, admin });
  const set = await send(d, 'POST', '/api/password', { body: { token: added.token, password } });
  if (set.status !== 200) throw new Error(`password: ${JSON.stringify(set.body)}`);
}

async function signIn(d: InProcess, email: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const answer = await send(d, 'POST', '/api/session', { body: { email, password } });
  if (answer.status !== 200) throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { cookie: cookieOf(answer), csrf: answer.body.csrf_token };
}

const changing = (s: { cookie: string; csrf: string }) => ({
  cookie: s.cookie,
  headers: { origin, 'x-csrf-token': s.csrf },
});

t.test('one-time link, sign-in, /api/me and sign-out', async (t) => {
  const d = await appFor(t, { passwordCost });
  const added = await d.services.accounts.add({ email: 'Ana@School.example', name: 'Ana Lehrerin' });
  t.equal(added.account.email, 'ana@school.example', 'the email is kept in lower case');

  const weak = await send(d, 'POST', '/api/password', { body: { token: added.token, password: 'password1234' } });
  t.match(weak, { status: 400, body: { error: { code: 'invalid_field', field: 'password' } } }, 'a common password');
  const short = await send(d, 'POST', '/api/password', { body: { token: added.token, password: 'Kurz-1' } });
  t.match(short, { status: 400, body: { error: { code: 'invalid_field', field: 'password' } } }, 'under 12');
  t.match(short.body.error.message, /at least 12/);
  const run = await send(d, 'POST', '/api/password', { body: { token: added.token, password: 'qwertyuiopasdf' } });
  t.match(run, { status: 400, body: { error: { field: 'password' } } }, 'a keyboard run');

  const set = await send(d, 'POST', '/api/password', { body: { token: added.token, password: 'Heftklammer-Tafel-7' } });
  t.match(set, { status: 200, body: { account: { email: 'ana@school.example', name: 'Ana Lehrerin', admin: false } } });
  t.notOk(JSON.stringify(set.body).includes('scrypt'), 'no hash leaves the service');
  const again = await send(d, 'POST', '/api/password', {
    body: { token: added.token, password: 'Another-long-one-9' },
  });
  t.match(again, { status: 410, body: { error: { code: 'link_invalid' } } }, 'the link works once');

  const signedIn = await send(d, 'POST', '/api/session', {
    body: { email: ' ANA@school.EXAMPLE ', password: 'Heftklammer-Tafel-7' },
  });
  t.equal(signedIn.status, 200);
  const setCookie = String([signedIn.headers['set-cookie']].flat()[0]);
  t.match(setCookie, /^meet_account=[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax$/);
  t.notMatch(setCookie, /Secure/, 'not Secure over plain http without an https public URL');
  const cookie = cookieOf(signedIn);

  const me = await send(d, 'GET', '/api/me', { cookie });
  t.match(me, { status: 200, body: { account: { email: 'ana@school.example', source: 'local' }, csrf_token: String } });
  t.equal(me.body.csrf_token, signedIn.body.csrf_token);
  t.equal((await send(d, 'GET', '/api/me')).status, 401, 'nobody signed in');

  const withoutToken = await send(d, 'DELETE', '/api/session', { cookie, headers: { origin } });
  t.match(withoutToken, { status: 403, body: { error: { code: 'csrf_refused' } } }, 'sign-out needs the CSRF token');
  const out = await send(d, 'DELETE', '/api/session', changing({ cookie, csrf: me.body.csrf_token }));
  t.equal(out.status, 204);
  t.match(String([out.headers['set-cookie']].flat()[0]), /^meet_account=; Max-Age=0/);
  t.equal(
    (await send(d, 'GET', '/api/me', { cookie })).status,
    401,
    'the session ended on the server (a replayed cookie)',
  );
  t.equal((await send(d, 'GET', '/api/rooms', { cookie })).status, 401);
});

t.test('the same answer for an unknown email, a wrong password, a disabled account; odd emails', async (t) => {
  const d = await appFor(t, { passwordCost });
  await account(d, 'bea@school.example', 'Korrekt-Pferd-Batterie');
  await d.services.accounts.add({ email: 'nopassword@school.example' });
  await account(d, 'gone@school.example', 'Korrekt-Pferd-Batterie');
  await d.services.accounts.disable('gone@school.example');
  const tries = [
    { email: 'nobody@school.example', password: 'Korrekt-Pferd-Batterie' },
    { email: 'bea@school.example', password: 'Korrekt-Pferd-Batteri' },
    { email: 'nopassword@school.example', password: 'Korrekt-Pferd-Batterie' },
    { email: 'gone@school.example', password: 'Korrekt-Pferd-Batterie' },
    // Odd encodings: a zero-width space, a bidi override, a NUL, two @, no @: not an address, answered alike.
    { email: 'bea\u200b@school.example', password: 'Korrekt-Pferd-Batterie' },
    { email: '\u202ebea@school.example', password: 'Korrekt-Pferd-Batterie' },
    { email: 'bea@school.example\u0000', password: 'Korrekt-Pferd-Batterie' },
    { email: 'bea@@school.example', password: 'Korrekt-Pferd-Batterie' },
    { email: 'bea', password: 'Korrekt-Pferd-Batterie' },
  ];
  const answers = [];
  for (const body of tries) answers.push(await send(d, 'POST', '/api/session', { body }));
  for (const [i, a] of answers.entries()) {
    t.equal(a.status, 401, `try ${i}`);
    t.same(a.body, answers[0]!.body, `try ${i}: the same code and message`);
    t.notOk(a.headers['set-cookie'], `try ${i}: no cookie`);
  }
  t.same(answers[0]!.body, { error: { code: 'sign_in_failed', message: 'the email or the password is not right' } });
  // A decomposed é is the composed one (NFC), and upper case is lower case.
  await account(d, 'zoé@école.example', 'Korrekt-Pferd-Batterie');
  const decomposed = await send(d, 'POST', '/api/session', {
    body: { email: 'ZOE\u0301@E\u0301COLE.example', password: 'Korrekt-Pferd-Batterie' },
  });
  t.equal(decomposed.status, 200, 'NFC and case do not make another account');
  const extra = await send(d, 'POST', '/api/session', {
    body: { email: 'bea@school.example', password: 'x', admin: true },
  });
  t.match(extra, { status: 400, body: { error: { code: 'invalid_field', field: 'admin' } } }, 'unknown fields refused');
  const notText = await send(d, 'POST', '/api/session', { body: { email: ['bea@school.example'], password: 'x' } });
  t.match(notText, { status: 400, body: { error: { code: 'invalid_field', field: 'email' } } });
  await t.rejects(d.services.accounts.add({ email: 'eve\u202e@school.example' }), {
    code: 'invalid_field',
    field: 'email',
  });
});

t.test('sign-ins are limited per account, known or not, with Retry-After (per client: the unit test)', async (t) => {
  const clock = new FakeClock();
  const d = await appFor(t, { clock, passwordCost });
  await account(d, 'cem@school.example', 'Korrekt-Pferd-Batterie');
  const wrong = (email: string, ip: string) =>
    d.app.inject({
      method: 'POST',
      url: '/api/session',
      remoteAddress: ip,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email, password: 'wrong-but-long-enough' }),
    });
  // One account from many addresses: the eleventh is refused, the right password too.
  for (let i = 0; i < 10; i++) t.equal((await wrong('cem@school.example', `10.0.0.${i + 1}`)).statusCode, 401);
  const locked = await wrong('cem@school.example', '10.0.1.1');
  t.equal(locked.statusCode, 429);
  t.match(locked.json(), { error: { code: 'too_many_sign_ins' } });
  t.ok(Number(locked.headers['retry-after']) > 0, 'Retry-After');
  const right = await d.app.inject({
    method: 'POST',
    url: '/api/session',
    remoteAddress: '10.0.1.2',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email: 'cem@school.example', password: 'Korrekt-Pferd-Batterie' }),
  });
  t.equal(right.statusCode, 429, 'the right password waits too, or guessing would go on');
  // An unknown email is limited the same way: the answer does not tell it exists.
  for (let i = 0; i < 10; i++) await wrong('nobody@school.example', `10.0.2.${i + 1}`);
  t.equal((await wrong('nobody@school.example', '10.0.3.1')).statusCode, 429, 'an unknown email too');
  clock.advance(15 * 60_000 + 1000);
  t.equal(
    (
      await d.app.inject({
        method: 'POST',
        url: '/api/session',
        remoteAddress: '10.0.1.2',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'cem@school.example', password: 'Korrekt-Pferd-Batterie' }),
      })
    ).statusCode,
    200,
    'after the window the account signs in',
  );
});

t.test('the cookie on the rooms API: CSRF, forged cookies, scope of an organiser and an admin', async (t) => {
  const d = await appFor(t, { passwordCost });
  await account(d, 'dora@school.example', 'Korrekt-Pferd-Batterie');
  await account(d, 'emil@school.example', 'Korrekt-Pferd-Batterie');
  await account(d, 'root@school.example', 'Korrekt-Pferd-Batterie', true);
  const dora = await signIn(d, 'dora@school.example', 'Korrekt-Pferd-Batterie');
  const emil = await signIn(d, 'emil@school.example', 'Korrekt-Pferd-Batterie');
  const admin = await signIn(d, 'root@school.example', 'Korrekt-Pferd-Batterie');

  const room = { room_id: 'dora-maths', name: 'Maths 7b' };
  const foreign = await send(d, 'POST', '/api/rooms', {
    body: room,
    cookie: dora.cookie,
    headers: { origin: 'https://evil.example', 'x-csrf-token': dora.csrf },
  });
  t.match(foreign, { status: 403, body: { error: { code: 'csrf_refused' } } }, 'another Origin');
  const noOrigin = await send(d, 'POST', '/api/rooms', {
    body: room,
    cookie: dora.cookie,
    headers: { 'x-csrf-token': dora.csrf },
  });
  t.equal(noOrigin.status, 403, 'no Origin');
  const noToken = await send(d, 'POST', '/api/rooms', { body: room, cookie: dora.cookie, headers: { origin } });
  t.match(noToken, { status: 403, body: { error: { code: 'csrf_refused', field: 'X-CSRF-Token' } } }, 'no CSRF token');
  const othersToken = await send(d, 'POST', '/api/rooms', {
    body: room,
    cookie: dora.cookie,
    headers: { origin, 'x-csrf-token': emil.csrf },
  });
  t.equal(othersToken.status, 403, "another session's CSRF token");
  t.equal(await d.services.rooms.find('dora-maths'), null, 'nothing was made');

  t.equal((await send(d, 'POST', '/api/rooms', { body: room, ...changing(dora) })).status, 201, 'her own page');
  t.equal(
    (await send(d, 'POST', '/api/rooms', { body: { room_id: 'emil-art', name: 'Art' }, ...changing(emil) })).status,
    201,
  );
  const byToken = await d.api('/api/rooms', {
    method: 'POST',
    body: JSON.stringify({ room_id: 'lms-1', name: 'LMS' }),
  });
  t.equal(byToken.status, 201, 'an integration with its access token');
  t.equal(
    (await d.services.rooms.get('dora-maths')).ownerAccountId,
    (await d.services.accounts.show('dora@school.example')).accountId,
  );
  t.equal((await d.services.rooms.get('lms-1')).ownerAccountId, null, 'a token room has no owner');

  const ids = async (s: { cookie: string }) =>
    (await send(d, 'GET', '/api/rooms', { cookie: s.cookie })).body.rooms.map((r: { room_id: string }) => r.room_id);
  t.same(await ids(dora), ['dora-maths'], 'she lists only hers (a GET needs no CSRF token)');
  t.same(await ids(emil), ['emil-art']);
  t.same(await ids(admin), ['dora-maths', 'emil-art', 'lms-1'], 'an admin lists every room, token rooms too');

  // Emil cannot read, change, delete, link, or start (a moderator link) Dora's room: it answers as a missing one.
  const notFound = { status: 404, body: { error: { code: 'room_not_found' } } };
  t.match(await send(d, 'GET', '/api/rooms/dora-maths', { cookie: emil.cookie }), notFound);
  t.match(await send(d, 'PATCH', '/api/rooms/dora-maths', { body: { name: 'Mine' }, ...changing(emil) }), notFound);
  t.match(
    await send(d, 'POST', '/api/rooms/dora-maths/links', { body: { role: 'moderator' }, ...changing(emil) }),
    notFound,
  );
  t.match(await send(d, 'GET', '/api/rooms/dora-maths/waiting', { cookie: emil.cookie }), notFound);
  t.match(await send(d, 'DELETE', '/api/rooms/dora-maths', changing(emil)), notFound);
  t.match(await send(d, 'GET', '/api/rooms/lms-1', { cookie: emil.cookie }), notFound, 'nor a token room');
  t.match(
    await send(d, 'POST', '/api/rooms', {
      body: { room_id: 'sneak', name: 'x', parent_room_id: 'dora-maths' },
      ...changing(emil),
    }),
    { status: 400, body: { error: { code: 'invalid_field', field: 'parent_room_id' } } },
    "no sub-group under another's room",
  );
  t.equal((await d.services.rooms.get('dora-maths')).name, 'Maths 7b');

  const link = await send(d, 'POST', '/api/rooms/dora-maths/links', { body: { role: 'moderator' }, ...changing(dora) });
  t.match(link, { status: 201, body: { url: /^\/room\/dora-maths\?t=/ } }, 'she starts her room as moderator');
  t.equal((await send(d, 'GET', '/api/rooms/emil-art', { cookie: admin.cookie })).status, 200, 'an admin reads any');
  t.equal((await send(d, 'PATCH', '/api/rooms/lms-1', { body: { name: 'LMS 2' }, ...changing(admin) })).status, 200);

  // Forged and tampered cookies are nobody; the access token still works beside them.
  for (const forged of [
    'x'.repeat(43),
    `${dora.cookie.slice(0, -1)}${dora.cookie.endsWith('A') ? 'B' : 'A'}`,
    '',
    'a;b',
  ]) {
    t.equal((await send(d, 'GET', '/api/rooms', { cookie: forged })).status, 401, `forged cookie ${forged}`);
  }

  // A disabled account's sessions end at once.
  await d.services.accounts.disable('dora@school.example');
  t.equal((await send(d, 'GET', '/api/me', { cookie: dora.cookie })).status, 401, 'disabled: signed out');
  t.equal((await send(d, 'GET', '/api/rooms', { cookie: dora.cookie })).status, 401);
});

t.test('the new routes are in the OpenAPI document with their schemas', async (t) => {
  const d = await appFor(t, { passwordCost });
  const doc = (await send(d, 'GET', '/api/openapi.json')).body;
  t.ok(doc.paths['/api/session'].post.requestBody, 'POST /api/session with its body');
  t.ok(doc.paths['/api/session'].delete);
  t.ok(doc.paths['/api/me'].get.responses['200']);
  t.ok(doc.paths['/api/password'].post.requestBody);
  t.match(doc.paths['/api/session'].post.responses['429'].description, /too_many_sign_ins/);
});

t.test('behind TLS (an https public URL) the cookie is Secure and the Origin is the public one', async (t) => {
  const d = await appFor(t, { passwordCost, env: { SERVICE_PUBLIC_URL: 'https://meet.example.org' } });
  await account(d, 'fay@school.example', 'Korrekt-Pferd-Batterie');
  const answer = await send(d, 'POST', '/api/session', {
    body: { email: 'fay@school.example', password: 'Korrekt-Pferd-Batterie' },
  });
  t.match(String([answer.headers['set-cookie']].flat()[0]), /; Secure/);
  const fay = { cookie: cookieOf(answer), csrf: answer.body.csrf_token };
  const body = { room_id: 'fay-1', name: 'Fay' };
  const own = await send(d, 'POST', '/api/rooms', { body, ...changing(fay) });
  t.equal(own.status, 403, "the request's own host is not the public origin");
  const ok = await send(d, 'POST', '/api/rooms', {
    body,
    cookie: fay.cookie,
    headers: { origin: 'https://meet.example.org', 'x-csrf-token': fay.csrf },
  });
  t.equal(ok.status, 201);
});
