import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/settings.js';
import { sessionTtlSecs } from '../room/session.js';

export type WebOptions = Pick<Config, 'waitingRoom' | 'embedAncestors'>;

/** Reads the framing origins of a join token of the embed gateway. */
export interface FramingReader {
  framingOf(
    token: string,
    graceSecs: number,
  ): Promise<{ readonly room: string; readonly embed: readonly string[] } | null>;
}

/**
 * How long after its join token expired an embedded page may still be framed by the origins
 * it names: a reload inside the frame shows the token the frame was opened with, for as long
 * as a session lasts (sessionTtlSecs).
 */
const framingGraceSecs = sessionTtlSecs;

/** The home page may be kept by any cache for five minutes: it holds nothing of anyone. */
const homeCacheControl = 'public, max-age=300';

const webDir = fileURLToPath(new URL('../../web', import.meta.url));
// The page bundles the wire protocol; dist/protocol stays served as /assets/protocol/live.js for other clients of it.
const protocolDir = fileURLToPath(new URL('../../protocol', import.meta.url));
const segmentationDir = dirname(createRequire(import.meta.url).resolve('@mediapipe/selfie_segmentation/package.json'));

/**
 * The page's policy: scripts only from here (plus compiling the segmentation model's wasm),
 * media from the camera and peers, sockets back to this host, framing only by the origins
 * the operator allowed. `connect-src 'self'` covers the live socket: in CSP Level 3 'self'
 * also matches ws:/wss: of the page's own host and port, whereas bare `ws: wss:` would let an
 * injected script send the meeting to any host. `pictures` (the room page only): people's pictures
 * from their join links (issue 33 point 8), https URLs of the platform's hosts, which no list here
 * can name in advance; an http picture stays blocked (the tile then shows her initials).
 */
export function contentSecurityPolicy(embedAncestors: readonly string[], pictures = false): string {
  const ancestors = embedAncestors.includes('*') ? ['*'] : ["'self'", ...embedAncestors];
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    `img-src 'self' data: blob:${pictures ? ' https:' : ''}`,
    "media-src 'self' blob: mediastream:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors.join(' ')}`,
  ].join('; ');
}

/**
 * The browser client: one page for arrival, waiting and meeting, and its assets. A plain page
 * may be framed by itself and SERVICE_EMBED_ANCESTORS only. A page opened with a join token of
 * the embed gateway for this room (`embed` claim, signed by this service after it verified the
 * application's token) may also be framed by the origins the claim names: the query's
 * `embed=1` alone decides nothing.
 */
export function webRoutes(options: WebOptions, tokens: FramingReader | null = null) {
  // The page is the same for every room; it names no meeting. Only the instance policy is filled in.
  const page = readFileSync(`${webDir}/static/page.html`, 'utf8').replace('{{waiting_policy}}', options.waitingRoom);
  const csp = contentSecurityPolicy(options.embedAncestors, true);
  // The home page (issue 32): the same bytes for everyone, so any cache may keep it for a while.
  const home = readFileSync(`${webDir}/static/home.html`, 'utf8');
  const homePolicy = contentSecurityPolicy([]);
  const policyFor = async (roomId: string, t: unknown): Promise<string> => {
    if (!tokens || typeof t !== 'string' || t === '' || t.length > 8192) return csp;
    const claims = await tokens.framingOf(t, framingGraceSecs);
    if (!claims || claims.room !== roomId) return csp;
    return contentSecurityPolicy([...options.embedAncestors, ...claims.embed], true);
  };
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(fastifyStatic, { root: webDir, prefix: '/assets/web/', decorateReply: false, index: false });
    await app.register(fastifyStatic, {
      root: protocolDir,
      prefix: '/assets/protocol/',
      decorateReply: false,
      index: false,
    });
    await app.register(fastifyStatic, {
      root: segmentationDir,
      prefix: '/assets/vendor/selfie/',
      decorateReply: false,
      index: false,
    });
    // No cookie is read and none is set: no room, count or name of anyone is on it.
    app.get('/', async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', homePolicy)
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', homeCacheControl)
        .send(home),
    );
    app.get<{ Params: { id: string }; Querystring: { t?: unknown } }>('/room/:id', async (request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', await policyFor(request.params.id, request.query.t))
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store')
        .send(page),
    );
  };
}
