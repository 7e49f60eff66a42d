// Issue 30 point 5: the rooms API answers through response schemas (src/http/api/answers.ts), so what
// it documents is what it sends and nothing more, and /api/openapi.json is generated from those schemas
// and the route table (src/http/api/openapi.ts).
import t from 'tap';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ApiRouteTable } from '../../../src/http/api/openapi.js';
import { call, rooms } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';
import { Browser, moderator, waitingApi } from '../../helpers/waiting.js';

const roomKeys = [
  'access_code_set',
  'created_at',
  'mics_off_on_entry',
  'moderator_link_ttl_secs',
  'name',
  'owner_account_id',
  'owner_email',
  'parent_room_id',
  'room_id',
  'updated_at',
  'waiting_room',
  'waiting_room_mode',
  'waiting_room_timeout_secs',
];
const keys = (value: unknown) => Object.keys(value as object).sort();

/** Every operation of the rooms API (the test's own list: a route added to the API must be added here too). */
const operations = [
  'post /api/rooms',
  'get /api/rooms',
  'get /api/rooms/{id}',
  'patch /api/rooms/{id}',
  'delete /api/rooms/{id}',
  'post /api/rooms/{id}/links',
  'get /api/rooms/{id}/waiting',
  'post /api/rooms/{id}/waiting/{request_id}/admit',
  'post /api/rooms/{id}/waiting/admit-all',
  'post /api/rooms/{id}/waiting/{request_id}/refuse',
  'post /api/rooms/{id}/waiting-room/disable',
  'get /api/rooms/{id}/timeline',
  'get /api/rooms/{id}/attendance.csv',
  'post /api/session',
  'delete /api/session',
  'get /api/me',
  'post /api/password',
  'get /api/sign-in-methods',
];

interface Operation {
  parameters: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}

