import t from 'tap';
import { appFor, type InProcess } from '../../helpers/app.js';
import { assertError, call, rooms } from '../../helpers/api.js';

const base = { room_id: 'standup', name: 'Daily stand-up' };

t.test('rooms API under the default policy', async (t) => {
  const d: InProcess = await appFor(t);

  t.test('create, get, list, patch, delete', async (t) => {
    const created = await rooms.create(d, {
      room_id: 'crud-1',
      name: 'Board meeting',
      waiting_room: 'guests',
      waiting_room_mode: 'until_moderator',
      waiting_room_timeout_secs: 120,
    });
    t.equal(created.status, 201);
    t.match(created.body, {
      room_id: 'crud-1',
      name: 'Board meeting',
      waiting_room: 'guests',
      waiting_room_mode: 'until_moderator',
      waiting_room_timeout_secs: 120,
      access_code_set: false,
      created_at: String,
      updated_at: String,
    });
    t.ok(Number.isFinite(Date.parse(created.body.created_at)), 'created_at is a timestamp');

    const fetched = await rooms.get(d, 'crud-1');
    t.equal(fetched.status, 200);
    t.same(fetched.body, created.body, 'GET returns the created record');

    const listed = await rooms.list(d);
    t.equal(listed.status, 200);
    t.same(
      listed.body.rooms.find((r: { room_id: string }) => r.room_id === 'crud-1'),
      created.body,
      'list holds the record',
    );

    const patched = await rooms.patch(d, 'crud-1', {
      name: 'Renamed',
      waiting_room: 'all',
      waiting_room_timeout_secs: 3600,
    });
    t.equal(patched.status, 200);
    t.match(patched.body, {
      room_id: 'crud-1',
      name: 'Renamed',
      waiting_room: 'all',
      waiting_room_mode: 'until_moderator',
      waiting_room_timeout_secs: 3600,
    });
    t.equal(patched.body.created_at, created.body.created_at, 'created_at unchanged');
    t.same((await rooms.get(d, 'crud-1')).body, patched.body, 'PATCH is stored');

    assertError(t, await rooms.patch(d, 'crud-1', { room_id: 'other' }), 400, 'invalid_field', 'room_id');

    const deleted = await rooms.delete(d, 'crud-1');
    t.equal(deleted.status, 204);
    t.equal(deleted.text, '');
    assertError(t, await rooms.get(d, 'crud-1'), 404, 'room_not_found');
  });

  t.test('defaults: waiting_room off, mode approval, timeout 600, no access code', async (t) => {
    const created = await rooms.create(d, { room_id: 'defaults', name: 'Defaults' });
    t.equal(created.status, 201);
    t.match(created.body, {
      waiting_room: 'off',
      waiting_room_mode: 'approval',
      waiting_room_timeout_secs: 600,
      access_code_set: false,
    });
  });

  t.test('waiting_room_timeout_secs bounds', async (t) => {
    for (const [value, ok] of [
      [30, true],
      [3600, true],
      [29, false],
      [3601, false],
      [30.5, false],
      ['600', false],
      [null, false],
    ] as const) {
      const id = `timeout-${String(value).replace(/\W/g, '_')}`;
      const created = await rooms.create(d, { room_id: id, name: 'Timeout', waiting_room_timeout_secs: value });
      if (ok) {
        t.equal(created.status, 201, `${value} accepted`);
        t.equal(created.body.waiting_room_timeout_secs, value);
      } else {
        assertError(t, created, 400, 'invalid_field', 'waiting_room_timeout_secs');
        assertError(
          t,
          await rooms.patch(d, 'timeout-30', { waiting_room_timeout_secs: value }),
          400,
          'invalid_field',
          'waiting_room_timeout_secs',
        );
      }
    }
    t.equal((await rooms.get(d, 'timeout-30')).body.waiting_room_timeout_secs, 30, 'refused PATCHes changed nothing');
  });

  t.test('room_id and name bounds', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ room_id: 'a/b', name: 'x' }, 'room_id'],
      [{ room_id: 'a'.repeat(65), name: 'x' }, 'room_id'],
      [{ room_id: '', name: 'x' }, 'room_id'],
      [{ room_id: 'has space', name: 'x' }, 'room_id'],
      // A room without room_id gets a readable one (issue 32 point 5: test/service/http/home-page.test.ts).
      [{ room_id: 'no-name' }, 'name'],
      [{ room_id: 'empty-name', name: '' }, 'name'],
      [{ room_id: 'long-name', name: 'n'.repeat(201) }, 'name'],
      [{ room_id: 'num-name', name: 7 }, 'name'],
      [{ ...base, waiting_room: 'some' }, 'waiting_room'],
      [{ ...base, waiting_room_mode: 'vote' }, 'waiting_room_mode'],
      [{ ...base, colour: 'red' }, 'colour'],
      [{ ...base, access_code: 'abc' }, 'access_code'],
      [{ ...base, access_code: 'c'.repeat(65) }, 'access_code'],
    ];
    for (const [body, field] of cases) {
      t.test(`${JSON.stringify(body).slice(0, 80)} → 400 ${field}`, async (t) => {
        assertError(t, await rooms.create(d, body), 400, 'invalid_field', field);
      });
    }
    t.test('the largest values are accepted', async (t) => {
      const id = `${'a'.repeat(60)}.-_9`;
      const created = await rooms.create(d, { room_id: id, name: 'n'.repeat(200), access_code: '1234' });
      t.equal(created.status, 201);
      t.equal(created.body.room_id, id);
      t.equal(created.body.access_code_set, true);
      t.equal((await rooms.get(d, id)).status, 200, 'GET by a 64-character id');
    });
  });

  t.test('the access code is never echoed', async (t) => {
    const code = 'sesame-4711-secret';
    const texts: string[] = [];
    const created = await rooms.create(d, { room_id: 'coded', name: 'Coded', access_code: code });
    t.equal(created.status, 201);
    t.equal(created.body.access_code_set, true);
    const fetched = await rooms.get(d, 'coded');
    t.equal(fetched.body.access_code_set, true);
    const listed = await rooms.list(d, '?limit=200');
    t.equal(listed.body.rooms.find((r: { room_id: string }) => r.room_id === 'coded').access_code_set, true);
    const renamed = await rooms.patch(d, 'coded', { name: 'Still coded' });
    t.equal(renamed.body.access_code_set, true, 'a PATCH without access_code keeps it');
    const changed = await rooms.patch(d, 'coded', { access_code: `${code}-2` });
    t.equal(changed.body.access_code_set, true);
    const cleared = await rooms.patch(d, 'coded', { access_code: null });
    t.equal(cleared.status, 200);
    t.equal(cleared.body.access_code_set, false, 'PATCH access_code null clears it');
    t.equal((await rooms.get(d, 'coded')).body.access_code_set, false);
    texts.push(created.text, fetched.text, listed.text, renamed.text, changed.text, cleared.text);
    for (const text of texts) {
      t.notOk(text.includes(code), `no response contains the code: ${text.slice(0, 60)}`);
      t.notOk(text.includes('scrypt'), 'nor its hash');
      t.notOk(/"access_code"/.test(text), 'nor a field access_code');
    }
    assertError(
      t,
      await rooms.create(d, { room_id: 'null-code', name: 'x', access_code: null }),
      400,
      'invalid_field',
      'access_code',
    );
  });

  t.test('framing errors', async (t) => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      call(d, '/api/rooms', { method: 'POST', body, headers });
    assertError(t, await post('{"room_id": "x",'), 400, 'invalid_json');
    assertError(t, await post(''), 400, 'invalid_json');
    assertError(t, await post('[1, 2]'), 400, 'invalid_field', 'body');
    const big = JSON.stringify({ ...base, room_id: 'big', name: 'x'.repeat(65 * 1024) });
    assertError(t, await post(big), 413, 'body_too_large');
    assertError(t, await post(JSON.stringify(base), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    assertError(
      t,
      await call(d, '/api/rooms/standup', {
        method: 'PATCH',
        body: '{}',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported_media_type',
    );
    t.equal((await rooms.get(d, 'big')).status, 404, 'nothing was created');
  });

  t.test('authentication', async (t) => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['no token', { token: null }, /^Bearer\b/],
      ['a wrong token', { token: 'mt_not-a-token-at-all' }, /^Bearer\b.*invalid_token/],
      ['a malformed header', { token: null, headers: { authorization: 'Basic dXNlcjpwdw==' } }, /^Bearer\b/],
    ];
    for (const [what, init, challenge] of cases) {
      for (const [method, path, json] of [
        ['GET', '/api/rooms', undefined],
        ['POST', '/api/rooms', base],
        ['DELETE', '/api/rooms/standup', undefined],
      ] as const) {
        const result = await call(d, path, { method, ...init, ...(json ? { json } : {}) });
        assertError(t, result, 401, 'unauthorized');
        t.match(result.headers.get('www-authenticate'), challenge, `${what}, ${method}: WWW-Authenticate`);
      }
    }
    t.equal((await rooms.get(d, 'standup')).status, 404, 'the unauthenticated POST created nothing');
  });

  t.test('room_not_found and room_exists', async (t) => {
    assertError(t, await rooms.get(d, 'missing'), 404, 'room_not_found');
    assertError(t, await rooms.patch(d, 'missing', { name: 'x' }), 404, 'room_not_found');
    assertError(t, await rooms.delete(d, 'missing'), 404, 'room_not_found');
    t.equal((await rooms.create(d, { room_id: 'twice', name: 'First' })).status, 201);
    assertError(t, await rooms.create(d, { room_id: 'twice', name: 'Second' }), 409, 'room_exists', 'room_id');
    t.equal((await rooms.get(d, 'twice')).body.name, 'First', 'the first room is untouched');
  });
});

