import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The request log of both listeners (the compat app installs this same hook). Fastify's own
 * two lines per request are off; instead every request is counted for the summary, and one
 * line is written only for what an operator reads: errors, slow requests, state changes
 * (a route notes them with `noteEvent`), or every request at SERVICE_ACCESS_LOG=all.
 *
 * A line carries ids and the request as the process logger's `req` serializer writes it
 * (method, URL with its secrets masked, client address), never a body, a header or a name.
 */

export type AccessLogPolicy = 'errors' | 'all';

/** Where every request is counted (the daemon's RequestSummary, and its metrics when on). */
export interface RequestRecorder {
  /** `upgraded`: a live socket, whose elapsed time is the connection's life, not a latency. */
  record(family: string, status: number, elapsedMs: number, upgraded?: boolean): void;
}

export interface AccessLogOptions {
  readonly policy: AccessLogPolicy;
  /** At or over this many milliseconds a request is logged as slow. */
  readonly slowMs: number;
  readonly recorder: RequestRecorder;
}

/** The route family a request is counted under: a small fixed set per listener. */
export type FamilyOf = (request: FastifyRequest) => string;

/**
 * Refusals that are part of normal use: counted, not logged. A poll whose request is gone (a
 * lost or stale cookie: 401/404), the page's check of a room that does not exist, a live socket
 * reopened after its session ended, a gateway refusal (its route logs it with the reason), and
 * every 429 (the per-client limits doing their work).
 */
const expected: Readonly<Record<string, readonly number[]>> = {
  'room.waiting': [401, 404],
  'room.exists': [404],
  live: [401],
  videoconf: [403],
};

export function isExpectedRefusal(family: string, status: number): boolean {
  return status === 429 || (expected[family]?.includes(status) ?? false);
}

export type LineKind = 'error' | 'refused' | 'slow' | 'request' | null;

/** Which line, if any, a finished request gets (a noted state change gets one whatever this says). */
export function lineFor(
  policy: AccessLogPolicy,
  slowMs: number,
  family: string,
  status: number,
  elapsedMs: number,
  upgraded: boolean,
): LineKind {
  if (status >= 500) return 'error';
  if (status >= 400 && !isExpectedRefusal(family, status)) return 'refused';
  // A live socket's "response" ends when the socket closes: its length is no latency.
  if (!upgraded && elapsedMs >= slowMs) return 'slow';
  return policy === 'all' ? 'request' : null;
}

interface Noted {
  readonly event: string;
  readonly fields: Readonly<Record<string, string | number | boolean | null | undefined>>;
}

const notes = new WeakMap<FastifyRequest, Noted>();

/**
 * A state change this request made (knock, admit, refuse, bar, create, delete): its line is
 * written at info whatever the policy. Ids only: never a name, a note or a secret.
 */
export function noteEvent(request: FastifyRequest, event: string, fields: Noted['fields']): void {
  notes.set(request, { event, fields });
}

function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? '(unmatched)';
}

/**
 * The line's fields, added one at a time. Not an object literal that starts with a spread: on
 * Node 20's V8 such a literal gets a hidden class of its own, made in the old generation, so
 * every logged request (each knock) left about 1 KiB there until the next full collection
 * (issue 36 point 2). Adding the same keys in the same order shares one hidden class.
 */
function lineObject(
  note: Noted | undefined,
  family: string,
  route: string,
  status: number,
  ms: number,
  req: FastifyRequest,
): Record<string, unknown> {
  const line: Record<string, unknown> = {};
  if (note) {
    line.event = note.event;
    for (const key of Object.keys(note.fields)) line[key] = note.fields[key];
  }
  line.family = family;
  line.route = route;
  line.status = status;
  line.ms = ms;
  line.req = req;
  return line;
}

export function installAccessLog(app: FastifyInstance, options: AccessLogOptions, familyOf: FamilyOf): void {
  const { policy, slowMs, recorder } = options;
  // A callback hook, not async: no promise per request.
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const status = reply.statusCode;
    const elapsedMs = reply.elapsedTime;
    const family = familyOf(request);
    const upgraded = (request as { ws?: boolean }).ws === true;
    recorder.record(family, status, elapsedMs, upgraded);
    const note = notes.get(request);
    const kind = lineFor(policy, slowMs, family, status, elapsedMs, upgraded);
    if (note === undefined && kind === null) return done();
    const line = lineObject(note, family, routeOf(request), status, Math.round(elapsedMs * 100) / 100, request);
    if (kind === 'error') reply.log.error(line, 'server error');
    else if (note) reply.log.info(line, note.event);
    else if (kind === 'refused') reply.log.info(line, 'request refused');
    else if (kind === 'slow') reply.log.warn(line, 'slow request');
    else reply.log.info(line, 'request');
    done();
  });
}

/** Families from the route pattern, computed once per route. */
export function cachedFamilies(
  familyOfRoute: (route: string | undefined, request: FastifyRequest) => string | null,
  fallback: (request: FastifyRequest) => string,
): FamilyOf {
  const byRoute = new Map<string, string>();
  return (request) => {
    const route = request.routeOptions.url;
    if (route === undefined) return 'unmatched';
    const cached = byRoute.get(route);
    if (cached !== undefined) return cached;
    const family = familyOfRoute(route, request);
    if (family === null) return fallback(request);
    byRoute.set(route, family);
    return family;
  };
}

/** The engine listener's families: room.<action>, live, api.rooms, api.waiting, health, page, static. */
export const engineFamily: FamilyOf = cachedFamilies(
  (route) => {
    if (route === '/room/:id/live') return 'live';
    if (route === '/room/:id') return 'page';
    const room = /^\/room\/:id\/(.+)$/.exec(route ?? '');
    if (room) return `room.${room[1]!.replace(/\//g, '.')}`;
    if (route?.startsWith('/api/rooms/:id/waiting') || route?.endsWith('/links')) return 'api.waiting';
    if (route?.startsWith('/api/')) return 'api.rooms';
    if (route === '/healthz' || route === '/readyz') return 'health';
    return 'static';
  },
  () => 'static',
);
