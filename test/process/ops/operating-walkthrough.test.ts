// Issue 29 ("Tests that show it", "Done when"): the docs' whole operating path (docs/operating.md),
// run in order on a temporary machine. The commands are read from the document, so the docs and this test cannot
// drift: every command maps to one row below (run, rewritten into the temporary root, or
// skipped for a stated reason), and a command no row knows fails the test. Then a meeting-API
// create and join through nginx over TLS, whose join redirect points at the public URL given
// to the docs' install command, and the docs' count of commands is this block's count. Issue 30
// point 2: the README's five-command operator path is checked against that block (same commands, in order).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { ConfapiClient } from '../../helpers/compat.js';
import { meetctl as meetctlBin, type CliResult } from '../../helpers/daemon.js';
import { testAuthority, testServerKey } from '../../helpers/licence.js';
import { freePort, until } from '../../helpers/net.js';
import { nginxBin, nginxPrefixFor, selfSigned, type TestNginx } from '../../helpers/nginx.js';
import { checkoutVisibleToUnit } from '../../helpers/runtime.js';
import {
  commandsOf,
  operatingCommands,
  operatingFile,
  operatorPathCommands,
  operatorPathHeading,
  readmeFile,
  wholePathHeading,
  type ReadmeCommand,
} from '../../helpers/readme-commands.js';

// A real daemon, nginx and four meetctl processes on a loaded two-core machine.
t.setTimeout(300_000);

const asRoot = process.getuid?.() === 0;
const nobody = 65534;
/**
 * The docs' service user `meet`: as root, nobody (a user every Debian machine has, so the
 * test adds none), whom the unit's and `sudo -u meet` commands run as, so the files the
 * commands leave must really be readable and writable by the service; otherwise the test's user.
 */
const serviceUser = asRoot ? nobody : null;
const asServiceUser = (command: readonly string[]): string[] =>
  serviceUser === null
    ? [...command]
    : ['setpriv', `--reuid=${serviceUser}`, `--regid=${serviceUser}`, '--clear-groups', ...command];
/** tap's loader (NODE_OPTIONS, added to children) left out, as systemd and a shell would: it writes into the checkout, which the service user may not. */
const plain = (command: readonly string[]): string[] => ['env', '-u', 'NODE_OPTIONS', ...command];

/** chown -R to the service user (nothing to do when the test is not root: everything is its user's already). */
function giveToServiceUser(path: string): void {
  if (serviceUser === null) return;
  chownSync(path, serviceUser, serviceUser);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) giveToServiceUser(join(path, entry));
}

