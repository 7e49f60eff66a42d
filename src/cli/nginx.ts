import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readIfExists, writeFileAtomic, LockTimeout } from '../platform/atomic-file.js';
import { defaultAccessLog, loadTemplate, renderNginxSite, trustWarning, type NginxSite } from '../ops/nginx-config.js';
import { InstallFailure, installSite, type NginxCommand } from '../ops/nginx-install.js';
import { NginxInputError } from '../ops/nginx-input-error.js';
import { compatNodesOf, parseNodes } from '../ops/nginx-nodes.js';
import { checkTlsPair } from '../ops/tls-files.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';
import { preflight } from './preflight.js';
import { paint, step } from './ui.js';

interface NginxOptions {
  serverName?: string;
  tlsCert?: string;
  tlsKey?: string;
  httpOnly?: boolean;
  listen?: string;
  redirectListen?: string;
  legacyApiPath?: boolean;
  siteAccessLog: string;
  nodes?: string;
  compatNodes?: string;
  out?: string;
  force?: boolean;
  install?: boolean;
  siteFile: string;
  enabledDir: string;
  nginxBin?: string;
  nginxPrefix?: string;
  nginxConf?: string;
  envFile?: string;
  configDir?: string;
  config?: string;
}

const forceHint = 'pass --force to replace it (compare first: meetctl nginx <same flags> | diff <file> -)';

/** The site described by the flags and the loaded configuration; usage mistakes are exit 64, bad values exit 2. */
function siteFrom(options: NginxOptions, io: CliIo): NginxSite {
  // The configuration the daemon runs with, so the site proxies to the listeners install chose and names SERVICE_PUBLIC_URL's host.
  const { config } = loadServiceConfig(options as unknown as Record<string, unknown>, io);
  // The public address names the site: browsers, LMS joins and external_api.js all go there.
  const serverName = options.serverName ?? (config.publicUrl === null ? undefined : new URL(config.publicUrl).hostname);
  if (serverName === undefined)
    throw new CliError(
      'usage',
      '--server-name is required when SERVICE_PUBLIC_URL is not set',
      'pass the host name browsers use, e.g. --server-name meet.example.org, or install with --public-url https://meet.example.org',
    );
  const tlsGiven = options.tlsCert !== undefined || options.tlsKey !== undefined;
  if (tlsGiven && options.httpOnly)
    throw new CliError(
      'usage',
      '--http-only cannot be combined with --tls-cert/--tls-key',
      'choose TLS (both files) or --http-only',
    );
  if (tlsGiven && (options.tlsCert === undefined || options.tlsKey === undefined)) {
    throw new CliError(
      'usage',
      `${options.tlsCert === undefined ? '--tls-cert' : '--tls-key'} is missing: TLS needs both --tls-cert and --tls-key`,
      'pass the certificate chain and its private key',
    );
  }
  if (!tlsGiven && !options.httpOnly)
    throw new CliError(
      'usage',
      'pass --tls-cert and --tls-key, or --http-only',
      'TLS is the default for a public site; --http-only is for a site behind another TLS terminator or a test',
    );
  if (options.redirectListen !== undefined && !tlsGiven)
    throw new CliError('usage', '--redirect-listen only applies with TLS (the HTTP→HTTPS redirect)');
  if (options.compatNodes !== undefined && options.nodes === undefined)
    throw new CliError('usage', '--compat-nodes only applies with --nodes (a cluster)', 'pass --nodes host:port,… too');
  const nodes = options.nodes === undefined ? null : parseNodes(options.nodes, '--nodes');
  return {
    serverName,
    engineAddr: config.httpAddr,
    compatAddr: config.compatHttpAddr,
    trustedProxies: config.trustedProxies,
    tls: tlsGiven ? { cert: resolve(options.tlsCert!), key: resolve(options.tlsKey!) } : null,
    listen: options.listen ?? null,
    redirectListen: options.redirectListen ?? null,
    // On unless --no-legacy-api-path: Moodle, Canvas and Greenlight call /bigbluebutton/api.
    legacyApiPath: options.legacyApiPath !== false,
    accessLog: options.siteAccessLog === 'off' ? null : resolve(options.siteAccessLog),
    ...(nodes
      ? {
          cluster: {
            nodes,
            compatNodes: compatNodesOf(nodes, config.compatHttpAddr.port, options.compatNodes ?? null),
          },
        }
      : {}),
  };
}

function nginxCommandOf(options: NginxOptions, io: CliIo): NginxCommand {
  const args: string[] = [];
  if (options.nginxPrefix !== undefined) args.push('-p', resolve(options.nginxPrefix));
  if (options.nginxConf !== undefined) args.push('-c', resolve(options.nginxConf));
  return { bin: options.nginxBin ?? io.env.MEET_NGINX_BIN ?? 'nginx', args };
}

function warn(io: CliIo, text: string): void {
  io.err(`${paint(io, 'yellow', 'meetctl: warning:')} ${text}\n`);
}

/** --out: the same bytes are left alone, different ones only replaced with --force. */
function writeOut(file: string, text: string, force: boolean, io: CliIo): void {
  const path = resolve(file);
  const before = readIfExists(path);
  if (before === text) {
    io.out(`${path} unchanged\n`);
    return;
  }
  if (before !== null && !force)
    throw new CliError('refused', `${path} exists and differs from the generated configuration`, forceHint);
  writeFileAtomic(path, text, 0o644);
  io.out(`wrote ${path}\n`);
}

