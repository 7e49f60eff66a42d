import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/settings.js';

export type WebOptions = Pick<Config, 'waitingRoom' | 'embedAncestors'>;

const webDir = fileURLToPath(new URL('../../web', import.meta.url));
const segmentationDir = dirname(createRequire(import.meta.url).resolve('@mediapipe/selfie_segmentation/package.json'));

/**
 * The page's policy: scripts only from here (plus compiling the segmentation model's wasm),
 * media from the camera and peers, sockets back to this host, framing only by the origins
 * the operator allowed. `connect-src 'self'` covers the live socket: in CSP Level 3 'self'
 * also matches ws:/wss: of the page's own host and port, whereas bare `ws: wss:` would let an
 * injected script send the meeting to any host.
 */
export function contentSecurityPolicy(embedAncestors: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${["'self'", ...embedAncestors].join(' ')}`,
  ].join('; ');
}

/** The browser client: one page for arrival, waiting and meeting, and its assets. */
export function webRoutes(options: WebOptions) {
  // The page is the same for every room; it names no meeting. Only the instance policy is filled in.
  const page = readFileSync(`${webDir}/static/page.html`, 'utf8').replace('{{waiting_policy}}', options.waitingRoom);
  const csp = contentSecurityPolicy(options.embedAncestors);
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(fastifyStatic, { root: webDir, prefix: '/assets/web/', decorateReply: false, index: false });
    await app.register(fastifyStatic, { root: segmentationDir, prefix: '/assets/vendor/selfie/', decorateReply: false, index: false });
    app.get<{ Params: { id: string } }>('/room/:id', async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', csp)
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store')
        .send(page),
    );
  };
}