/** bin/meetctl.js in its own process with only PATH and `env`, as root or (`sudo -u meet`) as the service user. */
function runMeetctl(
  args: readonly string[],
  env: Record<string, string>,
  asService: boolean,
  cwd: string,
): Promise<CliResult> {
  const command = plain([process.execPath, meetctlBin, ...args]);
  const [file, ...argv] = asService ? asServiceUser(command) : command;
  return new Promise((resolve) => {
    execFile(
      file!,
      argv,
      { env: { PATH: process.env.PATH ?? '', ...env }, cwd, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

/** The docs' host and public URL, and what they become here (a name only nginx's certificate knows, on a free port). */
const readmeHost = 'meet.example.org';
const testHost = 'meet.test';

/** The temporary machine: the docs' absolute paths live under `root`, nginx in its own prefix. */
interface Machine {
  readonly root: string;
  /** The operator's home (~), where the commands are typed: 0700, as Debian 12 makes homes, so `sudo -u meet` runs in a directory it cannot read. */
  readonly home: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly unitDir: string;
  readonly nginx: TestNginx;
  /** nginx's TLS port, its HTTP redirect's port, and the port of Debian's default site. */
  readonly tlsPort: number;
  readonly redirectPort: number;
  readonly defaultSitePort: number;
  readonly enginePort: number;
  readonly compatPort: number;
  readonly publicUrl: string;
  /** What earlier commands left for later ones: the certificate, the tenant's secret, the unit's process. */
  ca: string;
  tenantSecret: string | null;
  daemon: { child: ChildProcess; exited: Promise<void> } | null;
}

/** A path of the docs on this machine: /etc/... and /var/... under the root, ~/ in the root's home. */
function onMachine(m: Machine, word: string): string {
  return word
    .replaceAll(`https://${readmeHost}`, m.publicUrl)
    .replaceAll(readmeHost, testHost)
    .replace(/^~\//, `${m.home}/`)
    .replace(/^\/(etc|var)\//, `${m.root}/$1/`);
}

/** Flags each meetctl command needs here beyond the docs': the temporary root, free ports, the test nginx. */
const meetctlExtras: Record<string, (m: Machine) => string[]> = {
  install: (m) => [
    '--data-dir',
    m.dataDir,
    '--runtime-dir',
    m.unitDir,
    '--http-addr',
    `127.0.0.1:${m.enginePort}`,
    '--compat-http-addr',
    `127.0.0.1:${m.compatPort}`,
  ],
  nginx: (m) => [
    ...m.nginx.siteArgs,
    '--nginx-bin',
    nginxBin,
    '--listen',
    `127.0.0.1:${m.tlsPort}`,
    '--redirect-listen',
    `127.0.0.1:${m.redirectPort}`,
    '--site-access-log',
    m.nginx.accessLog,
  ],
  tenant: () => [],
  // The unit names meet, whom the test machine does not have (useradd is skipped): nobody stands for her.
  doctor: (m) => [
    '--nginx-file',
    m.nginx.site,
    '--nginx-bin',
    nginxBin,
    '--unit-file',
    join(m.unitDir, 'meet.service'),
    '--service-user',
    String(serviceUser ?? process.getuid?.() ?? 0),
  ],
};

/** What a row does with a command of the docs; a row without `run` skips the command for its `why`. */
interface Row {
  readonly pattern: RegExp;
  readonly why: string;
  readonly run?: (t: Tap, m: Machine, words: readonly string[], asService: boolean) => Promise<void>;
}

const rows: readonly Row[] = [
  {
    pattern: /^apt-get install -y( [^ ]+)* nginx( |$)/,
    why: "the machine has the packages (CI installs nginx; better-sqlite3 is built); Debian's package starts nginx with its default site",
    run: async (_t, m) => {
      writeFileSync(
        join(m.nginx.prefix, 'sites-enabled', 'default'),
        `server { listen 127.0.0.1:${m.defaultSitePort} default_server; return 404; }\n`,
      );
      // The site's log made now, so start() gives it to nobody: the root `nginx -t` of meetctl would make it root's, which the reload (as nobody) cannot open.
      writeFileSync(m.nginx.accessLog, '');
      await m.nginx.start(m.defaultSitePort);
    },
  },
  {
    pattern: /^npm install -g( --[^ ]+)* \.\/meeting-service-[^ ]+\.tgz$/,
    why: "the built tree's bin/meetctl.js stands for the package (the packed tarball has its own test)",
  },
  {
    pattern: /^useradd --system .* meet$/,
    why: 'no user is added to the test machine: the service user is nobody (as root) or the test user',
  },
  {
    pattern: /^chown -R meet:meet( \/[^ ]+)+$/,
    why: 'the directories given to the service user',
    run: async (_t, m, words) => words.slice(3).forEach((path) => giveToServiceUser(onMachine(m, path))),
  },
  { pattern: /^systemctl daemon-reload$/, why: 'no systemd here: the unit file is read as install wrote it' },
  {
    pattern: /^systemctl enable --now meet$/,
    why: "the unit's ExecStart run with its EnvironmentFile, as systemd would",
    run: startUnit,
  },
  { pattern: /^meetctl /, why: 'meetctl (bin/meetctl.js) with the paths moved into the root', run: meetctl },
];

async function meetctl(t: Tap, m: Machine, words: readonly string[], asService: boolean): Promise<void> {
  const args = words.slice(1).map((word) => onMachine(m, word));
  const extras = meetctlExtras[args[0]!];
  if (!extras) throw new Error(`meetctl ${args[0]}: no row of meetctlExtras says how to run it on the test's machine`);
  const env: Record<string, string> = { SERVICE_CONFIG_DIR: m.configDir };
  if (args[0] === 'install') {
    // A private authority's key, given in install's environment as the docs' licence section says (docs/operating.md).
    env.SERVICE_LICENSE_PUBLIC_KEY = testAuthority().publicKeyPem;
    const keyFile = args[args.indexOf('--key-file') + 1]!;
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, await testServerKey(), { mode: 0o600 });
  }
  if (args[0] === 'nginx') certificateFor(m, args);
  const result = await runMeetctl([...args, ...extras(m)], env, asService, m.home);
  // Its output only on a failure: tenant add prints a secret.
  t.equal(result.code, 0, `meetctl ${args.slice(0, 2).join(' ')}: exit 0`, {
    stdout: result.code === 0 ? '' : result.stdout,
    stderr: result.stderr,
  });
  if (args[0] === 'tenant') m.tenantSecret = /^api_secret=(\S+)$/m.exec(result.stdout)?.[1] ?? null;
}

/** A self-signed certificate for the test's host where the docs' command expects certbot's files. */
function certificateFor(m: Machine, args: readonly string[]): void {
  const cert = args[args.indexOf('--tls-cert') + 1]!;
  const key = args[args.indexOf('--tls-key') + 1]!;
  mkdirSync(dirname(cert), { recursive: true });
  mkdirSync(dirname(key), { recursive: true });
  const made = selfSigned(mkdtempSync(join(m.root, 'openssl-')), testHost);
  renameSync(made.cert, cert);
  renameSync(made.key, key);
  // nginx runs as nobody when the test is root (test/helpers/nginx.ts): its reload reads the pair.
  if (asRoot) for (const file of [cert, key]) chownSync(file, nobody, nobody);
  m.ca = readFileSync(cert, 'utf8');
}

/** The unit's settings (continuation lines joined); a key given twice keeps every value. */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.replace(/\\\n\s*/g, ' ').split('\n')) {
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (setting) settings.set(setting[1]!, [...(settings.get(setting[1]!) ?? []), setting[2]!]);
  }
  return settings;
}

/** systemd's EnvironmentFile=: KEY=VALUE lines, `#` and `;` comments, a value's outer quotes removed. */
function environmentFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    const pair = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!pair || line.startsWith('#') || line.startsWith(';')) continue;
    values[pair[1]!] = pair[2]!.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return values;
}

async function startUnit(t: Tap, m: Machine): Promise<void> {
  const unit = unitSettings(readFileSync(join(m.unitDir, 'meet.service'), 'utf8'));
  const env: Record<string, string> = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };
  for (const assignment of unit.get('Environment') ?? []) {
    const [name, ...value] = assignment.split('=');
    env[name!] = value.join('=');
  }
  for (const file of unit.get('EnvironmentFile') ?? [])
    Object.assign(env, environmentFile(readFileSync(file.replace(/^-/, ''), 'utf8')));
  // The mesh, as every spawned daemon of the suite: auto would start a Janus on the shared RTP ports.
  env.SERVICE_MEDIA = 'mesh';
  // User=meet: the service user. StateDirectory= would give systemd's data directory to it; here
  // (outside /var/lib) the unit has none and says to create it owned by the user, as this does.
  t.match(unit.get('User')?.[0], 'meet', "the unit runs as the docs' service user");
  mkdirSync(m.dataDir, { recursive: true, mode: 0o700 });
  giveToServiceUser(m.dataDir);
  const execStart = unit.get('ExecStart')?.[0];
  if (!execStart) throw new Error('the unit install wrote has no ExecStart=');
  const [program, ...args] = asServiceUser(plain(execStart.replace(/^[-@+!:]+/, '').split(/\s+/)));
  const child = spawn(program!, args, {
    env,
    cwd: unit.get('WorkingDirectory')?.[0],
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  m.daemon = { child, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) };
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = `http://${env.SERVICE_HTTP_ADDR}/readyz`;
  t.equal(ready, `http://127.0.0.1:${m.enginePort}/readyz`, "the env file names install's engine listener");
  try {
    await until(
      ready,
      async () => {
        if (child.exitCode !== null) throw new Error(`the unit's ExecStart exited ${child.exitCode}`);
        return (await fetch(ready).catch(() => null))?.status === 200;
      },
      60_000,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; the daemon's output:\n${output}`);
  }
}

/** A GET to nginx's TLS port for a URL on the public address: SNI and Host name the test's host, the certificate is trusted. */
function overTls(m: Machine, url: string): Promise<{ status: number; location: string | undefined; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: m.tlsPort,
        path: `${target.pathname}${target.search}`,
        servername: target.hostname,
        headers: { host: target.host },
        ca: m.ca,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

async function machine(t: Tap): Promise<Machine> {
  const root = mkdtempSync(join(tmpdir(), 'meet-walkthrough-'));
  // The directories every Debian machine has, open to all as there (nginx and the service user walk through them).
  chmodSync(root, 0o755);
  for (const dir of ['etc', 'var/lib']) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
  mkdirSync(join(root, 'home'), { mode: 0o700 });
  const tlsPort = await freePort();
  const m: Machine = {
    root,
    home: join(root, 'home'),
    configDir: join(root, 'etc', 'meet'),
    dataDir: join(root, 'var', 'lib', 'meet'),
    unitDir: join(root, 'etc', 'systemd', 'system'),
    nginx: nginxPrefixFor(t, { debian: true }),
    tlsPort,
    redirectPort: await freePort(),
    defaultSitePort: await freePort(),
    enginePort: await freePort(),
    compatPort: await freePort(),
    publicUrl: `https://${testHost}:${tlsPort}`,
    ca: '',
    tenantSecret: null,
    daemon: null,
  };
  t.teardown(async () => {
    // systemctl stop, then the machine goes.
    if (m.daemon && m.daemon.child.exitCode === null && m.daemon.child.signalCode === null)
      m.daemon.child.kill('SIGTERM');
    await m.daemon?.exited;
    rmSync(root, { recursive: true, force: true });
  });
  return m;
}

/** The number a section states before its block, as "**N commands**". */
function statedCount(markdown: string, heading: string): number | null {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) return null;
  const section = markdown.slice(at);
  const stated = /\*\*(\d+) commands\*\*/.exec(section.slice(0, section.indexOf('```sh')));
  return stated ? Number(stated[1]) : null;
}

const unitHidden =
  !checkoutVisibleToUnit &&
  'this checkout is under a home directory, which the unit hides (install --runtime native refuses it)';

t.test(
  "docs/operating.md's whole path, in order, give a meeting through nginx over TLS at the public URL",
  { skip: unitHidden },
  async (t) => {
    const commands = operatingCommands();
    const m = await machine(t);
    for (const command of commands) {
      const { words, asService } = withoutSudo(command);
      const row = rows.find((r) => r.pattern.test(words.join(' ')));
      t.ok(row, `a row of the walkthrough knows the command of the docs: ${command.text}`);
      if (!row) return;
      if (row.run) await row.run(t, m, words, asService);
      t.comment(`${command.text}: ${row.run ? 'ran' : 'skipped'} (${row.why})`);
    }
    t.ok(m.daemon, 'the unit was started');
    t.equal(m.daemon?.child.exitCode, null, 'and still runs');
    t.ok(m.tenantSecret, 'tenant add printed the api_secret');
    if (!m.tenantSecret) return;
    // The reload of nginx binds the TLS port; tenant add reaches the daemon within a second.
    const api = new ConfapiClient(m.publicUrl, m.tenantSecret, 'sha1', 'plus', '/confapi/moodle/api');
    const create = api.url('create', [
      ['meetingID', 'walkthrough-101'],
      ['name', 'Walkthrough'],
      ['attendeePW', 'ap'],
      ['moderatorPW', 'mp'],
    ]);
    let created = { status: 0, location: undefined as string | undefined, text: '' };
    try {
      await until(
        'create through nginx over TLS',
        async () => {
          created = await overTls(m, create).catch((err: Error) => ({
            status: -1,
            location: undefined,
            text: String(err),
          }));
          return /<returncode>SUCCESS<\/returncode>/.test(created.text);
        },
        30_000,
      );
    } catch (err) {
      throw new Error(
        `${(err as Error).message}: last answer ${created.status} ${created.text}\nnginx's log:\n${m.nginx.errorLog().slice(-2000)}`,
      );
    }
    t.equal(created.status, 200, 'create over TLS through nginx');
    const joined = await overTls(
      m,
      api.url('join', [
        ['fullName', 'Alice Example'],
        ['meetingID', 'walkthrough-101'],
        ['password', 'ap'],
      ]),
    );
    t.equal(joined.status, 302, 'join redirects', { answer: joined.text });
    t.match(
      joined.location,
      new RegExp(`^${m.publicUrl.replaceAll('.', '\\.')}/room/[^/?]+\\?`),
      "to the public URL of the docs' install command",
    );
    const page = await overTls(m, joined.location!);
    t.equal(page.status, 200, 'the join address opens the room page through nginx');
    t.match(page.text, /<html/i, 'an HTML page');
    const plainHttp = await new Promise<{ status?: number; location?: string }>((resolve, reject) =>
      httpGet(
        { host: '127.0.0.1', port: m.redirectPort, path: '/room/x', headers: { host: testHost }, agent: false },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode, location: res.headers.location });
        },
      ).on('error', reject),
    );
    t.same(
      plainHttp,
      { status: 301, location: `${m.publicUrl}/room/x` },
      'plain HTTP to the site is sent to the public URL',
    );
  },
);

