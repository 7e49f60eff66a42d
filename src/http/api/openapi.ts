import type { FastifyInstance, FastifySchema } from 'fastify';

/** One route of the rooms API as Fastify registered it: the document is made from these, never from a list kept by hand. */
export interface ApiRoute {
  readonly method: string;
  /** With the prefix and Fastify's parameters: `/api/rooms/:id`. */
  readonly url: string;
  readonly schema: FastifySchema;
}

interface Schema {
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly contentMediaType?: string;
  readonly type?: string;
}

/**
 * The routes of the scope it watches, as they are registered. A route without response schemas
 * is refused on the spot (the app does not build): its answers would bypass the serialiser that
 * keeps unnamed fields in, and the document would not say what it answers.
 */
export class ApiRouteTable {
  readonly routes: ApiRoute[] = [];

  watch(scope: FastifyInstance): void {
    scope.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        // Fastify adds HEAD beside every GET by itself; it answers as the GET does, without a body.
        if (method === 'HEAD') continue;
        if (!route.schema?.response)
          throw new Error(
            `${method} ${route.url}: a route of the rooms API declares its response schemas (http/api/answers.ts)`,
          );
        this.routes.push({ method, url: route.url, schema: route.schema });
      }
    });
  }
}

// The request schemas carry `refusal` (validation.ts): how the service words a refusal, not part of the contract.
const clean = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === 'refusal' ? undefined : value)));

function parameters(schema: Schema | undefined, where: 'path' | 'query') {
  return Object.entries(schema?.properties ?? {}).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path' || (schema?.required ?? []).includes(name),
    schema: clean(field),
  }));
}

function responses(response: Readonly<Record<string, Schema>>) {
  return Object.fromEntries(
    Object.entries(response).map(([status, schema]) => {
      if (schema.type === 'null') return [status, { description: 'no body' }];
      const codes = (schema.properties?.error as { properties?: { code?: { enum?: string[] } } } | undefined)
        ?.properties?.code?.enum;
      const description = codes ? `error: ${codes.join(', ')}` : 'success';
      const media = schema.contentMediaType ?? 'application/json';
      return [status, { description, content: { [media]: { schema: clean(schema) } } }];
    }),
  );
}

/** The OpenAPI 3.1 document of the rooms API, made from its routes' own schemas. It names no secret. */
export function openApiDocument(routes: readonly ApiRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const body = route.schema.body as Schema | undefined;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      parameters: [
        ...parameters(route.schema.params as Schema | undefined, 'path'),
        ...parameters(route.schema.querystring as Schema | undefined, 'query'),
      ],
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: clean(body) } } } } : {}),
      responses: responses(route.schema.response as Record<string, Schema>),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Rooms API',
      version: '1',
      description:
        "Rooms, join links, the waiting room and the records of meetings; organisers' sessions. Every error body is {error: {code, message, field?}}.",
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an access token made with meetctl token' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'meet_account',
          description:
            "an organiser's session (POST /api/session): her rooms only, an admin's every room; a change also sends Origin and X-CSRF-Token (GET /api/me)",
        },
      },
    },
    paths,
  };
}

/** `GET /api/openapi.json`: the document, made once on first ask (every route is registered by then). No token: it names no secret. */
export function openApiRoute(table: ApiRouteTable) {
  return async (app: FastifyInstance): Promise<void> => {
    let text: string | null = null;
    app.get('/api/openapi.json', async (_request, reply) => {
      text ??= JSON.stringify(openApiDocument(table.routes));
      return reply.type('application/json; charset=utf-8').send(text);
    });
  };
}
