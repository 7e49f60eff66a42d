import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { daemonFor } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { meetctl, type CliResult } from '../../helpers/daemon.js';
import {
  apiSecret,
  checkIds,
  doctorJson,
  expectFailure,
  freePort,
  healthy,
  jitsiSecret,
  lineOf,
  listening,
  nodeMajor,
  siteText,
  tenantApi,
  tenantApp,
  turnSecret,
} from '../../helpers/doctor.js';

t.test('a healthy installation: every check ok or skipped, exit 0', async (t) => {
  const s = await healthy(t);
  const text = await runCli(s.args());
  t.equal(text.code, 0, text.stdout + text.stderr);
  const lines = text.stdout.split('\n').filter((l) => /^[✓!✗-] /.test(l));
  t.equal(lines.length, checkIds.length, 'one line per check');
  for (const line of lines) {
    if (line.startsWith('! Node version') && nodeMajor === 20) continue; // Node 20 is past its end of life: a warning
    t.match(line, /^[✓-] /, line);
  }
  t.notMatch(
    text.stdout,
    /\u001b\[/,
    'no colour off a terminal (doctor-io.test.ts runs the binary piped and on a terminal)',
  );
  t.equal(text.stderr, '');

  const { result, report, byId } = await doctorJson(t, s);
  t.equal(result.code, 0);
  t.same(
    report.checks.map((c) => c.id),
    checkIds,
    '--json lists every check',
  );
  for (const id of [
    'env-file',
    'config',
    'data-dir',
    'engine-port',
    'compat-port',
    'media-network',
    'licence',
    'tenants',
    'secrets',
    'nginx-file',
    'nginx-test',
    'nginx-lines',
    'systemd-unit',
  ]) {
    t.equal(byId.get(id)?.status, 'ok', `${id}: ${byId.get(id)?.detail}`);
  }
  t.match(byId.get('licence')?.detail, /valid for Test School, expires \d{4}-\d\d-\d\d \((364|365) days left\)/);
  t.match(byId.get('tenants')?.detail, /1 tenant, mode 0600/);
  t.match(byId.get('media-network')?.detail, /TURN configured \(1 TURN, 1 STUN address\(es\)\)/);
  t.match(byId.get('secrets')?.detail, /4 secrets, each at least 32 bytes/);
  for (const output of [text.stdout, result.stdout]) {
    for (const secret of [apiSecret, jitsiSecret, tenantApi, tenantApp, turnSecret])
      t.notOk(output.includes(secret), 'no secret printed');
  }
});

t.test('a bad configuration value: that line fails, the checks needing it say so', async (t) => {
  const s = await healthy(t, { light: true });
  s.env({ SERVICE_WAITING_ROOM: 'sometimes' });
  const result = await expectFailure(
    t,
    s,
    'Configuration',
    /SERVICE_WAITING_ROOM must be one of optional, forced, off \(got "sometimes"\)/,
    /fix the value named above \(in .*meet\.env/,
  );
  t.match(lineOf(result.stdout, 'Data directory')[0], /^- Data directory: the configuration is invalid/);
  const flag = await expectFailure(
    t,
    s,
    'Configuration',
    /SERVICE_HTTP_ADDR must be host:port.*\[from flag --http-addr\]/,
    /fix/,
    ['--http-addr', 'nowhere'],
  );
  t.match(flag.stdout, /^✓ Environment file/m);

  // The daemon under systemd reads <config dir>/room-defaults.toml: so does doctor, unless --config names another.
  s.env();
  writeFileSync(join(s.configDir, 'room-defaults.toml'), '[service]\nmeeting_empty_grace_secs = -1\n');
  await expectFailure(
    t,
    s,
    'Configuration',
    /SERVICE_MEETING_EMPTY_GRACE_SECS .*\[from .*etc\/room-defaults\.toml service\.meeting_empty_grace_secs\]/,
    /room-defaults\.toml/,
  );
  writeFileSync(join(s.root, 'other.toml'), '');
  const other = await doctorJson(t, s, ['--config', join(s.root, 'other.toml')]);
  t.equal(other.result.code, 0, '--config names another defaults file');
});

t.test(
  'media network: a warning without TURN; a refused TURN secret fails the configuration and is not echoed',
  async (t) => {
    const s = await healthy(t, { light: true });
    s.env({ SERVICE_ICE_SERVERS: null, SERVICE_TURN_SECRET: null });
    const bare = await runCli(s.args());
    t.equal(bare.code, 0, 'a warning, not a failure');
    t.match(
      lineOf(bare.stdout, 'Media network')[0],
      /^! Media network: neither a public media address nor TURN is configured/,
    );
    t.match(lineOf(bare.stdout, 'Media network')[1], /hint: .*SERVICE_ICE_SERVERS=turn:.*SERVICE_TURN_SECRET/);
    s.env({ SERVICE_ICE_SERVERS: 'stun:stun.example.org', SERVICE_TURN_SECRET: null });
    t.match(lineOf((await runCli(s.args())).stdout, 'Media network')[0], /^! Media network: only STUN is configured/);

    const shortSecret = 'short-turn-pw';
    s.env({ SERVICE_TURN_SECRET: shortSecret });
    const short = await expectFailure(
      t,
      s,
      'Configuration',
      /SERVICE_TURN_SECRET must hold at least 16 bytes/,
      /fix the value/,
    );
    t.notOk(short.stdout.includes(shortSecret) || short.stderr.includes(shortSecret), 'a refused secret is not echoed');
  },
);

t.test('the data directory: missing, read-only, in memory', async (t) => {
  const s = await healthy(t, { light: true });
  s.env({ SERVICE_DATA_DIR: join(s.root, 'nope') });
  await expectFailure(t, s, 'Data directory', /nope does not exist \(SERVICE_DATA_DIR\)/, /install -d -m 0700/);

  s.env();
  // Root writes through any mode: doctor then gets a mount namespace where the directory is a read-only mount.
  const asRoot = process.getuid?.() === 0;
  await t.test(
    'read-only',
    { skip: asRoot && !canUnshareMount() && 'needs unshare to make a read-only mount as root' },
    async (t) => {
      const args = s.args();
      let result: CliResult;
      if (asRoot) {
        result = await new Promise((resolve) => {
          execFile(
            'unshare',
            [
              '--mount',
              '--propagation',
              'private',
              'sh',
              '-c',
              'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"',
              s.dataDir,
              process.execPath,
              meetctl,
              ...args,
            ],
            { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 60_000 },
            (error, stdout, stderr) =>
              resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
          );
        });
      } else {
        chmodSync(s.dataDir, 0o500);
        t.teardown(() => chmodSync(s.dataDir, 0o700));
        result = await runCli(args);
      }
      t.equal(result.code, 1, result.stderr);
      const [line, hint] = lineOf(result.stdout, 'Data directory');
      t.match(
        line,
        /^✗ Data directory: .*cannot create a file: (the filesystem is mounted read-only \(EROFS\)|permission denied \(EACCES\))/,
      );
      t.match(hint, /hint: the service's user must be able to write/);
    },
  );

  const shm = '/dev/shm';
  const tmpfsAtShm = existsSync(shm) && Number(statfsSync(shm).type) === 0x01021994;
  await t.test('in memory', { skip: !tmpfsAtShm && 'no tmpfs at /dev/shm' }, async (t) => {
    const memory = mkdtempSync(join(shm, 'meet-doctor-'));
    t.teardown(() => rmSync(memory, { recursive: true, force: true }));
    s.env({ SERVICE_DATA_DIR: memory });
    await expectFailure(t, s, 'Data directory', /is on tmpfs: its contents vanish at the next reboot/, /disk/);
  });
});

function canUnshareMount(): boolean {
  try {
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

t.test('ports: a foreign program fails naming the port; a server answering our /healthz is this service', async (t) => {
  const s = await healthy(t, { light: true });
  const foreign = createServer((socket) => socket.end('SSH-2.0-not-us\r\n'));
  const port = await listening(foreign);
  t.teardown(() => foreign.close());
  s.env({ SERVICE_HTTP_ADDR: `127.0.0.1:${port}` });
  await expectFailure(
    t,
    s,
    'Engine port',
    new RegExp(`port ${port} \\(SERVICE_HTTP_ADDR 127\\.0\\.0\\.1:${port}\\) is in use by another program`),
    /set SERVICE_HTTP_ADDR to a free port/,
  );

  const ours = createHttpServer((req, res) => {
    if (req.url === '/healthz')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","service":"meeting-service"}');
    else res.writeHead(404).end();
  });
  const oursPort = await listening(ours);
  t.teardown(() => ours.close());
  s.env({ COMPAT_HTTP_ADDR: `127.0.0.1:${oursPort}` });
  writeFileSync(s.nginxFile, siteText(s.enginePort, oursPort));
  const { result, byId } = await doctorJson(t, s);
  t.equal(result.code, 0, result.stdout);
  t.equal(byId.get('compat-port')?.status, 'ok');
  t.match(byId.get('compat-port')?.detail, /held by this service/);

  s.env({ COMPAT_API_SHARED_SECRET: null, COMPAT_JITSI_APP_SECRET: null, COMPAT_HTTP_ADDR: `127.0.0.1:${port}` });
  const off = await doctorJson(t, s);
  t.equal(off.byId.get('compat-port')?.status, 'skip', 'no compat surface: its port is not checked');
});

t.test('a port held by the running daemon is "held by this service"', async (t) => {
  const s = await healthy(t, { light: true });
  const port = await freePort();
  const daemon = await daemonFor(t, { env: { SERVICE_HTTP_ADDR: `127.0.0.1:${port}` } });
  t.equal((await fetch(`${daemon.url}/healthz`)).status, 200, 'the engine answers GET /healthz');
  s.env({ SERVICE_HTTP_ADDR: `127.0.0.1:${port}` });
  writeFileSync(s.nginxFile, siteText(port, s.compatPort));
  const { result, byId } = await doctorJson(t, s);
  t.equal(result.code, 0, result.stdout);
  t.match(byId.get('engine-port'), { status: 'ok', detail: /held by this service/ });
});
