import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ListenAddress } from '../../config/parsers.js';
import { isPublicListener } from '../listen-addresses.js';
import { check, configMissing, fail, ok, reason, skip, warn, type DoctorContext, type Outcome } from './check.js';
import { compatListens } from './ports.js';
import { findProgram, firstLines, runProgram } from './programs.js';

/** Where `meetctl nginx --install` puts the site, and so where doctor looks unless told. */
export const defaultNginxFile = '/etc/nginx/sites-available/meet.conf';
/** Relative include paths in a site resolve against nginx's configuration directory. */
const defaultNginxConfDir = '/etc/nginx';

export function nginxBinary(ctx: DoctorContext): string | null {
  return findProgram('nginx', ctx.nginxBin ?? ctx.env.MEET_NGINX_BIN ?? null, ctx.env);
}

/** Text without `#` comments (outside quotes), cut into statements "name arg arg". */
export function statementsOf(text: string): string[] {
  let plain = '';
  let quote: string | null = null;
  let comment = false;
  for (const ch of text) {
    if (comment) {
      if (ch === '\n') {
        comment = false;
        plain += ch;
      }
      continue;
    }
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '#') {
      comment = true;
      continue;
    }
    plain += ch;
  }
  return plain
    .split(/[;{}]/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/**
 * Reads the installed site with `read` and judges it; no site file, or one that cannot be read
 * (the nginx site check reports that), is a skip: there is nothing to judge.
 */
export function judgeSite<T>(file: string, read: (file: string) => T, judge: (site: T) => Outcome): Outcome {
  let site: T;
  try {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return skip('no nginx site file');
    site = read(file);
  } catch (err) {
    return skip(`cannot read ${file}: ${reason(err)}`);
  }
  return judge(site);
}

/** The site's statements and those of the files it includes (two levels; globs are not followed). */
export function siteStatements(file: string, confDir = defaultNginxConfDir, depth = 0): string[] {
  const statements = statementsOf(readFileSync(file, 'utf8'));
  if (depth >= 2) return statements;
  const out: string[] = [];
  for (const s of statements) {
    out.push(s);
    const include = /^include\s+["']?([^"'\s]+)["']?$/.exec(s);
    if (!include || include[1]!.includes('*')) continue;
    const target = isAbsolute(include[1]!) ? include[1]! : resolve(confDir, include[1]!);
    try {
      out.push(...siteStatements(target, confDir, depth + 1));
    } catch {
      // a missing include is nginx -t's to report
    }
  }
  return out;
}

interface Requirement {
  /** The line as the operator should find it. */
  readonly line: string;
  /** The directive is there… */
  readonly present: RegExp;
  /** …with the recommended values. */
  readonly exact: RegExp;
}

/** The room addresses' limit (burst 100, then 10 per second, per client address) and the forwarding headers. */
export const requiredLines: readonly Requirement[] = [
  {
    line: 'limit_req_zone $binary_remote_addr zone=…:… rate=10r/s;',
    present: /^limit_req_zone \$binary_remote_addr /,
    exact: /^limit_req_zone \$binary_remote_addr (?=.*\bzone=\S+:\S+)(?=.*\brate=10r\/s(\s|$)).*/,
  },
  {
    line: 'limit_req zone=… burst=100 nodelay;',
    present: /^limit_req (?=.*\bzone=)/,
    exact: /^limit_req (?=.*\bzone=\S+)(?=.*\bburst=100(\s|$))(?=.*(^|\s)nodelay(\s|$)).*/,
  },
  { line: 'limit_req_status 429;', present: /^limit_req_status /, exact: /^limit_req_status 429$/ },
  {
    line: 'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    present: /^proxy_set_header x-forwarded-for /i,
    exact: /^proxy_set_header x-forwarded-for \S+$/i,
  },
  {
    line: 'proxy_set_header X-Forwarded-Proto $scheme;',
    present: /^proxy_set_header x-forwarded-proto /i,
    exact: /^proxy_set_header x-forwarded-proto \S+$/i,
  },
];

export function judgeSiteLines(statements: readonly string[]) {
  const missing: string[] = [];
  const differing: string[] = [];
  for (const req of requiredLines) {
    if (statements.some((s) => req.exact.test(s))) continue;
    const found = statements.find((s) => req.present.test(s));
    if (found) differing.push(`${found} (recommended: ${req.line})`);
    else missing.push(req.line);
  }
  return { missing, differing };
}

function fileState(file: string): 'file' | 'absent' | 'other' | { readonly unreadable: string } {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return 'absent';
    return stat.isFile() ? 'file' : 'other';
  } catch (err) {
    return { unreadable: reason(err) };
  }
}

export const nginxFileCheck = check('nginx-file', 'nginx site', (ctx) => {
  const state = fileState(ctx.nginxFile);
  if (state === 'file') return ok(`${ctx.nginxFile} present`);
  if (state === 'other')
    return fail(`${ctx.nginxFile} is not a regular file`, 'pass --nginx-file with the site file nginx loads');
  if (typeof state === 'object')
    return fail(`cannot read ${ctx.nginxFile}: ${state.unreadable}`, 'run meetctl doctor as root');
  const hint = 'write it with meetctl nginx --install (or pass --nginx-file PATH if it lives elsewhere)';
  // Without nginx on this machine the proxy may live elsewhere (a container, another host).
  if (nginxBinary(ctx) === null)
    return warn(`${ctx.nginxFile} not found and nginx is not installed: the room limits need a proxy in front`, hint);
  return fail(`${ctx.nginxFile} not found`, hint);
});