t.test('pagination', async (t) => {
  const d = await appFor(t);
  const ids = ['p-e', 'p-a', 'p-d', 'p-b', 'p-c'];
  for (const id of ids) t.equal((await rooms.create(d, { room_id: id, name: id })).status, 201);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await rooms.list(d, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(page.status, 200);
    t.ok(page.body.rooms.length <= 2, 'at most limit rooms');
    seen.push(...page.body.rooms.map((r: { room_id: string }) => r.room_id));
    cursor = page.body.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < 10);
  t.equal(pages, 3, 'three pages of 2, 2, 1');
  t.same(seen, [...ids].sort(), 'every room once, in room_id order');
  t.equal(cursor, null, 'the last page has next_cursor null');

  const all = await rooms.list(d);
  t.equal(all.body.rooms.length, 5);
  t.equal(all.body.next_cursor, null, 'one page when everything fits');
  t.equal((await rooms.list(d, '?limit=5')).body.next_cursor, null, 'exactly limit rooms left: no next page');
  t.equal((await rooms.list(d, '?limit=200')).status, 200);

  for (const query of ['?limit=0', '?limit=201', '?limit=-1', '?limit=two', '?limit=1.5']) {
    assertError(t, await rooms.list(d, query), 400, 'invalid_field', 'limit');
  }
  for (const query of ['?cursor=!!!garbage!!!', `?cursor=${Buffer.from('a/b').toString('base64url')}`]) {
    assertError(t, await rooms.list(d, query), 400, 'invalid_field', 'cursor');
  }
});

