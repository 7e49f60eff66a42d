import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import type { ListenAddress } from '../config/parsers.js';
import { NginxInputError } from './nginx-input-error.js';
import { clusterNotes, clusterRoomLocations, clusterUpstreams, type ClusterUpstreams } from './nginx-nodes.js';
import { renderTemplate } from './template.js';

/** What one site file is made of; every field is validated before it reaches the template. */
export interface NginxSite {
  readonly serverName: string;
  readonly engineAddr: ListenAddress;
  readonly compatAddr: ListenAddress;
  readonly trustedProxies: readonly string[];
  /** null: --http-only. Absolute paths. */
  readonly tls: { readonly cert: string; readonly key: string } | null;
  /** Where the site listens; null: the defaults (443 or 80); a bare port or null: IPv4 and IPv6. */
  readonly listen: string | null;
  /** TLS only: where the HTTP→HTTPS redirect listens; null: port 80; a bare port or null: IPv4 and IPv6. */
  readonly redirectListen: string | null;
  /** /bigbluebutton/ to the compat listener (the meeting API's upstream path); `meetctl nginx`'s default. */
  readonly legacyApiPath: boolean;
  /** Where both servers write their access log (format meet_noquery); null: no access log. Absolute. */
  readonly accessLog: string | null;
  /** `--nodes`: the engine and compat listeners of a cluster's nodes, in place of engineAddr and compatAddr; absent: one node. */
  readonly cluster?: ClusterUpstreams;
}

/** Debian's log directory, rotated by its logrotate rule (`/var/log/nginx/*.log`). */
export const defaultAccessLog = '/var/log/nginx/meet.access.log';

export const templateFile = new URL('../../nginx/meet.conf.template', import.meta.url);

/**
 * A DNS host name (or an IPv4 address, which has the same characters): letters, digits and
 * hyphens in dot-separated labels. Everything nginx would read as syntax (white space, `;`,
 * braces, quotes, `$`, `#`, new lines) is outside that alphabet, so it cannot reach the file.
 * A name in another script is given in its ASCII form (xn--…), as nginx matches Host with it.
 */
export function checkServerName(name: string): string {
  if (name === '') throw new NginxInputError('--server-name', 'is empty');
  if (/[^\x21-\x7e]/.test(name)) {
    throw new NginxInputError(
      '--server-name',
      `must be an ASCII host name without spaces or control characters (got ${JSON.stringify(name)}); write an international name in its xn-- form`,
    );
  }
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  const label = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
  if (bare.length > 253 || !bare.split('.').every((part) => label.test(part))) {
    throw new NginxInputError(
      '--server-name',
      `must be a host name such as meet.example.org: letters, digits, hyphens and dots (got ${JSON.stringify(name)})`,
    );
  }
  return bare.toLowerCase();
}

