// Issue 29, point 2: every meetctl command reads the configuration `serve` reads (defaults <
// room-defaults.toml < the env file < the environment < flags), and `install` takes every
// setting flag of the table and writes it to the env file, so the daemon systemd starts from
// that file runs with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { daemonFor, logRecords, type Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { logMatch } from '../../helpers/compat.js';
import type { Daemon } from '../../helpers/daemon.js';
import { world } from '../../helpers/install-world.js';
import { freePorts, nginxPrefixFor } from '../../helpers/nginx.js';
import { testServerKey } from '../../helpers/licence.js';

const client = '203.0.113.9';

/** A refused call from behind a "proxy" and a health check: their lines show the access-log policy, the summary period and whom the daemon trusts. */
async function refusedCall(t: Tap, daemon: Daemon): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${daemon.url}/api/rooms`, { headers: { 'x-forwarded-for': client } });
  t.equal(response.status, 401);
  await (await fetch(`${daemon.url}/healthz`)).text();
  await logMatch(daemon, /"route":"\/healthz"/);
  // The request summary every second (SERVICE_REQUEST_SUMMARY_SECS=1; the default is a minute).
  await logMatch(daemon, /"msg":"requests"/, 10_000);
  return logRecords(daemon);
}

function assertInstalledSettings(t: Tap, records: Record<string, unknown>[], what: string): void {
  t.ok(
    records.some((r) => r.msg === 'request' && r.route === '/healthz'),
    `${what}: SERVICE_ACCESS_LOG=all (a line for a 200)`,
  );
  const refused = records.find((r) => r.msg === 'request refused' && r.route === '/api/rooms');
  t.match(
    refused,
    { req: { remoteAddress: '127.0.0.1' } },
    `${what}: SERVICE_TRUSTED_PROXIES=none (X-Forwarded-For not believed)`,
  );
}

t.test(
  'install writes the setting flags it is given; a daemon started from the env file alone runs with them',
  async (t) => {
    const w = world(t);
    const key = await testServerKey();
    const installed = await w.install([
      '--key',
      key,
      '--no-open-rooms',
      '--yes',
      '--http-addr',
      '127.0.0.1:0',
      '--compat-http-addr',
      '127.0.0.1:0',
      '--log-level',
      'debug',
      '--request-summary-secs',
      '1',
      '--access-log',
      'all',
      '--trusted-proxies',
      'none',
      '--media',
      'auto',
      '--janus-bin',
      join(w.root, 'no-janus-here'),
    ]);
    t.equal(installed.code, 0, installed.stderr);
    const env = w.envFile();
    t.match(env, {
      SERVICE_LOG_LEVEL: 'debug',
      SERVICE_REQUEST_SUMMARY_SECS: '1',
      SERVICE_ACCESS_LOG: 'all',
      SERVICE_TRUSTED_PROXIES: 'none',
      SERVICE_MEDIA: 'auto',
      SERVICE_JANUS_BIN: join(w.root, 'no-janus-here'),
    });
    t.match(installed.stdout, /SERVICE_LOG_LEVEL=debug \(flag\)/, 'the summary names what it wrote');
    const text = readFileSync(join(w.etc, 'meet.env'), 'utf8');

    // What systemd's EnvironmentFile= hands the daemon, and nothing else.
    const systemd = await daemonFor(t, { dataDir: w.data, env });
    assertInstalledSettings(t, await refusedCall(t, systemd), 'EnvironmentFile=');
    t.ok(
      logRecords(systemd).some((r) => typeof r.msg === 'string' && r.msg.startsWith('Janus is not available')),
      'SERVICE_MEDIA=auto with SERVICE_JANUS_BIN from the file: Janus looked for where the flag said',
    );

    // serve --env-file reads the same file itself (the harness sets only the data dir, a free port and the mesh).
    const own = await daemonFor(t, { dataDir: w.data, env: {}, args: ['--env-file', join(w.etc, 'meet.env')] });
    assertInstalledSettings(t, await refusedCall(t, own), 'serve --env-file');

    // A second run without the flags keeps the lines byte for byte.
    const again = await w.install(['--key', key, '--yes']);
    t.equal(again.code, 0, again.stderr);
    t.equal(readFileSync(join(w.etc, 'meet.env'), 'utf8'), text, 'unchanged');

    const bad = await w.install(['--key', key, '--yes', '--log-level', 'loud']);
    t.equal(bad.code, 2, 'a bad value is a configuration error');
    t.match(bad.stderr, /SERVICE_LOG_LEVEL .*loud.*--log-level/s, 'naming the variable and the flag');
  },
);

t.test('meetctl nginx and doctor find the env file through --config-dir, as serve does', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  const installed = await w.install([
    '--key',
    key,
    '--no-open-rooms',
    '--yes',
    '--http-addr',
    '127.0.0.1:3917',
    '--compat-http-addr',
    '127.0.0.1:8917',
  ]);
  t.equal(installed.code, 0, installed.stderr);

  const site = await runCli(['nginx', '--config-dir', w.etc, '--http-only']);
  t.equal(site.code, 0, site.stderr);
  t.match(
    site.stdout,
    /upstream meet_engine \{ server 127\.0\.0\.1:3917;/,
    'the engine listener install wrote, not 3000',
  );
  t.match(
    site.stdout,
    /upstream meet_compat \{ server 127\.0\.0\.1:8917;/,
    'the compat listener install wrote, not 8088',
  );
  t.match(site.stdout, /server_name meet\.example\.org;/, 'named after the public URL of the same file');

  // The same through SERVICE_CONFIG_DIR, and a named env file that is missing is refused (not silently skipped).
  const byEnv = await runCli(['nginx', '--http-only'], { SERVICE_CONFIG_DIR: w.etc });
  t.match(byEnv.stdout, /server 127\.0\.0\.1:3917;/);
  const missing = await runCli(['nginx', '--http-only', '--env-file', join(w.etc, 'nope.env')]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--env-file .*nope\.env cannot be read/);
});

t.test(
  'a real nginx from `meetctl nginx --config-dir` reaches the daemon started from the same env file (no 502)',
  async (t) => {
    const w = world(t);
    const [engine, compat, site] = await freePorts(3);
    const installed = await w.install([
      '--key',
      await testServerKey(),
      '--no-open-rooms',
      '--yes',
      '--http-addr',
      `127.0.0.1:${engine}`,
      '--compat-http-addr',
      `127.0.0.1:${compat}`,
    ]);
    t.equal(installed.code, 0, installed.stderr);
    const daemon = await daemonFor(t, { dataDir: w.data, env: w.envFile() });
    await logMatch(daemon, /"msg":"compat listening/);
    const nginx = nginxPrefixFor(t);
    const rendered = await runCli([
      'nginx',
      '--config-dir',
      w.etc,
      '--http-only',
      '--listen',
      `127.0.0.1:${site}`,
      '--site-access-log',
      nginx.accessLog,
      '--out',
      nginx.site,
    ]);
    t.equal(rendered.code, 0, rendered.stderr);
    await nginx.start(site);
    const health = await fetch(`http://127.0.0.1:${site}/healthz`, { headers: { host: 'meet.example.org' } });
    t.equal(health.status, 200, 'the engine listener install wrote answers through nginx');
    const script = await fetch(`http://127.0.0.1:${site}/external_api.js`, { headers: { host: 'meet.example.org' } });
    t.equal(script.status, 200, 'and the compat listener');
    t.match(await script.text(), 'https://meet.example.org');
  },
);
