// Abuse of the JSON routes' schemas (issue 16 point 7): wrong types, values that Fastify's
// default ajv would coerce, huge strings, odd Unicode, prototype-pollution keys and repeated
// query parameters each get the stable code, its status and the field, never a 500 and never
// a coerced value. The engine listener is built in-process over a real SQLite file.
import t from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { type Tap } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';
import { FakeClock } from '../../helpers/fake-clock.js';

function refused(t: Tap, res: LightMyRequestResponse, status: number, code: string, field?: string): void {
  const what = `${status} ${code}${field === undefined ? '' : ` (${field})`}`;
  t.equal(res.statusCode, status, `status ${what}: ${res.body.slice(0, 200)}`);
  const body = res.json<{ error: { code: string; message: string; field?: string } }>();
  t.same(
    body,
    { error: { code, message: body.error.message, ...(field === undefined ? {} : { field }) } },
    `body is {error} for ${what}`,
  );
  t.match(body.error.message, /\S/, 'a message in words');
}

t.test('the JSON routes refuse what their schemas do not allow, naming the field', async (t) => {
  const clock = new FakeClock();
  const { app, services } = await appFor(t, { clock });
  const admin = { authorization: `Bearer ${(await services.accessTokens.create('test')).token}` };
  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: admin,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const raw = (url: string, payload: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });
  t.equal((await api('POST', '/api/rooms', { room_id: 'lobby', name: 'Lobby', waiting_room: 'all' })).statusCode, 201);
  t.equal((await api('POST', '/api/rooms', { room_id: 'coded', name: 'Coded', access_code: '4711' })).statusCode, 201);

  t.test('rooms API: wrong types, no coercion', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ room_id: 5, name: 'x' }, 'room_id'],
      [{ room_id: ['a'], name: 'x' }, 'room_id'],
      [{ room_id: 'a', name: ['x'] }, 'name'],
      [{ room_id: 'a', name: true }, 'name'],
      [{ room_id: 'a', name: 'x', waiting_room: 1 }, 'waiting_room'],
      [{ room_id: 'a', name: 'x', waiting_room: ['all'] }, 'waiting_room'],
      [{ room_id: 'a', name: 'x', waiting_room_timeout_secs: '600' }, 'waiting_room_timeout_secs'],
      [{ room_id: 'a', name: 'x', waiting_room_timeout_secs: [600] }, 'waiting_room_timeout_secs'],
      [{ room_id: 'a', name: 'x', waiting_room_timeout_secs: true }, 'waiting_room_timeout_secs'],
      [{ room_id: 'a', name: 'x', access_code: 4711 }, 'access_code'],
      [{ room_id: 'a', name: 'x', parent_room_id: 7 }, 'parent_room_id'],
      [{ room_id: 'a', name: 'x', constructor: 'Object' }, 'constructor'],
      [{ room_id: 'a', name: 'x', prototype: {} }, 'prototype'],
    ];
    for (const [body, field] of cases) refused(t, await api('POST', '/api/rooms', body), 400, 'invalid_field', field);
    refused(
      t,
      await api('PATCH', '/api/rooms/lobby', { waiting_room_timeout_secs: '30' }),
      400,
      'invalid_field',
      'waiting_room_timeout_secs',
    );
    refused(t, await api('PATCH', '/api/rooms/lobby', { access_code: 1234 }), 400, 'invalid_field', 'access_code');
    refused(t, await api('PATCH', '/api/rooms/lobby', { name: null }), 400, 'invalid_field', 'name');
    t.equal((await api('GET', '/api/rooms/a')).statusCode, 404, 'nothing was created');
    t.match(
      (await api('GET', '/api/rooms/lobby')).json(),
      { name: 'Lobby', waiting_room_timeout_secs: 600 },
      'nothing was changed',
    );
  });

  t.test('prototype-pollution keys: refused or inert, never merged', async (t) => {
    const proto = '{"room_id":"p","name":"x","__proto__":{"polluted":true}}';
    refused(t, await raw('/api/rooms', proto, admin), 400, 'invalid_json');
    refused(t, await raw('/room/lobby/knock', '{"name":"Ann","__proto__":{"polluted":true}}'), 400, 'invalid_json');
    // Fastify's JSON parser refuses constructor.prototype too, before any schema sees it.
    refused(
      t,
      await raw('/api/rooms', '{"room_id":"p","name":"x","constructor":{"prototype":{"polluted":true}}}', admin),
      400,
      'invalid_json',
    );
    refused(
      t,
      await raw('/room/lobby/knock', '{"name":"Ann","constructor":{"prototype":{"polluted":true}}}'),
      400,
      'invalid_json',
    );
    // A bare "constructor" is only an unknown field: ignored by an arrival, as before.
    const knocked = await raw('/room/lobby/knock', '{"name":"Ann","constructor":"Object","toString":1}');
    t.equal(knocked.statusCode, 202, `an unknown key in an arrival is ignored, as before (${knocked.body})`);
    t.equal((Object.prototype as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    t.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  t.test('huge strings and odd Unicode', async (t) => {
    const huge = 'n'.repeat(60 * 1024);
    refused(t, await api('POST', '/api/rooms', { room_id: 'huge', name: huge }), 400, 'invalid_field', 'name');
    refused(
      t,
      await api('POST', '/api/rooms', { room_id: huge.slice(0, 1000), name: 'x' }),
      400,
      'invalid_field',
      'room_id',
    );
    refused(t, await api('POST', '/api/rooms', { room_id: 'caf\u00e9', name: 'x' }), 400, 'invalid_field', 'room_id');
    refused(
      t,
      await api('POST', '/api/rooms', { room_id: 'x', name: 'x', 'na\u200Bme': 'y' }),
      400,
      'invalid_field',
      'na\u200Bme',
    );
    refused(t, await api('POST', '/api/rooms', { room_id: 'x', name: 'x', 'a/b~c': 1 }), 400, 'invalid_field', 'a/b~c');
    refused(t, await raw('/room/lobby/knock', JSON.stringify({ name: huge })), 400, 'invalid_field', 'name');
    refused(
      t,
      await raw('/room/lobby/knock', JSON.stringify({ name: 'Ann', note: huge })),
      400,
      'invalid_field',
      'note',
    );
    refused(
      t,
      await raw('/room/lobby/knock', JSON.stringify({ name: 'Ann\u202Egnp.exe' })),
      400,
      'invalid_field',
      'name',
    );
    refused(t, await raw('/room/lobby/knock', '{"name":"Ann \\u0000"}'), 400, 'invalid_field', 'name');
    refused(t, await raw('/room/lobby/knock', JSON.stringify({ name: 'x'.repeat(65 * 1024) })), 413, 'body_too_large');
  });

  t.test('arrivals: the codes of a wrong field are those of the field', async (t) => {
    refused(t, await raw('/room/lobby/knock', JSON.stringify({ name: ['Ann'] })), 400, 'invalid_field', 'name');
    refused(t, await raw('/room/lobby/knock', JSON.stringify({ name: 7 })), 400, 'invalid_field', 'name');
    refused(t, await raw('/room/lobby/knock', JSON.stringify({ name: 'Ann', note: 5 })), 400, 'invalid_field', 'note');
    refused(t, await raw('/room/lobby/start', JSON.stringify({ name: 'Ann', t: 5 })), 403, 'join_token_invalid', 't');
    refused(
      t,
      await raw('/room/lobby/start', JSON.stringify({ name: 'Ann', t: ['x'] })),
      403,
      'join_token_invalid',
      't',
    );
    refused(
      t,
      await raw('/room/coded/knock', JSON.stringify({ name: 'Ann', access_code: 4711 })),
      403,
      'access_code_invalid',
      'access_code',
    );
    refused(t, await raw('/room/lobby/knock', '[1, 2]'), 400, 'invalid_json');
    refused(t, await raw('/room/lobby/knock', '"Ann"'), 400, 'invalid_json');
    refused(t, await raw('/room/lobby/knock', '7'), 400, 'invalid_json');
    const none = await app.inject({ method: 'POST', url: '/room/lobby/start' });
    refused(t, none, 400, 'invalid_field', 'name');
  });

  t.test('links and the rooms API refuse', async (t) => {
    refused(t, await api('POST', '/api/rooms/lobby/links', { role: 'admin' }), 400, 'invalid_field', 'role');
    refused(t, await api('POST', '/api/rooms/lobby/links', { role: ['moderator'] }), 400, 'invalid_field', 'role');
    refused(t, await api('POST', '/api/rooms/lobby/links', {}), 400, 'invalid_field', 'role');
    refused(t, await raw('/api/rooms/lobby/links', '[]', admin), 400, 'invalid_field', 'role');
    refused(
      t,
      await api('POST', '/api/rooms/lobby/links', { role: 'participant', ttl_secs: '3600' }),
      400,
      'invalid_field',
      'ttl_secs',
    );
    refused(
      t,
      await api('POST', '/api/rooms/lobby/links', { role: 'participant', ttl_secs: 60.5 }),
      400,
      'invalid_field',
      'ttl_secs',
    );
    refused(
      t,
      await api('POST', '/api/rooms/lobby/links', { role: 'participant', ttl_secs: 59 }),
      400,
      'invalid_field',
      'ttl_secs',
    );
    refused(
      t,
      await api('POST', '/api/rooms/lobby/links', { role: 'participant', name: { first: 'Ann' } }),
      400,
      'invalid_field',
      'name',
    );
    refused(
      t,
      await api('POST', '/api/rooms/lobby/links', { role: 'participant', name: 'Ann [moderator]' }),
      400,
      'invalid_field',
      'name',
    );
    const made = await api('POST', '/api/rooms/lobby/links', { role: 'participant', ttl_secs: 60, extra: 1 });
    t.equal(made.statusCode, 201, 'an unknown field of a link is ignored, as before');
    t.equal(made.json<{ expires_in: number }>().expires_in, 60, 'ttl_secs taken as sent');
    refused(t, await api('POST', '/api/rooms/lobby/waiting/r1/refuse', { bar: 'true' }), 400, 'invalid_field', 'bar');
    refused(t, await api('POST', '/api/rooms/lobby/waiting/r1/refuse', { bar: 1 }), 400, 'invalid_field', 'bar');
  });

  t.test('a moderator gesture: 401 before the body is read, then the field', async (t) => {
    refused(t, await raw('/room/lobby/admit', '{"all":"yes"}'), 401, 'unauthorized');
    refused(t, await raw('/room/lobby/refuse', '[]'), 401, 'unauthorized');
    const made = await api('POST', '/api/rooms/lobby/links', { role: 'moderator' });
    const token = new URL(made.json<{ url: string }>().url, 'http://x').searchParams.get('t');
    const started = await raw('/room/lobby/start', JSON.stringify({ name: 'Mod', t: token }));
    t.equal(started.statusCode, 200, started.body);
    const session = { authorization: `Bearer ${started.json<{ session: string }>().session}` };
    refused(t, await raw('/room/lobby/admit', '{"all":"yes"}', session), 400, 'invalid_field', 'all');
    refused(t, await raw('/room/lobby/admit', '{"request_id":5}', session), 400, 'invalid_field', 'request_id');
    refused(t, await raw('/room/lobby/admit', '{}', session), 400, 'invalid_field', 'request_id');
    refused(t, await raw('/room/lobby/refuse', '{"request_id":""}', session), 400, 'invalid_field', 'request_id');
    refused(t, await raw('/room/lobby/refuse', '{"request_id":"r1","bar":"no"}', session), 400, 'invalid_field', 'bar');
    refused(t, await raw('/room/lobby/refuse', '[1]', session), 400, 'invalid_json');
    refused(
      t,
      await app.inject({ method: 'POST', url: '/room/lobby/refuse', headers: session }),
      400,
      'invalid_field',
      'request_id',
    );
  });

  t.test('a query parameter given twice is refused, naming it', async (t) => {
    refused(t, await api('GET', '/api/rooms?limit=1&limit=2'), 400, 'invalid_field', 'limit');
    refused(t, await api('GET', '/api/rooms?cursor=a&cursor=b'), 400, 'invalid_field', 'cursor');
    refused(t, await api('GET', '/api/rooms/lobby/timeline?meeting=a&meeting=b'), 400, 'invalid_field', 'meeting');
    refused(
      t,
      await api('GET', '/api/rooms/lobby/attendance.csv?meeting=a&meeting=b'),
      400,
      'invalid_field',
      'meeting',
    );
    refused(t, await app.inject({ url: '/room/lobby/exists?t=a&t=b' }), 400, 'invalid_field', 't');
    refused(t, await app.inject({ url: '/room/nowhere/exists?t=a&t=b' }), 400, 'invalid_field', 't');
    t.equal(
      (await api('GET', '/api/rooms?limit=1&other=1&other=2')).statusCode,
      200,
      'an unknown parameter is ignored, as before',
    );
  });
});
