// The routes' schemas are compiled on a route's first request instead of at the app's start
// (src/http/lazy-schemas.ts): what a request is told and what an answer holds stay Fastify's.
import t from 'tap';
import Fastify from 'fastify';
import { LazySchemas } from '../../../src/http/lazy-schemas.js';
import type { Tap } from '../../helpers/api.js';

async function appWith(t: Tap, schemas: LazySchemas, body: object = { type: 'object', required: ['name'] }) {
  const app = Fastify({ schemaController: { compilersFactory: schemas.compilersFactory } });
  t.teardown(() => app.close());
  app.post(
    '/echo',
    {
      schema: {
        body,
        response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    async (request) => ({ ...(request.body as object), secret: 'not in the schema' }),
  );
  app.get(
    '/other',
    { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } },
    async () => ({}),
  );
  await app.ready();
  return app;
}

t.test('nothing is compiled at start; a route compiles its own schemas on its first request', async (t) => {
  const schemas = new LazySchemas();
  const app = await appWith(t, schemas);
  t.equal(schemas.pending, 4, "the body, the answer and the query of GET and of Fastify's HEAD wait after ready()");

  const refused = await app.inject({ method: 'POST', url: '/echo', payload: { other: 1 } });
  t.equal(refused.statusCode, 400, 'a body without the required field is refused');
  t.match(
    refused.json(),
    { code: 'FST_ERR_VALIDATION', message: "body must have required property 'name'" },
    "with Ajv's own words",
  );
  t.equal(schemas.pending, 3, 'the body compiled; the answer waits for its first 200');

  const answered = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'Ada' } });
  t.same(answered.json(), { name: 'Ada' }, 'the answer holds what its schema names and nothing else');
  t.equal(schemas.pending, 2, '/other (GET and HEAD) is still not compiled');
  t.equal(schemas.compileAll(), 2, 'compileAll runs the two left');
  t.equal(schemas.pending, 0);
  const typed = await app.inject({ method: 'GET', url: '/other?n=x' });
  t.equal(typed.statusCode, 400, 'and what it compiled validates');
});

t.test('a schema that does not compile is named by compileAll, with its route and part', async (t) => {
  const schemas = new LazySchemas();
  await appWith(t, schemas, { type: 'no such type' });
  t.throws(() => schemas.compileAll(), /POST \/echo \(body\): .*type/, 'the broken body schema, named');
});

t.test('many requests at once to a route not yet compiled: one compile, every answer right', async (t) => {
  const schemas = new LazySchemas();
  const app = await appWith(t, schemas);
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      app.inject({ method: 'POST', url: '/echo', payload: i % 2 ? { name: `n${i}` } : { nope: i } }),
    ),
  );
  t.same(
    answers.map((a) => a.statusCode),
    Array.from({ length: 50 }, (_, i) => (i % 2 ? 200 : 400)),
  );
  t.equal(schemas.pending, 2, 'only /other waits');
});
