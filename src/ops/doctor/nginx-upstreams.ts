import { readFileSync } from 'node:fs';
import type { ListenAddress } from '../../config/parsers.js';
import { check, configMissing, fail, ok, skip, warn } from './check.js';
import { judgeSite } from './nginx.js';
import { compatListens } from './ports.js';

/** One statement of an nginx file and the blocks around it, outermost first ("server", "location / "). */
export interface Placed {
  readonly blocks: readonly string[];
  /** A number per enclosing block, unique in the file: two server blocks are told apart by it. */
  readonly blockIds: readonly number[];
  readonly statement: string;
}

/** The file's statements with their enclosing blocks, without `#` comments (outside quotes). */
export function placedStatements(text: string): Placed[] {
  const out: Placed[] = [];
  const blocks: string[] = [];
  const ids: number[] = [];
  let opened = 0;
  let current = '';
  let quote: string | null = null;
  let comment = false;
  const flush = () => current.replace(/\s+/g, ' ').trim();
  for (const ch of text) {
    if (comment) {
      if (ch === '\n') comment = false;
      continue;
    }
    if (quote !== null) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '#') comment = true;
    else if (ch === ';') {
      if (flush() !== '') out.push({ blocks: [...blocks], blockIds: [...ids], statement: flush() });
      current = '';
    } else if (ch === '{') {
      blocks.push(flush());
      ids.push(opened++);
      current = '';
    } else if (ch === '}') {
      blocks.pop();
      ids.pop();
      current = '';
    } else current += ch;
  }
  return out;
}

interface Target {
  readonly host: string;
  readonly port: number;
  /** How the site names it: "upstream meet_engine" or "proxy_pass". */
  readonly via: string;
}

/** host:port, [v6]:port or host (port 80) as nginx's server and proxy_pass take them; null for unix: sockets and variables. */
function addressOf(text: string, via: string): Target | null {
  if (text.startsWith('unix:') || text.includes('$')) return null;
  const m = /^(\[[^\]]+\]|[^:/]+)(?::(\d+))?$/.exec(text);
  if (!m) return null;
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1').toLowerCase(), port: m[2] === undefined ? 80 : Number(m[2]), via };
}

/** Every address the site proxies to: the servers of the upstreams its proxy_pass lines name, and direct addresses. */
export function proxyTargets(placed: readonly Placed[]): Target[] {
  const upstreams = new Map<string, Target[]>();
  for (const p of placed) {
    const up = /^upstream (\S+)$/.exec(p.blocks.at(-1) ?? '');
    const server = /^server (\S+)/.exec(p.statement);
    if (!up || !server) continue;
    const target = addressOf(server[1]!, `upstream ${up[1]!}`);
    if (target) upstreams.set(up[1]!, [...(upstreams.get(up[1]!) ?? []), target]);
  }
  const targets: Target[] = [];
  for (const p of placed) {
    const pass = /^proxy_pass https?:\/\/([^/\s]+)/.exec(p.statement);
    if (!pass) continue;
    const named = upstreams.get(pass[1]!);
    const direct = named ? null : addressOf(pass[1]!, 'proxy_pass');
    targets.push(...(named ?? (direct ? [direct] : [])));
  }
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(`${t.host}|${t.port}`) && seen.add(`${t.host}|${t.port}`));
}

const loopbackName = (host: string) => (host === 'localhost' ? '127.0.0.1' : host);

/** Whether nginx connecting to `target` reaches a daemon listening on `addr` (a wildcard listener answers on every address). */
export function reaches(target: Pick<Target, 'host' | 'port'>, addr: ListenAddress): boolean {
  if (target.port !== addr.port) return false;
  const host = addr.host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === '0.0.0.0' || host === '::') return true;
  return loopbackName(target.host) === loopbackName(host);
}

const shown = (t: Pick<Target, 'host' | 'port'>) =>
  t.host.includes(':') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
const regenerate =
  'regenerate the site from the env file: meetctl nginx --install --force --tls-cert FILE --tls-key FILE (it reads the listen addresses)';

/**
 * The site's upstreams against the addresses the service listens on: a port changed in the
 * env file after the site was written leaves nginx answering 502 while the daemon is healthy.
 */
export const nginxUpstreamsCheck = check('nginx-upstreams', 'nginx upstreams', (ctx) => {
  if (ctx.config === null) return configMissing;
  const config = ctx.config;
  return judgeSite(
    ctx.nginxFile,
    (file) => readFileSync(file, 'utf8'),
    (text) => {
      const listeners: [string, ListenAddress][] = [['SERVICE_HTTP_ADDR', config.httpAddr]];
      if (compatListens(config)) listeners.push(['COMPAT_HTTP_ADDR', config.compatHttpAddr]);
      // Port 0 is chosen by the system at each start: no site can name it, so there is nothing to compare.
      const picked = listeners.find(([, addr]) => addr.port === 0);
      if (picked) return skip(`${picked[0]} ${shown(picked[1])}: port 0, the system picks a free one`);
      const placed = placedStatements(text);
      const targets = proxyTargets(placed);
      // `meetctl nginx --nodes`: the other nodes' addresses are theirs, not a stale port of this one.
      const cluster = placed.some((p) => p.blocks.at(-1) === 'upstream meet_rooms');
      if (targets.length === 0)
        return warn(
          `${ctx.nginxFile} proxies to no address of this service (no proxy_pass to a host:port)`,
          regenerate,
        );
      // An engine-only install keeps the rendered compat upstream: 502 there is the module being off, not a stale site.
      const known = compatListens(config)
        ? listeners
        : [...listeners, ['COMPAT_HTTP_ADDR', config.compatHttpAddr] as const];
      const stale = cluster ? [] : targets.filter((t) => !known.some(([, addr]) => reaches(t, addr)));
      const unreached = listeners.filter(([, addr]) => !targets.some((t) => reaches(t, addr)));
      const listening = listeners.map(([name, addr]) => `${name} ${shown(addr)}`).join(', ');
      if (stale.length > 0 || unreached.length > 0) {
        const parts = [
          ...stale.map((t) => `proxies to ${shown(t)} (${t.via}), where the service does not listen`),
          ...unreached.map(([name, addr]) => `never proxies to ${name} ${shown(addr)}`),
        ];
        return fail(
          `${ctx.nginxFile} ${parts.join(' and ')} (the service listens on ${listening}): nginx answers 502`,
          regenerate,
        );
      }
      return ok(`${ctx.nginxFile} proxies to ${listening}${cluster ? ' among the nodes of a cluster' : ''}`);
    },
  );
});