t.test('SERVICE_WAITING_ROOM=optional: each room decides', async (t) => {
  const d = await appFor(t, { env: { SERVICE_WAITING_ROOM: 'optional' } });
  t.equal((await rooms.create(d, base)).body.waiting_room, 'off', 'absent → off');
  for (const scope of ['off', 'guests', 'all']) {
    const created = await rooms.create(d, { room_id: `opt-${scope}`, name: 'x', waiting_room: scope });
    t.equal(created.status, 201);
    t.equal(created.body.waiting_room, scope);
  }
  t.equal((await rooms.patch(d, 'opt-all', { waiting_room: 'off' })).body.waiting_room, 'off', 'PATCH to off allowed');
});

t.test('SERVICE_WAITING_ROOM=forced: every room verifies arrivals', async (t) => {
  const d = await appFor(t, { env: { SERVICE_WAITING_ROOM: 'forced' } });
  const created = await rooms.create(d, base);
  t.equal(created.status, 201);
  t.equal(created.body.waiting_room, 'all', 'absent → all');
  assertError(
    t,
    await rooms.create(d, { room_id: 'forced-off', name: 'x', waiting_room: 'off' }),
    409,
    'waiting_room_forced',
    'waiting_room',
  );
  t.equal((await rooms.get(d, 'forced-off')).status, 404, 'the refused room was not created');
  const guests = await rooms.create(d, { room_id: 'forced-guests', name: 'x', waiting_room: 'guests' });
  t.equal(guests.status, 201);
  t.equal(guests.body.waiting_room, 'guests');
  assertError(
    t,
    await rooms.patch(d, 'forced-guests', { waiting_room: 'off' }),
    409,
    'waiting_room_forced',
    'waiting_room',
  );
  t.equal(
    (await rooms.patch(d, 'forced-guests', { name: 'renamed' })).body.waiting_room,
    'guests',
    'a PATCH without scope keeps it',
  );
  t.equal((await rooms.get(d, 'forced-guests')).body.waiting_room, 'guests');
});

