// Issue 29, point 1: every meeting-API join went to http://localhost:3000, since nothing on
// the documented path set COMPAT_FRONTEND_URL. Install now records SERVICE_PUBLIC_URL (flag,
// environment, an earlier install, or asked on a terminal) and the join base defaults to it;
// a daemon started from the env file alone, as systemd starts it, sends joins there.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { daemonFor } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { assertSuccess, ConfapiClient, logMatch } from '../../helpers/compat.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

t.test(
  'with --yes and nothing giving the public address, install exits 64 naming --public-url and writes nothing',
  async (t) => {
    const w = world(t);
    const result = await runCli(
      [
        'install',
        'compat',
        '--config-dir',
        w.etc,
        '--data-dir',
        w.data,
        '--key',
        await testServerKey(),
        '--no-open-rooms',
        '--yes',
      ],
      w.env,
    );
    t.equal(result.code, 64, result.stderr);
    t.match(
      result.stderr,
      /--public-url is required without a terminal or with --yes \(it answers "Public address of the service/,
    );
    t.same(snapshot(w.root), {}, 'nothing written');
  },
);

t.test('a bad --public-url is refused naming the flag, before anything is written', async (t) => {
  const w = world(t);
  for (const bad of ['meet.example.org', 'ftp://meet.example.org', 'https://meet.example.org/?a=1']) {
    const result = await w.install(['--key', await testServerKey(), '--no-open-rooms', '--yes', '--public-url', bad]);
    t.equal(result.code, 2, `${bad}: exit 2 (${result.stderr})`);
    t.match(
      result.stderr,
      /SERVICE_PUBLIC_URL must be [^\n]*\[from flag --public-url\]/,
      `${bad}: names the setting and the flag`,
    );
  }
  t.same(snapshot(w.root), {}, 'nothing written');
});

t.test('--public-url is written to the env file, normalised, and kept by a later run without it', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  const first = await w.install([
    '--key',
    key,
    '--no-open-rooms',
    '--yes',
    '--public-url',
    'https://meet.example.org/',
  ]);
  t.equal(first.code, 0, first.stderr);
  t.equal(
    w.envFile().SERVICE_PUBLIC_URL,
    'https://meet.example.org',
    'the env file names it, without the trailing slash',
  );
  t.notMatch(readFileSync(join(w.etc, 'meet.env'), 'utf8'), /^# SERVICE_PUBLIC_URL=/m, 'in place of the example');
  t.match(first.stdout, /SERVICE_PUBLIC_URL=https:\/\/meet\.example\.org \(flag\)/, 'the summary names it');
  const before = snapshot(w.root);
  const again = await runCli(
    ['install', 'compat', '--config-dir', w.etc, '--data-dir', w.data, '--key', key, '--yes', '--json'],
    w.env,
  );
  t.equal(again.code, 0, again.stderr);
  t.same(JSON.parse(again.stdout).service.SERVICE_PUBLIC_URL, { source: 'kept', value: 'https://meet.example.org' });
  t.same(snapshot(w.root), before, 'a second run changes no byte');
  const fromEnv = await w.install(['--key', key, '--yes'], { SERVICE_PUBLIC_URL: 'https://video.example.net' });
  t.equal(fromEnv.code, 0, fromEnv.stderr);
  t.equal(
    w.envFile().SERVICE_PUBLIC_URL,
    'https://video.example.net',
    'the environment of the install wins over the earlier line',
  );
});

t.test(
  'a daemon started from the env file alone sends meeting-API joins and external_api.js to the public address',
  async (t) => {
    const w = world(t);
    const installed = await w.install([
      '--key',
      await testServerKey(),
      '--no-open-rooms',
      '--yes',
      '--public-url',
      'https://meet.example.org',
      // Free ports: other tests run beside this one.
      '--http-addr',
      '127.0.0.1:0',
      '--compat-http-addr',
      '127.0.0.1:0',
    ]);
    t.equal(installed.code, 0, installed.stderr);
    const env = w.envFile();
    // Only what systemd's EnvironmentFile= hands the daemon.
    const daemon = await daemonFor(t, { dataDir: w.data, env });
    const compatUrl = (await logMatch(daemon, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;
    const api = new ConfapiClient(compatUrl, env.COMPAT_API_SHARED_SECRET!);
    const created = await api.get('create', [
      ['meetingID', 'course-101'],
      ['attendeePW', 'ap'],
      ['moderatorPW', 'mp'],
    ]);
    assertSuccess(t, created, 'create');
    const joined = await api.get('join', [
      ['fullName', 'Alice Example'],
      ['meetingID', 'course-101'],
      ['password', 'ap'],
    ]);
    t.equal(joined.status, 302, 'join redirects');
    t.match(
      joined.headers.get('location'),
      /^https:\/\/meet\.example\.org\/room\/[^/?]+\?/,
      'to the public address, not localhost',
    );
    const script = await (await fetch(`${compatUrl}/external_api.js`)).text();
    t.match(script, '"https://meet.example.org"', 'external_api.js opens pages on the public address');
    t.notMatch(script, 'localhost:3000');
  },
);

t.test('a join base set in room-defaults.toml is left there: install writes no line and asks nothing', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  t.equal((await w.install(['--key', key, '--no-open-rooms', '--yes'])).code, 0);
  const envFile = join(w.etc, 'meet.env');
  writeFileSync(envFile, readFileSync(envFile, 'utf8').replace(/^SERVICE_PUBLIC_URL=.*$/m, '# SERVICE_PUBLIC_URL='));
  const roomDefaults = join(w.etc, 'room-defaults.toml');
  writeFileSync(
    roomDefaults,
    readFileSync(roomDefaults, 'utf8').replace(/^\[service\]$/m, '[service]\npublic_url = "https://rooms.example.org"'),
  );
  const again = await runCli(
    ['install', 'compat', '--config-dir', w.etc, '--data-dir', w.data, '--key', key, '--yes', '--json'],
    w.env,
  );
  t.equal(again.code, 0, again.stderr);
  t.same(JSON.parse(again.stdout).service.SERVICE_PUBLIC_URL, {
    source: 'room-defaults',
    value: 'https://rooms.example.org',
  });
  t.equal(w.envFile().SERVICE_PUBLIC_URL, undefined, 'no env line');
});
