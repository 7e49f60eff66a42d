// Issue 3, behaviour 1-4 and 8 against a real daemon: who waits under each scope and mode,
// admission by a moderator, the access code before the waiting room, join tokens, disabling.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { appFor, type InProcess } from '../../helpers/app.js';
import { assertError, call, type Tap } from '../../helpers/api.js';
import {
  Browser,
  asSession,
  claimsOf,
  createRoom,
  linkToken,
  moderator,
  names,
  timeline,
  waitingApi,
  type Session,
} from '../../helpers/waiting.js';

/** Start says knock, knock says 202 waiting and sets the cookie. */
async function mustKnock(t: Tap, browser: Browser, json: Record<string, unknown>, what: string): Promise<void> {
  const started = await browser.start(json);
  t.equal(started.status, 200, `${what}: start 200`);
  t.same(started.body, { status: 'knock' }, `${what}: start answers {status: knock}`);
  const knocked = await browser.knock(json);
  t.equal(knocked.status, 202, `${what}: knock 202`);
  t.same(knocked.body, { status: 'waiting' }, `${what}: knock answers {status: waiting}`);
  t.match(browser.cookie, /^[A-Za-z0-9_-]{22,}$/, `${what}: the browser holds a meet_wait cookie`);
}

/** Start (or knock) enters directly: 200 joined with a session of this room and role. */
async function mustJoin(
  t: Tap,
  browser: Browser,
  json: Record<string, unknown>,
  role: string,
  what: string,
  via: 'start' | 'knock' = 'start',
): Promise<string> {
  const entered = via === 'start' ? await browser.start(json) : await browser.knock(json);
  t.equal(entered.status, 200, `${what}: ${via} 200 (${entered.text.slice(0, 80)})`);
  t.match(entered.body, { status: 'joined', session: String, role }, `${what}: ${via} answers joined as ${role}`);
  t.equal(entered.headers.getSetCookie().length, 0, `${what}: no waiting cookie is set`);
  const claims = claimsOf(String(entered.body?.session));
  t.match(claims, { room: browser.roomId, role }, `${what}: the session names the room and the role`);
  return String(entered.body?.session);
}