t.test('every route answers the fields it documents', async (t) => {
  const d = await appFor(t);
  const doc = (await (await d.api('/api/openapi.json', { token: null })).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  // Each answer is also checked against the document's own schema for its status.
  const fits = (t: Tap, operation: string, status: number, body: unknown) => {
    const [method, path] = operation.split(' ') as [string, string];
    const schema = doc.paths[path]![method]!.responses[String(status)]!.content!['application/json']!.schema;
    t.ok(Compile(schema as never).Check(body), `${operation} ${status} fits its documented schema`);
  };
  type Tap = typeof t;

  const created = await rooms.create(d, { room_id: 'hall', name: 'Hall', waiting_room: 'all' });
  t.equal(created.status, 201);
  t.same(keys(created.body), roomKeys, 'POST /api/rooms');
  fits(t, 'post /api/rooms', 201, created.body);
  const listed = await rooms.list(d);
  t.same(keys(listed.body), ['next_cursor', 'rooms']);
  t.same(keys(listed.body.rooms[0]), roomKeys, 'GET /api/rooms');
  fits(t, 'get /api/rooms', 200, listed.body);
  t.same(keys((await rooms.get(d, 'hall')).body), roomKeys, 'GET /api/rooms/{id}');
  const patched = await rooms.patch(d, 'hall', { name: 'Great hall' });
  t.same(keys(patched.body), roomKeys, 'PATCH /api/rooms/{id}');
  fits(t, 'patch /api/rooms/{id}', 200, patched.body);

  const link = await call(d, '/api/rooms/hall/links', { method: 'POST', json: { role: 'participant' } });
  t.equal(link.status, 201);
  t.same(keys(link.body), ['expires_in', 'url'], 'POST /api/rooms/{id}/links');
  fits(t, 'post /api/rooms/{id}/links', 201, link.body);

  await moderator(d, 'hall');
  for (const name of ['Ann', 'Bob', 'Cy'])
    t.equal((await new Browser(d, 'hall').knock({ name })).status, 202, `${name} waits`);
  const waiting = await waitingApi.list(d, 'hall');
  t.equal(waiting.body.length, 3);
  t.same(keys(waiting.body[0]), ['knocked_at', 'name', 'note', 'request_id'], 'GET /api/rooms/{id}/waiting');
  fits(t, 'get /api/rooms/{id}/waiting', 200, waiting.body);
  const [ann, bob] = waiting.body as { request_id: string }[];
  const admitted = await waitingApi.admit(d, 'hall', ann!.request_id);
  t.same(admitted.body, { admitted: 1 }, 'POST …/admit');
  const refused = await waitingApi.refuse(d, 'hall', bob!.request_id, false);
  t.same(refused.body, { refused: true, barred: false }, 'POST …/refuse');
  fits(t, 'post /api/rooms/{id}/waiting/{request_id}/refuse', 200, refused.body);
  t.same((await waitingApi.admitAll(d, 'hall')).body, { admitted: 1 }, 'POST …/admit-all');
  t.same((await waitingApi.disable(d, 'hall')).body, { admitted: 0 }, 'POST …/waiting-room/disable');

  const timeline = await waitingApi.timeline(d, 'hall');
  t.same(keys(timeline.body), ['entries', 'meeting_id'], 'GET …/timeline');
  t.same(keys(timeline.body.entries.find((e: { kind: string }) => e.kind === 'admit')), [
    'actor',
    'at',
    'kind',
    'subject',
  ]);
  t.same(keys(timeline.body.entries.find((e: { kind: string }) => e.kind === 'admit_all')), [
    'actor',
    'at',
    'count',
    'kind',
    'subject',
  ]);
  fits(t, 'get /api/rooms/{id}/timeline', 200, timeline.body);
  const csv = await waitingApi.attendance(d, 'hall');
  t.match(csv.headers.get('content-type'), /^text\/csv/, 'the attendance is CSV, not a JSON string');
  t.match(csv.text, /^[a-z_]+(,[a-z_]+)+\r?\n/, 'with its header line, as sent');

  const missing = await rooms.get(d, 'nowhere');
  t.same(keys(missing.body.error), ['code', 'message']);
  fits(t, 'get /api/rooms/{id}', 404, missing.body);
  const deleted = await rooms.delete(d, 'hall');
  t.equal(deleted.status, 204);
  t.equal(deleted.text, '', 'DELETE answers no body');
});

t.test('a field the schema does not name never leaves the service', async (t) => {
  const d = await appFor(t);
  t.equal((await rooms.create(d, { room_id: 'leaky', name: 'Leaky', waiting_room: 'all' })).status, 201);
  await moderator(d, 'leaky');
  t.equal((await new Browser(d, 'leaky').knock({ name: 'Ann' })).status, 202);
  // What the engine's objects might one day hold: the knocker's address, her cookie, a hash.
  const waiting = d.services.waiting;
  const list = waiting.list.bind(waiting);
  waiting.list = async (roomId, actor) =>
    (await list(roomId, actor)).map((item) => ({ ...item, ip: '203.0.113.9', cookie_hash: 'c0ffee' }));
  const admitAll = waiting.admitAll.bind(waiting);
  waiting.admitAll = async (roomId, actor) =>
    ({ ...(await admitAll(roomId, actor)), request_ids: ['r1'], token: 'secret' }) as never;

  const listed = await waitingApi.list(d, 'leaky');
  t.equal(listed.body.length, 1);
  t.same(keys(listed.body[0]), ['knocked_at', 'name', 'note', 'request_id'], 'no address and no cookie in the list');
  t.notMatch(listed.text, /203\.0\.113\.9|c0ffee/);
  const all = await waitingApi.admitAll(d, 'leaky');
  t.same(all.body, { admitted: 1 }, 'nothing but the count');
  t.notMatch(all.text, /secret/);
});

t.test('GET /api/openapi.json: the rooms API, made from its routes and schemas, without a token', async (t) => {
  const d = await appFor(t);
  const answer = await d.api('/api/openapi.json', { token: null });
  t.equal(answer.status, 200, 'no token needed');
  t.match(answer.headers.get('content-type'), /^application\/json/);
  const text = await answer.text();
  const doc = JSON.parse(text) as {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: object };
  };
  t.equal(doc.openapi, '3.1.0');
  t.notOk(text.includes(d.adminToken), 'it names no secret');
  t.notMatch(text, /"refusal"/, 'the service-side wording of refusals is not part of the contract');
  t.ok(Object.keys(doc.components.securitySchemes).length > 0, 'the bearer token is the scheme');

  const found = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method} ${path}`),
  );
  t.same(found.sort(), [...operations].sort(), 'every route of the rooms API, with its method, and nothing else');

  for (const name of operations) {
    const [method, path] = name.split(' ') as [string, string];
    const operation = doc.paths[path]![method]!;
    const success = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
    t.equal(success.length, 1, `${name}: one success status`);
    if (success[0] !== '204')
      t.ok(Object.values(operation.responses[success[0]!]!.content ?? {})[0]?.schema, `${name}: its answer's schema`);
    const codesOf = (status: string) =>
      (
        operation.responses[status]?.content?.['application/json']?.schema as {
          properties?: { error?: { properties?: { code?: { enum?: string[] } } } };
        }
      )?.properties?.error?.properties?.code?.enum ?? [];
    t.ok(
      codesOf('401').includes('unauthorized') && codesOf('500').includes('internal_error'),
      `${name}: its error codes`,
    );
    const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    t.same(
      operation.parameters.filter((p) => p.in === 'path').map((p) => p.name),
      pathParams,
      `${name}: its path parameters`,
    );
    if (
      [
        'post /api/rooms',
        'patch /api/rooms/{id}',
        'post /api/rooms/{id}/links',
        'post /api/rooms/{id}/waiting/{request_id}/refuse',
      ].includes(name)
    ) {
      t.ok(operation.requestBody?.content['application/json']?.schema, `${name}: its request schema`);
      t.ok(codesOf('400').includes('invalid_field'), `${name}: a bad body is invalid_field`);
    }
  }
  const create = doc.paths['/api/rooms']!.post!;
  t.same(
    Object.keys((create.requestBody!.content['application/json']!.schema as { properties: object }).properties).sort(),
    [
      'access_code',
      'mics_off_on_entry',
      'moderator_link_ttl_secs',
      'name',
      'parent_room_id',
      'room_id',
      'waiting_room',
      'waiting_room_mode',
      'waiting_room_timeout_secs',
    ],
    "a room's fields, as the route validates them",
  );
  t.ok(create.responses['409']!.description.includes('room_exists'), 'a taken room id is documented');
  t.same(
    doc.paths['/api/rooms']!.get!.parameters.map((p) => p.name),
    ['limit', 'cursor'],
    'query parameters too',
  );
  t.ok(
    doc.paths['/api/rooms/{id}/attendance.csv']!.get!.responses['200']!.content!['text/csv'],
    'the attendance is documented as CSV',
  );
});

t.test('a route of the rooms API without response schemas does not build', async (t) => {
  const app = Fastify();
  const table = new ApiRouteTable();
  let refused: unknown = null;
  await app.register(
    async (api) => {
      table.watch(api);
      api.get('/rooms/:id/things', { schema: { response: { 200: Type.Object({ a: Type.String() }) } } }, async () => ({
        a: 'x',
      }));
      try {
        api.get('/rooms/:id/other', async () => ({ a: 'x' }));
      } catch (err) {
        refused = err;
      }
    },
    { prefix: '/api' },
  );
  await app.ready();
  t.teardown(() => app.close());
  t.match(String(refused), /GET \/api\/rooms\/:id\/other: a route of the rooms API declares its response schemas/);
  t.same(
    table.routes.map((r) => `${r.method} ${r.url}`),
    ['GET /api/rooms/:id/things'],
    'the table holds the routes as registered (HEAD left out)',
  );
});
