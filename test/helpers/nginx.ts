import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tap } from './api.js';
import { runCli } from './cli.js';

/** Debian's nginx; CI installs it when missing. */
export const nginxBin = '/usr/sbin/nginx';

/** nginx never runs as root in the tests: as root, it is started as nobody (its prefix is given to nobody). */
const asRoot = process.getuid?.() === 0;
const nobody = 65534;

import { freePort, freePorts } from './net.js';

export { freePort, freePorts };

/** A test-owned nginx: its own prefix, main file, logs and temp paths; the site file is included from `site`. */
export interface TestNginx {
  readonly prefix: string;
  readonly conf: string;
  /** The site file nginx.conf includes (what `meetctl nginx --out` or `--install` writes). */
  readonly site: string;
  /** Where the site's own access log goes (`meetctl nginx --site-access-log`): in the prefix, writable by the user nginx runs as. */
  readonly accessLog: string;
  /** Arguments that point nginx (and `meetctl nginx --install`) at this instance. */
  readonly args: readonly string[];
  /** `meetctl nginx --install`'s flags for this instance (the site file, its link, prefix and nginx.conf), all but --nginx-bin. */
  readonly siteArgs: readonly string[];
  /** Runs `nginx -t` against this instance: exit status and nginx's own words. */
  test(): { ok: boolean; output: string };
  /** Starts nginx (daemon off, child of the test) and waits until `port` accepts; stopped at teardown. */
  start(port: number): Promise<void>;
  errorLog(): string;
  /** Gives the prefix's files to the user nginx runs as (after the test wrote new ones). */
  handOver(): void;
}

/**
 * A prefix under /tmp with an nginx.conf that includes the site file and every file of
 * `<prefix>/extra/` (so a test can break the configuration beside the site file). With
 * `debian`, the site file is `<prefix>/sites-available/meet.conf` and nginx includes
 * `<prefix>/sites-enabled/*`, Debian's layout; otherwise it includes `<prefix>/meet.conf`.
 */
export function nginxPrefixFor(t: Tap, options: { debian?: boolean } = {}): TestNginx {
  const prefix = mkdtempSync(join(tmpdir(), 'meet-nginx-'));
  for (const dir of ['logs', 'tmp', 'extra', 'sites-available', 'sites-enabled']) mkdirSync(join(prefix, dir));
  const site = options.debian ? join(prefix, 'sites-available', 'meet.conf') : join(prefix, 'meet.conf');
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    [
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/logs/error.log info;`,
      'worker_processes 1;',
      'events { worker_connections 512; }',
      'http {',
      `    access_log ${prefix}/logs/access.log;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `    ${kind}_temp_path ${prefix}/tmp/${kind};`,
      ),
      `    include ${options.debian ? `${prefix}/sites-enabled/*` : site};`,
      `    include ${prefix}/extra/*.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const handOver = () => {
    if (!asRoot) return;
    const give = (path: string) => {
      chownSync(path, nobody, nobody);
      if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) give(join(path, entry));
    };
    give(prefix);
  };
  const args = ['-p', prefix, '-c', conf];
  const nginx: TestNginx = {
    prefix,
    conf,
    site,
    accessLog: join(prefix, 'logs', 'meet.access.log'),
    args,
    siteArgs: [
      '--site-file',
      site,
      '--enabled-dir',
      join(prefix, 'sites-enabled'),
      '--nginx-prefix',
      prefix,
      '--nginx-conf',
      conf,
    ],
    test() {
      const run = spawnSync(nginxBin, [...args, '-t'], { encoding: 'utf8' });
      return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
    },
    async start(port) {
      handOver();
      const command = [nginxBin, ...args, '-g', 'daemon off;'];
      const [file, ...argv] = asRoot
        ? ['setpriv', `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', ...command]
        : command;
      const started = spawn(file!, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
      child = started;
      let stderr = '';
      started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
      const deadline = Date.now() + 10_000;
      for (;;) {
        if (started.exitCode !== null)
          throw new Error(`nginx exited (${started.exitCode}):\n${stderr}\n${nginx.errorLog()}`);
        const up = await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
        if (up) return;
        if (Date.now() > deadline)
          throw new Error(`nginx did not listen on ${port} within 10 s:\n${stderr}\n${nginx.errorLog()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    errorLog() {
      try {
        return readFileSync(join(prefix, 'logs/error.log'), 'utf8');
      } catch {
        return '';
      }
    },
    handOver,
  };
  t.teardown(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(prefix, { recursive: true, force: true });
  });
  return nginx;
}

/** openssl req's arguments for a new P-256 key, unencrypted, written to `key`. */
const newEcKey = (key: string): string[] => [
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
  '-keyout',
  key,
];

/** A self-signed certificate for `host` (EC P-256) and its key, in `dir`. */
export function selfSigned(dir: string, host: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...newEcKey(key),
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=DNS:${host}`,
    ],
    {
      stdio: 'ignore',
    },
  );
  return { cert, key };
}

/**
 * A self-signed certificate for `host` valid only from `from` to `to` (openssl ca signs with
 * explicit dates, which req -x509 cannot: an expired certificate, or one not yet valid).
 */
export function certificateBetween(dir: string, host: string, from: Date, to: Date): { cert: string; key: string } {
  const work = mkdtempSync(join(dir, 'ca-'));
  const cert = join(dir, `cert-${from.getTime()}-${to.getTime()}.pem`);
  const key = join(dir, `key-${from.getTime()}-${to.getTime()}.pem`);
  writeFileSync(join(work, 'index.txt'), '');
  writeFileSync(join(work, 'serial'), '01\n');
  mkdirSync(join(work, 'new'));
  const cnf = join(work, 'ca.cnf');
  writeFileSync(
    cnf,
    `[ca]\ndefault_ca = test\n[test]\ndatabase = ${work}/index.txt\nserial = ${work}/serial\nnew_certs_dir = ${work}/new\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n[any]\ncommonName = supplied\n`,
  );
  const csr = join(work, 'req.csr');
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl([
    'req',
    '-new',
    ...newEcKey(key),
    '-out',
    csr,
    '-subj',
    `/CN=${host}`,
    '-addext',
    `subjectAltName=DNS:${host}`,
  ]);
  const asn1 = (d: Date) => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  openssl([
    'ca',
    '-batch',
    '-config',
    cnf,
    '-selfsign',
    '-keyfile',
    key,
    '-in',
    csr,
    '-out',
    cert,
    '-startdate',
    asn1(from),
    '-enddate',
    asn1(to),
    '-notext',
  ]);
  return { cert, key };
}

/**
 * Renders the site with `meetctl nginx` for the two listeners at `engineHost` and `compatHost`
 * (its access log in the test's prefix, plus `flags`) and starts a test nginx with it.
 */
export async function siteInNginx(
  t: Tap,
  hosts: { readonly engine: string; readonly compat: string },
  flags: (nginx: TestNginx) => string[] = () => [],
): Promise<{ nginx: TestNginx; url: string; port: number }> {
  const nginx = nginxPrefixFor(t);
  const port = await freePort();
  const run = await runCli([
    'nginx',
    '--server-name',
    'meet.test',
    '--http-addr',
    hosts.engine,
    '--compat-http-addr',
    hosts.compat,
    '--listen',
    `127.0.0.1:${port}`,
    ...flags(nginx),
    '--site-access-log',
    nginx.accessLog,
    '--out',
    nginx.site,
  ]);
  if (run.code !== 0) throw new Error(`meetctl nginx failed (${run.code}): ${run.stderr}`);
  await nginx.start(port);
  return { nginx, url: `http://127.0.0.1:${port}`, port };
}