/** `port`, `host:port` or `[v6]:port`, as nginx's `listen` takes it. */
export function checkListen(value: string, flag: string): string {
  const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*):)?(\d{1,5})$/.exec(
    value,
  );
  const port = match ? Number(match[2]) : NaN;
  const host = match?.[1]?.replace(/^\[(.*)\]$/, '$1');
  const badHost = host !== undefined && host.includes(':') && isIP(host) !== 6;
  if (!match || port < 1 || port > 65535 || badHost) {
    throw new NginxInputError(
      flag,
      `must be PORT, HOST:PORT or [IPv6]:PORT with a port from 1 to 65535 (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

/**
 * A file path nginx reads as one word: absolute, and free of what its parser or its
 * variables would interpret (white space, quotes, `;`, braces, `$`, `#`, `\`).
 */
export function checkNginxPath(path: string, flag: string): string {
  if (!path.startsWith('/') || /[\s"'`;{}$#\\]|[^\x20-\x7e]/.test(path)) {
    throw new NginxInputError(
      flag,
      `must be an absolute path without spaces, quotes, ;, braces, $, # or \\ (got ${JSON.stringify(path)})`,
    );
  }
  return path;
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where nginx reaches a listener: a wildcard listen address is reached on loopback. */
export function upstreamOf(addr: ListenAddress, setting: string): string {
  if (addr.port === 0)
    throw new NginxInputError(setting, 'has port 0 (any free port): nginx needs the fixed port the daemon listens on');
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host;
  return hostPort(host, addr.port);
}

function hostOf(upstream: string): string {
  return upstream.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || /^127\./.test(host) || host === '::1';
}

/**
 * The address nginx connects to the engine from. nginx runs on the daemon's machine: to a
 * loopback upstream it connects from loopback, to one of the machine's own addresses from that
 * address (the kernel picks the destination's own interface address as the source).
 */
export function proxySource(engineUpstream: string): string {
  const host = hostOf(engineUpstream);
  if (host === 'localhost') return '127.0.0.1';
  return host;
}

/** Whether the daemon, trusting `trusted` (IPs and CIDR blocks), believes X-Forwarded-For from `source`. */
export function trusts(trusted: readonly string[], source: string): boolean {
  const family = isIP(source);
  if (family === 0) return false;
  const list = new BlockList();
  for (const entry of trusted) {
    const [ip, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return list.check(source, family === 6 ? 'ipv6' : 'ipv4');
}

/** Why the generated file and the daemon would disagree on who the client is; null when they agree. */
export function trustWarning(site: Pick<NginxSite, 'engineAddr' | 'trustedProxies'>): string | null {
  const source = proxySource(upstreamOf(site.engineAddr, 'SERVICE_HTTP_ADDR'));
  if (trusts(site.trustedProxies, source)) return null;
  const now = site.trustedProxies.length === 0 ? 'none' : site.trustedProxies.join(',');
  const where = isLoopback(source) ? 'on loopback' : 'not on loopback';
  return (
    `the engine listener is ${where}: nginx will connect from ${source}, which SERVICE_TRUSTED_PROXIES (${now}) does not cover, ` +
    `so the daemon will see nginx's address as every client's; add ${source} to SERVICE_TRUSTED_PROXIES`
  );
}

const hsts = 'add_header Strict-Transport-Security "max-age=63072000" always;';

const indent = (lines: readonly string[]) => lines.map((line) => `    ${line}`).join('\n');

/** A bare port (or none: the default one) listens on both address families; nginx's `listen PORT` alone is IPv4 only. */
function listenLines(listen: string | null, defaultPort: number, suffix: string): string[] {
  if (listen !== null && !/^\d+$/.test(listen)) return [`listen ${listen}${suffix};`];
  const port = listen ?? String(defaultPort);
  return [`listen ${port}${suffix};`, `listen [::]:${port}${suffix};`];
}

function portOf(listen: string | null, fallback: number): number {
  return listen === null ? fallback : Number(/(\d+)$/.exec(listen)![1]);
}

/** The header lines of a one-node site: where it proxies to, and the address the daemon must trust. */
function oneNodeNotes(engineUpstream: string, compatUpstream: string, trusted: string): string {
  return [
    "# Upstreams (from the service's configuration):",
    `#   engine listener  SERVICE_HTTP_ADDR  -> ${engineUpstream}`,
    `#   compat listener  COMPAT_HTTP_ADDR   -> ${compatUpstream}`,
    `# nginx connects to them from ${proxySource(engineUpstream)}. The daemon believes X-Forwarded-For only from`,
    `# SERVICE_TRUSTED_PROXIES (now: ${trusted}), which must cover that address, or every`,
  ].join('\n');
}

/** The site file's text. Pure: the template is passed in (`loadTemplate` reads the packaged one). */
export function renderNginxSite(template: string, site: NginxSite): string {
  const serverName = checkServerName(site.serverName);
  if (site.listen !== null) checkListen(site.listen, '--listen');
  if (site.redirectListen !== null) checkListen(site.redirectListen, '--redirect-listen');
  // The format is the point: a site that logged with nginx's default one would keep the tokens of every query string.
  const accessLog =
    site.accessLog === null ? 'off' : `${checkNginxPath(site.accessLog, '--site-access-log')} meet_noquery`;
  // A cluster names its nodes instead: this machine's listen addresses need not be any of them.
  const engineUpstream = site.cluster ? '' : upstreamOf(site.engineAddr, 'SERVICE_HTTP_ADDR');
  const compatUpstream = site.cluster ? '' : upstreamOf(site.compatAddr, 'COMPAT_HTTP_ADDR');

  let tlsLines = '';
  let redirectServer = '';
  let limitedHeaders = '';
  if (site.tls) {
    const cert = checkNginxPath(site.tls.cert, '--tls-cert');
    const key = checkNginxPath(site.tls.key, '--tls-key');
    tlsLines = `${indent([
      `ssl_certificate ${cert};`,
      `ssl_certificate_key ${key};`,
      '# Modern clients only: TLS 1.2 and 1.3, their own cipher preference (all suites of both are strong).',
      'ssl_protocols TLSv1.2 TLSv1.3;',
      'ssl_prefer_server_ciphers off;',
      'ssl_session_cache shared:meet_tls:10m;',
      'ssl_session_timeout 1d;',
      'ssl_session_tickets off;',
      '# Browsers come back over HTTPS only, for two years (subdomains are left to their own sites).',
      hsts,
    ])}\n\n`;
    // A location with add_header of its own inherits none of the server's.
    limitedHeaders = `        ${hsts}\n`;
    const httpsPort = portOf(site.listen, 443);
    const target = httpsPort === 443 ? `https://${serverName}` : `https://${serverName}:${httpsPort}`;
    redirectServer = [
      '',
      '# Plain HTTP only redirects to HTTPS.',
      'server {',
      indent(listenLines(site.redirectListen, 80, '')),
      `    server_name ${serverName};`,
      `    access_log ${accessLog};`,
      `    return 301 ${target}$request_uri;`,
      '}',
      '',
    ].join('\n');
  }
  const legacyApi = site.legacyApiPath
    ? [
        '',
        "    # The meeting API's upstream path, which Moodle, Canvas and Greenlight use: /bigbluebutton/api",
        '    # and /bigbluebutton/{tenant}/api, with or without the slash (a prefix location ending in /api/',
        '    # would answer /api with a 301 that clients do not follow). The compat listener answers these',
        '    # paths itself with the same pipeline as /confapi/api/, so the request passes unchanged.',
        '    # --no-legacy-api-path leaves it out.',
        '    location ^~ /bigbluebutton/ { proxy_pass http://meet_compat; }',
        '',
      ].join('\n')
    : '';
  const trusted = site.trustedProxies.length === 0 ? 'none' : site.trustedProxies.join(',');
  return renderTemplate(
    template,
    {
      server_name: serverName,
      ...(site.cluster
        ? {
            upstream_notes: clusterNotes(site.cluster, trusted),
            upstreams: clusterUpstreams(site.cluster),
            room_upstream: 'meet_rooms',
            room_locations: clusterRoomLocations,
          }
        : {
            upstream_notes: oneNodeNotes(engineUpstream, compatUpstream, trusted),
            upstreams: `upstream meet_engine { server ${engineUpstream}; keepalive 32; }\nupstream meet_compat { server ${compatUpstream}; keepalive 16; }`,
            room_upstream: 'meet_engine',
            room_locations: '',
          }),
      redirect_server: redirectServer,
      listen_lines: indent(listenLines(site.listen, site.tls ? 443 : 80, site.tls ? ' ssl' : '')),
      tls_lines: tlsLines,
      legacy_api: legacyApi,
      access_log: accessLog,
      limited_headers: limitedHeaders,
    },
    'nginx/meet.conf.template',
  );
}

export function loadTemplate(): string {
  return readFileSync(templateFile, 'utf8');
}