onEachServiceStore('scopes and modes under SERVICE_WAITING_ROOM=optional', async (t, store) => {
  const d: InProcess = await appFor(t, { store });

  t.test('scope off: nobody waits', async (t) => {
    await createRoom(t, d, { room_id: 'scope-off', name: 'Off room', waiting_room: 'off' });
    await mustJoin(t, new Browser(d, 'scope-off'), { name: 'Bare Bea' }, 'participant', 'bare guest');
    await mustJoin(
      t,
      new Browser(d, 'scope-off'),
      { name: 'Bare Ben', note: 'hi' },
      'participant',
      'bare guest knocking',
      'knock',
    );
    const linked = await linkToken(d, 'scope-off', { role: 'participant' });
    await mustJoin(t, new Browser(d, 'scope-off'), { name: 'Linked Lou', t: linked }, 'participant', 'API link');
    t.same(
      await timeline(d, 'scope-off').then((e) => e.filter((x) => x.kind === 'knock')),
      [],
      'no knock was recorded',
    );
  });

  t.test('scope guests: bare-link guests wait, API links and moderators enter', async (t) => {
    await createRoom(t, d, { room_id: 'scope-guests', name: 'Guests room', waiting_room: 'guests' });
    const guest = new Browser(d, 'scope-guests');
    await mustKnock(t, guest, { name: 'Bare Bea' }, 'bare guest');
    const linked = await linkToken(d, 'scope-guests', { role: 'participant', name: 'Linked Lena' });
    const session = await mustJoin(
      t,
      new Browser(d, 'scope-guests'),
      { name: 'Typed name', t: linked },
      'participant',
      'API link (source integration)',
    );
    t.equal(claimsOf(session).name, 'Linked Lena', "the link's name wins over the typed one");
    await mustJoin(
      t,
      new Browser(d, 'scope-guests'),
      { name: 'Linked again', t: linked },
      'participant',
      'API link knocking',
      'knock',
    );
    const mod = await moderator(d, 'scope-guests');
    t.equal(mod.role, 'moderator', 'the moderator link enters as moderator');
    const list = await asSession.list(d, 'scope-guests', mod.session);
    t.equal(list.status, 200);
    t.same(names(list), ['Bare Bea'], 'only the bare guest waits');
    t.same((await guest.poll()).body, { status: 'waiting' }, 'her poll says waiting');
  });

  t.test('scope all: everyone but moderators waits', async (t) => {
    await createRoom(t, d, { room_id: 'scope-all', name: 'All room', waiting_room: 'all' });
    await mustKnock(t, new Browser(d, 'scope-all'), { name: 'Bare Bea' }, 'bare guest');
    const linked = await linkToken(d, 'scope-all', { role: 'participant' });
    await mustKnock(t, new Browser(d, 'scope-all'), { name: 'Linked Lou', t: linked }, 'API link (source integration)');
    const modLink = await linkToken(d, 'scope-all', { role: 'moderator' });
    await mustJoin(t, new Browser(d, 'scope-all'), { name: 'Mod One', t: modLink }, 'moderator', 'moderator link');
    await mustJoin(
      t,
      new Browser(d, 'scope-all'),
      { name: 'Mod Two', t: modLink },
      'moderator',
      'moderator link knocking',
      'knock',
    );
    const mod = await moderator(d, 'scope-all', 'Mod Three');
    t.same(
      names(await asSession.list(d, 'scope-all', mod.session)),
      ['Bare Bea', 'Linked Lou'],
      'both wait, in knock order',
    );
  });

  t.test('a moderator never waits, whatever the scope and mode', async (t) => {
    for (const scope of ['off', 'guests', 'all']) {
      for (const mode of ['approval', 'until_moderator']) {
        const id = `mod-${scope}-${mode}`;
        await createRoom(t, d, { room_id: id, name: 'Moderated', waiting_room: scope, waiting_room_mode: mode });
        // Someone waits first where that is possible, so the moderator arrives at a room with a queue.
        if (scope !== 'off') await new Browser(d, id).knock({ name: 'Early Eve' });
        const t1 = await linkToken(d, id, { role: 'moderator' });
        await mustJoin(t, new Browser(d, id), { name: 'Mod', t: t1 }, 'moderator', `${scope}/${mode}: start`);
        await mustJoin(t, new Browser(d, id), { name: 'Mod', t: t1 }, 'moderator', `${scope}/${mode}: knock`, 'knock');
      }
    }
  });

  t.test('approval: admit one by request_id, then all', async (t) => {
    const room = 'approval';
    await createRoom(t, d, {
      room_id: room,
      name: 'Approval room',
      waiting_room: 'all',
      waiting_room_mode: 'approval',
    });
    const mod = await moderator(d, room);
    const [ann, bob, cid] = [new Browser(d, room), new Browser(d, room), new Browser(d, room)];
    await mustKnock(t, ann, { name: 'Ann', note: 'from sales' }, 'Ann');
    await mustKnock(t, bob, { name: 'Bob' }, 'Bob (a moderator is present, still waits in approval mode)');
    await mustKnock(t, cid, { name: 'Cid' }, 'Cid');
    const again = await ann.knock({ name: 'Ann', note: 'from sales' });
    t.equal(again.status, 202, 'knocking again with a waiting cookie answers 202');

    const list = await asSession.list(d, room, mod.session);
    t.equal(list.status, 200);
    t.match(list.body, [
      { request_id: String, name: 'Ann', note: 'from sales', knocked_at: String },
      { request_id: String, name: 'Bob', note: '' },
      { request_id: String, name: 'Cid', note: '' },
    ]);
    t.equal(list.body.length, 3, 'the second knock did not add a request');
    t.same(
      Object.keys(list.body[0]).sort(),
      ['knocked_at', 'name', 'note', 'request_id'],
      'items carry exactly request_id, name, note, knocked_at',
    );
    const ids = list.body.map((item: { request_id: string }) => item.request_id);

    const admitted = await asSession.admit(d, room, mod.session, { request_id: ids[0] });
    t.equal(admitted.status, 200);
    t.same(admitted.body, { admitted: 1 });
    const polled = await ann.poll();
    t.equal(polled.status, 200);
    t.match(polled.body, { status: 'admitted', session: String });
    const annClaims = claimsOf(polled.body.session);
    t.match(annClaims, { room, role: 'participant', name: 'Ann' }, "Ann's session: room, participant, her name");
    assertError(t, await asSession.list(d, room, polled.body.session), 403, 'not_moderator');
    t.same((await bob.poll()).body, { status: 'waiting' }, 'Bob still waits');
    t.same(names(await asSession.list(d, room, mod.session)), ['Bob', 'Cid'], 'Ann left the list');
    t.same(
      (await asSession.admit(d, room, mod.session, { request_id: ids[0] })).body,
      { admitted: 0 },
      'a second click admits nobody',
    );
    assertError(
      t,
      await asSession.admit(d, room, mod.session, { request_id: 'no-such-request' }),
      404,
      'request_not_found',
    );

    const all = await asSession.admit(d, room, mod.session, { all: true });
    t.equal(all.status, 200);
    t.same(all.body, { admitted: 2 });
    for (const [who, browser] of [
      ['Bob', bob],
      ['Cid', cid],
    ] as const) {
      const p = await browser.poll();
      t.equal(p.body?.status, 'admitted', `${who} admitted`);
      t.equal(claimsOf(p.body.session).name, who);
    }
    t.same((await asSession.list(d, room, mod.session)).body, [], 'nobody waits');
    t.same(
      (await asSession.admit(d, room, mod.session, { all: true })).body,
      { admitted: 0 },
      'admit all with nobody waiting',
    );
    await mustKnock(t, new Browser(d, room), { name: 'Dee' }, 'a later arrival still waits');
  });

  t.test(
    'until_moderator: the waiting enter with the moderator; later arrivals enter while one is present',
    async (t) => {
      const room = 'until-mod';
      await createRoom(t, d, {
        room_id: room,
        name: 'Until room',
        waiting_room: 'all',
        waiting_room_mode: 'until_moderator',
      });
      const [ann, bob] = [new Browser(d, room), new Browser(d, room)];
      await mustKnock(t, ann, { name: 'Ann' }, 'Ann before any moderator');
      await mustKnock(t, bob, { name: 'Bob' }, 'Bob before any moderator');
      t.same((await ann.poll()).body, { status: 'waiting' });

      const mod1 = await moderator(d, room, 'Mod One');
      const annPoll = await ann.poll();
      t.match(annPoll.body, { status: 'admitted', session: String }, 'Ann was admitted when the moderator entered');
      t.match((await bob.poll()).body, { status: 'admitted', session: String }, 'so was Bob');
      const annSession = String(annPoll.body.session);
      const kinds = (await timeline(d, room)).map((e) => e.kind);
      t.same(
        kinds,
        ['knock', 'knock', 'moderator_arrived', 'admit_all'],
        'timeline: knocks, the arrival, the admission',
      );
      t.match(
        (await timeline(d, room)).at(-1),
        { kind: 'admit_all', actor: null, count: 2 },
        'nobody decided: actor null, count 2',
      );

      await mustJoin(t, new Browser(d, room), { name: 'Cid' }, 'participant', 'Cid while a moderator is present');
      await mustJoin(
        t,
        new Browser(d, room),
        { name: 'Dee' },
        'participant',
        'Dee knocking while a moderator is present',
        'knock',
      );
      const mod2 = await moderator(d, room, 'Mod Two');

      const left1 = await asSession.leave(d, room, mod1.session);
      t.equal(left1.status, 204, 'the first moderator leaves');
      await mustJoin(
        t,
        new Browser(d, room),
        { name: 'Eli' },
        'participant',
        'Eli while the second moderator is still present',
      );
      t.equal((await asSession.leave(d, room, mod2.session)).status, 204, 'the last moderator leaves');

      // Those present stay: Ann's session is still accepted (a 403 for a participant, not 401).
      assertError(t, await asSession.list(d, room, annSession), 403, 'not_moderator');
      t.match((await ann.poll()).body, { status: 'admitted', session: String }, "Ann's poll still answers admitted");

      const fay = new Browser(d, room);
      await mustKnock(t, fay, { name: 'Fay' }, 'Fay after the last moderator left');
      t.same((await fay.poll()).body, { status: 'waiting' }, 'Fay waits');
      t.equal((await asSession.leave(d, room, annSession)).status, 204, "Ann's session still works for leave");

      await moderator(d, room, 'Mod Three');
      t.match((await fay.poll()).body, { status: 'admitted' }, 'a returning moderator admits Fay');
    },
  );

  t.test('names that hide text or pass for the service or a role: 400 invalid_field (name)', async (t) => {
    const room = 'names';
    await createRoom(t, d, { room_id: room, name: 'Names room', waiting_room: 'all' });
    const mod = await moderator(d, room);
    for (const name of [
      'Bob\u202Eredmo',
      '\u2067Eve\u2069',
      'Ada\u200B',
      'System',
      '\uFF33\uFF39\uFF33\uFF34\uFF25\uFF2D',
      'Bob (Moderator) ',
    ]) {
      const browser = new Browser(d, room);
      assertError(t, await browser.start({ name }), 400, 'invalid_field', 'name');
      assertError(t, await browser.knock({ name }), 400, 'invalid_field', 'name');
      t.equal(browser.cookie, null, `${JSON.stringify(name)}: no waiting cookie`);
    }
    assertError(
      t,
      await new Browser(d, room).knock({ name: 'Ann', note: 'late \u202Etoday' }),
      400,
      'invalid_field',
      'note',
    );
    t.same(names(await asSession.list(d, room, mod.session)), [], 'nothing reached the moderator');
    assertError(
      t,
      await call(d, `/api/rooms/${room}/links`, {
        method: 'POST',
        json: { role: 'participant', name: 'Bob (moderator)' },
      }),
      400,
      'invalid_field',
      'name',
    );
    await mustKnock(
      t,
      new Browser(d, room),
      { name: 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}' },
      'a ZWJ emoji between visible characters',
    );
  });

  t.test('access code first, waiting room second', async (t) => {
    const room = 'coded';
    const code = 'open-sesame-1';
    await createRoom(t, d, { room_id: room, name: 'Coded room', waiting_room: 'guests', access_code: code });
    const mod = await moderator(d, room);
    const guessing = new Browser(d, room, { forwardedFor: '10.0.0.1' });
    t.same((await guessing.exists()).body, { exists: true, access_code: true });

    const wrong = await guessing.knock({ name: 'Guesser', access_code: 'wrong-1' });
    assertError(t, wrong, 403, 'access_code_invalid', 'access_code');
    t.equal(wrong.headers.getSetCookie().length, 0, 'no cookie is set for a wrong code');
    assertError(
      t,
      await guessing.start({ name: 'Guesser', access_code: 'wrong-2' }),
      403,
      'access_code_invalid',
      'access_code',
    );
    assertError(t, await guessing.knock({ name: 'Guesser' }), 403, 'access_code_invalid', 'access_code');
    t.same((await asSession.list(d, room, mod.session)).body, [], 'no moderator sees anything');
    t.same(
      (await timeline(d, room)).map((e) => e.kind),
      ['moderator_arrived'],
      'the timeline has no knock',
    );

    for (let i = 3; i <= 10; i++) {
      const attempt = await guessing.knock({ name: 'Guesser', access_code: `wrong-${i}` });
      t.equal(attempt.status, 403, `wrong code ${i}: 403`);
    }
    const blocked = await guessing.knock({ name: 'Guesser', access_code: code });
    assertError(t, blocked, 429, 'too_many_attempts');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    t.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600,
      `Retry-After is 1..600 s: ${blocked.headers.get('retry-after')}`,
    );
    const blockedStart = await guessing.start({ name: 'Guesser', access_code: code });
    assertError(t, blockedStart, 429, 'too_many_attempts');
    t.ok(blockedStart.headers.get('retry-after'), 'start answers Retry-After too');
    t.same((await asSession.list(d, room, mod.session)).body, [], 'still nothing for the moderator');

    const other = new Browser(d, room, { forwardedFor: '10.0.0.2' });
    const right = await other.start({ name: 'Honest Hal', access_code: code });
    t.same(right.body, { status: 'knock' }, 'another client with the right code is told to knock');
    const knocked = await other.knock({ name: 'Honest Hal', access_code: code });
    t.equal(knocked.status, 202, 'and waits');
    t.same(
      names(await asSession.list(d, room, mod.session)),
      ['Honest Hal'],
      'only the right code reached the moderator',
    );

    await createRoom(t, d, {
      room_id: 'coded-2',
      name: 'Other coded',
      waiting_room: 'guests',
      access_code: 'second-code',
    });
    const elsewhere = new Browser(d, 'coded-2', { forwardedFor: '10.0.0.1' });
    assertError(
      t,
      await elsewhere.knock({ name: 'Guesser', access_code: 'nope' }),
      403,
      'access_code_invalid',
      'access_code',
    );
    t.equal(
      (await elsewhere.knock({ name: 'Guesser', access_code: 'second-code' })).status,
      202,
      'the limit is per room',
    );
  });

  t.test('join tokens are checked', async (t) => {
    await createRoom(t, d, { room_id: 'tok-a', name: 'Token A', waiting_room: 'guests' });
    await createRoom(t, d, { room_id: 'tok-b', name: 'Token B', waiting_room: 'guests' });
    const ofA = await linkToken(d, 'tok-a', { role: 'moderator' });
    const atB = new Browser(d, 'tok-b');
    assertError(t, await atB.start({ name: 'X', t: ofA }), 403, 'join_token_invalid', 't');
    assertError(t, await atB.knock({ name: 'X', t: ofA }), 403, 'join_token_invalid', 't');
    assertError(t, await atB.start({ name: 'X', t: 'garbage.not.ajwt' }), 403, 'join_token_invalid', 't');
    assertError(t, await atB.knock({ name: 'X', t: 'garbage' }), 403, 'join_token_invalid', 't');
    assertError(t, await atB.start({ name: 'X', t: 42 }), 403, 'join_token_invalid', 't');
    const tampered = ofA.slice(0, -2) + (ofA.endsWith('AA') ? 'BB' : 'AA');
    assertError(t, await new Browser(d, 'tok-a').start({ name: 'X', t: tampered }), 403, 'join_token_invalid', 't');
    // A session is not a join token, even of the right room.
    const modA = await new Browser(d, 'tok-a').start({ name: 'Mod A', t: ofA });
    assertError(
      t,
      await new Browser(d, 'tok-a').start({ name: 'X', t: modA.body.session }),
      403,
      'join_token_invalid',
      't',
    );
    const bList = await waitingApi.list(d, 'tok-b');
    t.same(bList.body, [], 'nothing reached room B');
  });

  t.test('disable the waiting room: the waiting enter, later arrivals do not wait', async (t) => {
    const room = 'disable';
    await createRoom(t, d, { room_id: room, name: 'Disable room', waiting_room: 'all' });
    const mod: Session = await moderator(d, room);
    const [ann, bob] = [new Browser(d, room), new Browser(d, room)];
    await mustKnock(t, ann, { name: 'Ann' }, 'Ann');
    await mustKnock(t, bob, { name: 'Bob' }, 'Bob');
    const disabled = await asSession.disable(d, room, mod.session);
    t.equal(disabled.status, 200);
    t.same(disabled.body, { admitted: 2 });
    t.match((await ann.poll()).body, { status: 'admitted', session: String });
    t.match((await bob.poll()).body, { status: 'admitted', session: String });
    await mustJoin(t, new Browser(d, room), { name: 'Cid' }, 'participant', 'Cid after disable');
    await mustJoin(t, new Browser(d, room), { name: 'Dee' }, 'participant', 'Dee knocking after disable', 'knock');
    t.same((await asSession.list(d, room, mod.session)).body, []);
    const entries = await timeline(d, room);
    t.match(entries.slice(-2), [
      {
        kind: 'waiting_room_disabled',
        actor: { kind: 'participant', participant_id: mod.participantId, name: mod.name },
      },
      { kind: 'admit_all', count: 2, actor: { participant_id: mod.participantId } },
    ]);
    t.same((await asSession.disable(d, room, mod.session)).body, { admitted: 0 }, 'disabling twice is harmless');
  });
});

onEachServiceStore('SERVICE_WAITING_ROOM=forced: the waiting room cannot be disabled', async (t, store) => {
  const d = await appFor(t, { store, env: { SERVICE_WAITING_ROOM: 'forced' } });
  await createRoom(t, d, { room_id: 'forced', name: 'Forced room' });
  const mod = await moderator(d, 'forced');
  t.equal(mod.role, 'moderator', 'a moderator enters directly under forced');
  const ann = new Browser(d, 'forced');
  await mustKnock(t, ann, { name: 'Ann' }, 'Ann');
  assertError(t, await asSession.disable(d, 'forced', mod.session), 409, 'waiting_room_forced');
  assertError(t, await waitingApi.disable(d, 'forced'), 409, 'waiting_room_forced');
  t.same((await ann.poll()).body, { status: 'waiting' }, 'Ann still waits');
  await mustKnock(t, new Browser(d, 'forced'), { name: 'Bob' }, 'later arrivals still wait');
  t.notOk(
    (await timeline(d, 'forced')).some((e) => e.kind === 'waiting_room_disabled'),
    'no disable was recorded',
  );
});
