import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { settings } from '../../config/settings.js';
import { isLoopbackHost } from '../../config/loopback.js';
import { check, configMissing, fail, ok, skip } from './check.js';
import { siteStatements } from './nginx.js';
import { compatListens } from './ports.js';

/** A host no other machine reaches: loopback, localhost (RFC 6761 reserves all of *.localhost), or the unspecified address. */
export function isLocalHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isLoopbackHost(bare) || bare.endsWith('.localhost')) return true;
  return isIP(bare) !== 0 && /^(0\.0\.0\.0|::)$/.test(bare);
}

/** The site's server_name entries other people can reach: no catch-all (_), wildcard, regex or local name. */
export function publicServerNames(statements: readonly string[]): string[] {
  const names = statements.flatMap((s) => (/^server_name\s/.test(s) ? s.split(' ').slice(1) : []));
  return [...new Set(names)].filter(
    (name) => name !== '_' && name !== '' && !/[*~]/.test(name) && !name.startsWith('.') && !isLocalHost(name),
  );
}

/**
 * Every meeting-API join and external_api.js send people to COMPAT_FRONTEND_URL. Left at a
 * local address while nginx serves a public name, every join from Moodle, Canvas or an
 * embedding page fails on the participant's machine, while the service looks healthy.
 */
export const joinBaseCheck = check('public-url', 'Join address', (ctx) => {
  if (ctx.config === null) return configMissing;
  if (!compatListens(ctx.config)) return skip('compat listener off: nothing redirects joins');
  const base = ctx.config.compatFrontendUrl;
  const from =
    ctx.config.publicUrl === null
      ? `${settings.compatFrontendUrl.env}`
      : `${settings.compatFrontendUrl.env} (from ${settings.publicUrl.env})`;
  let names: string[] = [];
  try {
    if (statSync(ctx.nginxFile, { throwIfNoEntry: false })?.isFile())
      names = publicServerNames(siteStatements(ctx.nginxFile));
  } catch {
    // the nginx checks report an unreadable site
  }
  if (!isLocalHost(new URL(base).hostname)) return ok(`joins go to ${base} (${from})`);
  if (names.length === 0) return ok(`joins go to ${base} (${from}); no public server_name in ${ctx.nginxFile}`);
  return fail(
    `joins go to ${base} (${from}) while ${ctx.nginxFile} serves ${names.join(', ')}: people's browsers cannot reach it`,
    `set ${settings.publicUrl.env}=https://${names[0]} in the env file (meetctl install compat --public-url https://${names[0]}) and restart the service`,
  );
});