t.test('SERVICE_WAITING_ROOM=off: the feature is unavailable', async (t) => {
  const d = await appFor(t, { env: { SERVICE_WAITING_ROOM: 'off' } });
  t.equal((await rooms.create(d, base)).body.waiting_room, 'off', 'absent → off');
  t.equal(
    (await rooms.create(d, { room_id: 'off-off', name: 'x', waiting_room: 'off' })).status,
    201,
    'off is allowed',
  );
  for (const scope of ['guests', 'all']) {
    assertError(
      t,
      await rooms.create(d, { room_id: `off-${scope}`, name: 'x', waiting_room: scope }),
      409,
      'waiting_room_unavailable',
      'waiting_room',
    );
    assertError(
      t,
      await rooms.patch(d, 'off-off', { waiting_room: scope }),
      409,
      'waiting_room_unavailable',
      'waiting_room',
    );
  }
  t.equal((await rooms.get(d, 'off-off')).body.waiting_room, 'off');
});

t.test('SERVICE_WAITING_ROOM_MODE=until_moderator fixes the mode', async (t) => {
  const d = await appFor(t, { env: { SERVICE_WAITING_ROOM_MODE: 'until_moderator' } });
  t.equal((await rooms.create(d, base)).body.waiting_room_mode, 'until_moderator', 'absent → until_moderator');
  t.equal(
    (await rooms.create(d, { room_id: 'same-mode', name: 'x', waiting_room_mode: 'until_moderator' })).status,
    201,
  );
  assertError(
    t,
    await rooms.create(d, { room_id: 'approval', name: 'x', waiting_room_mode: 'approval' }),
    409,
    'waiting_room_mode_fixed',
    'waiting_room_mode',
  );
  assertError(
    t,
    await rooms.patch(d, base.room_id, { waiting_room_mode: 'approval' }),
    409,
    'waiting_room_mode_fixed',
    'waiting_room_mode',
  );
  t.equal((await rooms.get(d, base.room_id)).body.waiting_room_mode, 'until_moderator');
});
