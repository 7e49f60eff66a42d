import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Built from src/web/embed/external-api.ts by scripts/build-web.mjs (one classic function, its name tables bundled in). */
/**
 * The compiled script: beside this module in dist/ (dist/web/embed/), or, when this module runs
 * from its TypeScript source (tests load src/ in process), in the build's dist/ of the same package.
 */
const scriptFile =
  [
    new URL('../../web/embed/external-api.js', import.meta.url),
    new URL('../../../dist/web/embed/external-api.js', import.meta.url),
  ]
    .map((url) => fileURLToPath(url))
    .find((file) => existsSync(file)) ?? fileURLToPath(new URL('../../web/embed/external-api.js', import.meta.url));
// The string literal as the build emits it (esbuild writes double quotes).
const pageOriginMark = '"__VIDEOMEET_PAGE_ORIGIN__"';

// An hour in browsers and proxies: a release changes the bytes, hence the ETag, and a
// revalidation costs a 304. Not `immutable`: the URL carries no version.
const cacheControl = 'public, max-age=3600';

export interface EmbedScript {
  readonly body: string;
  readonly etag: string;
}

/**
 * The script as served: the source map line dropped (the map is not served here) and the
 * origin of the meeting pages (COMPAT_FRONTEND_URL) written in, so the parent side believes
 * the events of the page the gateway redirects its iframe to, and no other origin's.
 */
export function embedScript(frontendUrl: string): EmbedScript {
  const source = readFileSync(scriptFile, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
  if (!source.includes(pageOriginMark))
    throw new Error(`${scriptFile} lacks the page origin mark; rebuild the web client`);
  const body = source.replace(pageOriginMark, JSON.stringify(new URL(frontendUrl).origin));
  // A strong validator over the exact bytes sent.
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return { body, etag };
}

/** Whether an If-None-Match header names this ETag (a list, `*`, or a weak form of it). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * GET /external_api.js and /{tenant-or-app-id}/external_api.js (the path @jitsi/react-sdk
 * builds for a `tenant/room` roomName): one script, the same bytes whatever the first
 * segment says; the tenant is decided by the token at /videoconf, not by the script.
 */
export function scriptRoutes(frontendUrl: string) {
  const script = embedScript(frontendUrl);
  const send = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', cacheControl).header('etag', script.etag).header('x-content-type-options', 'nosniff');
    if (matches(request.headers['if-none-match'], script.etag)) return reply.code(304).send();
    return reply.type('application/javascript; charset=utf-8').send(script.body);
  };
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/external_api.js', send);
    app.get('/:tenant/external_api.js', send);
  };
}