async function install(options: NginxOptions, text: string, io: CliIo): Promise<void> {
  const location = { siteFile: options.siteFile, enabledDir: options.enabledDir };
  const nginx = nginxCommandOf(options, io);
  try {
    const outcome = await installSite(location, text, options.force === true, nginx, {
      step: (title, work) => step(io, title, work),
    });
    io.out(
      outcome === 'unchanged'
        ? `${resolve(options.siteFile)} unchanged; nginx not reloaded\n`
        : `installed ${resolve(options.siteFile)}; nginx reloaded\n`,
    );
  } catch (err) {
    if (err instanceof LockTimeout)
      throw new CliError(
        'environment',
        `another meetctl nginx --install is running (${err.message})`,
        'wait for it to finish, or remove the lock file if no meetctl runs',
      );
    if (!(err instanceof InstallFailure)) throw err;
    switch (err.reason) {
      case 'differs':
      case 'link-taken':
        throw new CliError('refused', err.message, forceHint);
      case 'no-nginx':
        throw new CliError(
          'environment',
          err.message,
          'install nginx (apt install nginx) or pass --nginx-bin / MEET_NGINX_BIN',
        );
      case 'test-failed':
        throw new CliError(
          'environment',
          err.message,
          'fix what nginx names above (the site file was not left in place)',
        );
      case 'reload-failed':
        throw new CliError(
          'environment',
          err.message,
          'is nginx running? start it (systemctl start nginx); the new site is used from its next start',
        );
    }
  }
}

export function nginxCommand(program: Command, io: CliIo): void {
  const command = program
    .command('nginx')
    .description(
      'render the nginx site for this service (room limits, compat paths, live WebSocket, TLS); print it, write it (--out) or install it (--install)',
    )
    .option(
      '--server-name <name>',
      "host name browsers use, e.g. meet.example.org (default: SERVICE_PUBLIC_URL's host)",
    )
    .option(
      '--env-file <path>',
      'environment file of the service, read beneath this environment (default <SERVICE_CONFIG_DIR or /etc/meet>/meet.env)',
    )
    .option('--tls-cert <file>', 'TLS certificate chain (PEM); with --tls-key')
    .option('--tls-key <file>', 'private key of --tls-cert (PEM)')
    .option('--http-only', 'no TLS (behind another TLS terminator, or for a test)')
    .option(
      '--listen <addr>',
      'where the site listens: PORT (IPv4 and IPv6), HOST:PORT or [IPv6]:PORT (default 443, or 80 with --http-only)',
    )
    .option(
      '--redirect-listen <addr>',
      'TLS only: where the HTTP→HTTPS redirect listens: PORT (IPv4 and IPv6), HOST:PORT or [IPv6]:PORT (default 80)',
    )
    // Defined before its negation, so neither sets a value unless given (commander): the default is decided above.
    .option(
      '--legacy-api-path',
      'the default, kept for old commands: the meeting API also at /bigbluebutton/api (Moodle, Canvas, Greenlight)',
    )
    .option('--no-legacy-api-path', 'leave /bigbluebutton/ out of the site (the meeting API only at /confapi/)')
    .option(
      '--site-access-log <file>',
      'access log of the site, written without query strings (format meet_noquery); off: none',
      defaultAccessLog,
    )
    .option(
      '--nodes <list>',
      "a cluster's nodes, host:port of each engine listener (comma-separated, at most 64): room addresses by room id (hash $meet_room_key consistent), the rest round-robin",
    )
    .option(
      '--compat-nodes <list>',
      "with --nodes: each node's compat listener, host:port (default: each --nodes host with COMPAT_HTTP_ADDR's port)",
    )
    .option('--out <file>', 'write the site file here instead of standard output')
    .option('--force', 'replace a site file (or the link in --enabled-dir) that differs')
    .option(
      '--install',
      'write --site-file, link it into --enabled-dir, run nginx -t and reload nginx only when the test passed',
    )
    .option('--site-file <file>', 'with --install: the site file', '/etc/nginx/sites-available/meet.conf')
    .option(
      '--enabled-dir <dir>',
      'with --install: the directory nginx includes, where the site file is linked (its own directory: no link)',
      '/etc/nginx/sites-enabled',
    )
    .option('--nginx-bin <path>', 'with --install: the nginx program [MEET_NGINX_BIN] (default nginx)')
    .option('--nginx-prefix <dir>', 'with --install: passed to nginx as -p (a non-system nginx)')
    .option('--nginx-conf <file>', 'with --install: passed to nginx as -c (a non-system nginx)')
    .action(async (options: NginxOptions) => {
      if (options.out !== undefined && options.install)
        throw new CliError('usage', '--out and --install exclude each other', '--install writes --site-file');
      let text: string;
      try {
        const site = siteFrom(options, io);
        text = renderNginxSite(loadTemplate(), site);
        const warnings = site.tls ? checkTlsPair(site.tls.cert, site.tls.key, site.serverName, new Date()) : [];
        // A cluster's nodes judge nginx's address by their own SERVICE_TRUSTED_PROXIES, which the site's header names.
        const trust = site.cluster ? null : trustWarning(site);
        if (trust) warnings.push(trust);
        for (const warning of warnings) warn(io, warning);
      } catch (err) {
        if (err instanceof NginxInputError) throw new CliError('config', err.message);
        throw err;
      }
      if (options.install) {
        // The site as it will be installed, judged by doctor's site checks before it replaces anything.
        await preflight(
          'nginxInstall',
          loadServiceConfig(options as unknown as Record<string, unknown>, io).config,
          io,
          { site: text },
        );
        await install(options, text, io);
      } else if (options.out !== undefined) writeOut(options.out, text, options.force === true, io);
      else io.out(text);
    });
  addConfigOptions(command, ['httpAddr', 'compatHttpAddr', 'trustedProxies', 'publicUrl']);
  addServiceConfigOptions(command);
}