export const nginxLinesCheck = check('nginx-lines', 'nginx limits and forwarding', (ctx) => {
  if (fileState(ctx.nginxFile) !== 'file') return skip('no nginx site file');
  const { missing, differing } = judgeSiteLines(siteStatements(ctx.nginxFile));
  if (missing.length > 0) {
    return fail(
      `${ctx.nginxFile} lacks ${missing.join(' and ')}`,
      'regenerate the site with meetctl nginx --install --force, or add the line(s) named above',
    );
  }
  if (differing.length > 0)
    return warn(
      `${ctx.nginxFile} differs from the recommended values: ${differing.join('; ')}`,
      'the room addresses need burst=100 and 10r/s per address: a whole class often shares one school address',
    );
  return ok(
    'limit_req_zone 10r/s, limit_req burst=100 nodelay, limit_req_status 429, X-Forwarded-For and X-Forwarded-Proto present',
  );
});

/** nginx's configuration directory (from `nginx -V`'s --conf-path), for relative includes. */
async function confDirOf(nginx: string, env: DoctorContext['env']): Promise<string> {
  const version = await runProgram(nginx, ['-V'], env, 10_000);
  const match = /--conf-path=(\S+)/.exec(version.output);
  return match ? dirname(match[1]!) : defaultNginxConfDir;
}

/**
 * `nginx -t` on the site alone, wrapped in a configuration of its own in a temporary
 * directory: it needs no root (pid, logs and temp paths are in that directory) and tests
 * this file rather than whatever else the system's nginx.conf includes. Entries of nginx's
 * configuration directory are linked beside the wrapper, so the site's relative includes
 * resolve as they do for the real nginx; the prefix stays nginx's own, so do the dynamic
 * modules that modules-enabled loads.
 */
export async function testSite(nginx: string, site: string, env: DoctorContext['env']) {
  const confDir = await confDirOf(nginx, env);
  const prefix = mkdtempSync(join(tmpdir(), 'meet-doctor-nginx-'));
  try {
    let entries: string[] = [];
    try {
      entries = readdirSync(confDir);
    } catch {
      // no configuration directory: only absolute includes resolve
    }
    for (const entry of entries) {
      if (entry !== 'nginx.conf') symlinkSync(join(confDir, entry), join(prefix, entry));
    }
    const modules = entries.includes('modules-enabled') ? `include ${join(confDir, 'modules-enabled')}/*.conf;\n` : '';
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      `${modules}pid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log;\nevents {}\nhttp {\n` +
        ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((kind) => `  ${kind}_temp_path ${prefix}/${kind};\n`)
          .join('') +
        `  access_log off;\n  include ${JSON.stringify(resolve(site))};\n}\n`,
    );
    return await runProgram(nginx, ['-t', '-q', '-c', conf, '-e', `${prefix}/error.log`], env, 20_000);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

export const nginxTestCheck = check('nginx-test', 'nginx -t', async (ctx) => {
  const nginx = nginxBinary(ctx);
  if (nginx === null)
    return skip(
      (ctx.nginxBin ?? ctx.env.MEET_NGINX_BIN)
        ? `nginx not found at ${ctx.nginxBin ?? ctx.env.MEET_NGINX_BIN}`
        : 'nginx is not installed',
    );
  if (fileState(ctx.nginxFile) !== 'file') return skip('no nginx site file');
  const result = await testSite(nginx, ctx.nginxFile, ctx.env);
  if (result.error !== null && result.code === null)
    return fail(`${nginx} -t could not run: ${result.error}`, 'check the nginx installation');
  const messages = result.output.split('\n').filter((l) => /\[(emerg|alert|crit|error|warn)\]/.test(l));
  if (result.code !== 0) {
    const denied = /Permission denied/.test(result.output);
    if (denied && process.getuid?.() !== 0)
      return skip(
        `nginx -t needs root to read what the site names: ${firstLines(messages.join('\n') || result.output, 1)}`,
      );
    return fail(
      `${ctx.nginxFile}: ${firstLines(messages.join('\n') || result.output, 2)}`,
      'fix the line nginx names; meetctl nginx --force regenerates the site',
    );
  }
  if (messages.length > 0)
    return warn(
      `${ctx.nginxFile} passes with warnings: ${firstLines(messages.join('\n'), 2)}`,
      'nginx names the line to look at',
    );
  return ok(`${ctx.nginxFile} passes (${nginx})`);
});

const shownAddress = (addr: ListenAddress) =>
  addr.host.includes(':') ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;

/**
 * With an nginx site in front, a listener on a public address lets clients reach the daemon
 * directly, around nginx's TLS, its limits and the client address it vouches for.
 */
export const listenersBehindNginxCheck = check('listeners', 'Listeners behind nginx', (ctx) => {
  if (ctx.config === null) return configMissing;
  if (fileState(ctx.nginxFile) !== 'file') return skip('no nginx site file: nothing to go around');
  const listeners: [string, ListenAddress][] = [['SERVICE_HTTP_ADDR', ctx.config.httpAddr]];
  if (compatListens(ctx.config)) listeners.push(['COMPAT_HTTP_ADDR', ctx.config.compatHttpAddr]);
  const open = listeners.filter(([, addr]) => isPublicListener(addr));
  if (open.length === 0)
    return ok(
      `${listeners.map(([name, addr]) => `${name} ${shownAddress(addr)}`).join(', ')}: loopback, reached through nginx only`,
    );
  return warn(
    `${open.map(([name, addr]) => `${name} ${shownAddress(addr)}`).join(' and ')} ${open.length === 1 ? 'is' : 'are'} reachable from other machines while ` +
      `${ctx.nginxFile} is installed: clients can go around nginx's TLS and limits`,
    `set ${open.map(([name, addr]) => `${name}=127.0.0.1:${addr.port}`).join(' and ')} in the env file (meetctl install writes loopback addresses), or firewall the port${open.length === 1 ? '' : 's'}`,
  );
});