t.test(
  'docs/operating.md states how many commands lead from a fresh machine to a TLS meeting, and it is the block’s count',
  async (t) => {
    const doc = readFileSync(operatingFile, 'utf8');
    t.equal(
      statedCount(doc, wholePathHeading),
      operatingCommands(doc).length,
      'the number in the document is the number of commands in its block',
    );
  },
);

t.test(
  "the README's operator path: its stated count is its block's, and its commands are the whole path's, in order",
  async (t) => {
    const readme = readFileSync(readmeFile, 'utf8');
    const short = operatorPathCommands(readme);
    t.equal(
      statedCount(readme, operatorPathHeading),
      short.length,
      'the number in the README is the number of commands in its block',
    );
    t.equal(short.length, 5, 'five commands');
    // Each of the README's commands is a command the walkthrough runs, word for word, and they come in the block's order.
    const whole = operatingCommands().map((c) => c.words.join(' '));
    let from = 0;
    for (const command of short) {
      const at = whole.indexOf(command.words.join(' '), from);
      t.ok(at >= 0, `the whole path has, after the README's previous command: ${command.text}`);
      if (at >= 0) from = at + 1;
    }
  },
);

t.test(
  'a block is read as the operator types it: continuations joined, comments dropped, each && a command; a shell feature refused',
  async (t) => {
    const block = ['# a comment', 'sudo a --x "two words" \\', '  --y 1   # why', 'b && sudo -u meet c', ''].join('\n');
    t.same(
      commandsOf(block).map((c) => c.words),
      [['sudo', 'a', '--x', 'two words', '--y', '1'], ['b'], ['sudo', '-u', 'meet', 'c']],
    );
    t.throws(() => commandsOf('a | b'), /uses "\|", which the walkthrough does not run/);
    t.throws(() => commandsOf('a $HOME'), /uses "\$"/);
  },
);

/** The command without `sudo` (root, which the test is or stands for) or `sudo -u meet` (the service user). */
function withoutSudo(command: ReadmeCommand): { words: string[]; asService: boolean } {
  const words = [...command.words];
  if (words[0] !== 'sudo') return { words, asService: false };
  if (words[1] !== '-u') return { words: words.slice(1), asService: false };
  if (words[2] !== 'meet')
    throw new Error(`command of the docs runs as ${words[2]}, not root or the service user meet: ${command.text}`);
  return { words: words.slice(3), asService: true };
}
