// fetch for apps built in this process: a URL whose origin was mounted here goes to that app's
// `inject` (no socket), any other to the network. The request is built by the platform's own
// Request, so headers, form bodies and URL normalisation are what fetch would send.
import type { FastifyInstance } from 'fastify';

const mounted = new Map<string, FastifyInstance>();
let next = 0;

/** Statuses whose answer has no body: a fetch Response refuses one. */
const bodiless = new Set([101, 204, 205, 304]);

/** A fresh origin (`http://{name}-{n}.inject`) that routes to `app` until `unmount`. */
export function mount(name: string, app: FastifyInstance): { origin: string; unmount(): void } {
  const origin = `http://${name}-${++next}.inject`;
  mounted.set(origin, app);
  return { origin, unmount: () => mounted.delete(origin) };
}

/** Whether `url` names an app mounted in this process. */
export function isMounted(url: string): boolean {
  return mounted.has(new URL(url).origin);
}

async function injectOnce(app: FastifyInstance, request: Request, rawPath: string | null): Promise<Response> {
  const url = new URL(request.url);
  const headers: Record<string, string> = { host: url.host, 'user-agent': 'node', accept: '*/*' };
  request.headers.forEach((value, name) => (headers[name] = value));
  const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
  const answer = await app.inject({
    method: request.method as 'GET',
    url: rawPath ?? `${url.pathname}${url.search}`,
    headers,
    ...(body !== null ? { payload: body } : {}),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(one));
  }
  return new Response(bodiless.has(answer.statusCode) ? null : new Uint8Array(answer.rawPayload), {
    status: answer.statusCode,
    headers: responseHeaders,
  });
}

/**
 * fetch, with mounted origins answered by `inject`. Redirects are followed as fetch follows them
 * (unless `redirect: 'manual'`), across mounted apps and the network alike.
 */
export async function injectFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  let url = String(input);
  let request = new Request(url, init);
  for (let hop = 0; ; hop++) {
    const app = mounted.get(new URL(url).origin);
    if (!app) return fetch(request);
    const response = await injectOnce(app, request, null);
    const location = response.headers.get('location');
    if ((init.redirect ?? 'follow') !== 'follow' || location === null || response.status < 300 || response.status > 399)
      return response;
    if (hop === 20) throw new TypeError('fetch failed: redirect count exceeded');
    url = new URL(location, url).href;
    // 303, and 301/302 after a POST, go on as GET without a body (as fetch does).
    const keep =
      response.status === 307 || response.status === 308 || request.method === 'GET' || request.method === 'HEAD';
    request = keep
      ? new Request(url, { method: request.method, headers: request.headers })
      : new Request(url, { headers: request.headers });
  }
}

/**
 * One request with its path sent as given (the test's raw node:http request, without fetch's
 * normalisation). inject parses the path as a URL: a path that parsing would change cannot be
 * sent this way, and this says so rather than send another one.
 */
export async function injectRaw(origin: string, path: string, init: RequestInit = {}): Promise<Response> {
  const app = mounted.get(origin);
  if (!app) throw new Error(`injectRaw: ${origin} is not mounted`);
  const parsed = new URL(path, 'http://localhost');
  if (`${parsed.pathname}${parsed.search}` !== path)
    throw new Error(
      `injectRaw: ${path} would reach the app as ${parsed.pathname}${parsed.search}; use a listening app`,
    );
  return injectOnce(app, new Request(`${origin}${path}`, init), path);
}
