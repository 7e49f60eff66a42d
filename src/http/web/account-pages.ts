import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { contentSecurityPolicy } from './web-routes.js';

const pageFile = fileURLToPath(new URL('../../web/static/account.html', import.meta.url));

/** The organisers' pages: what they hold comes from the API (/api/me); the HTML is the same for everyone. */
const accountPaths = ['/signin', '/set-password', '/rooms'] as const;

/**
 * GET /signin, /set-password and /rooms: one page (account.js picks the screen). Never framed, by
 * anyone (a password typed into a framed page could be clickjacked); no Referer leaves it, so the
 * one-time link's fragment could not either.
 */
export function accountPageRoutes() {
  const page = readFileSync(pageFile, 'utf8');
  const csp = contentSecurityPolicy([]).replace("frame-ancestors 'self'", "frame-ancestors 'none'");
  return async (app: FastifyInstance): Promise<void> => {
    for (const path of accountPaths)
      app.get(path, async (_request, reply) =>
        reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', csp)
          .header('referrer-policy', 'no-referrer')
          .header('cache-control', 'no-store')
          .send(page),
      );
  };
}
