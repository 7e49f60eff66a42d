// meetctl install / uninstall compat (issue 13, point 1) against temporary directories:
// a valid key writes the record, the env file (0600, generated secrets) and the
// [modules.compat] section while keeping the operator's lines; a refused key writes nothing;
// a second run changes nothing; uninstall reverses it and keeps the data.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { assertNoSecretPrinted, secretNames, world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

const packaged = readFileSync(new URL('../../../room-defaults.toml', import.meta.url), 'utf8');

t.test('a valid key installs: record, env file, room-defaults section; a second run changes nothing', async (t) => {
  const w = world(t);
  const key = await testServerKey({ customer: 'Collège Sud', days: 200 });
  const first = await w.install(['--key', key, '--no-open-rooms', '--compat-default-guest-policy', 'ASK_MODERATOR']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /compat installed for Collège Sud, valid until \d{4}-\d\d-\d\dT.* \((199|200) days\)/);
  t.match(first.stderr, /✓ verifying the server key/, 'progress on standard error');

  const record = JSON.parse(readFileSync(join(w.data, 'modules', 'compat.json'), 'utf8'));
  t.match(record, { module: 'compat', key, customer: 'Collège Sud', modules: ['compat'] }, 'the installation record');
  t.equal(statSync(join(w.data, 'modules', 'compat.json')).mode & 0o777, 0o600);

  const envPath = join(w.etc, 'meet.env');
  t.equal(statSync(envPath).mode & 0o777, 0o600, 'env file 0600');
  const env = w.envFile();
  const secrets = secretNames.map((name) => env[name]!);
  for (const [i, secret] of secrets.entries()) {
    t.match(secret, /^[A-Za-z0-9_-]+$/, `${secretNames[i]} is base64url`);
    t.ok(Buffer.from(secret, 'base64url').length >= 32, `${secretNames[i]} holds at least 32 bytes`);
  }
  t.equal(new Set(secrets).size, 3, 'three distinct secrets');
  t.equal(env.COMPAT_JITSI_ALLOW_ANONYMOUS, 'false');
  t.equal(env.SERVICE_DATA_DIR, w.data);
  t.equal(env.SERVICE_TENANTS_FILE, join(w.etc, 'tenants.toml'));
  t.equal(env.SERVICE_CONFIG_FILE, join(w.etc, 'room-defaults.toml'));

  const roomDefaults = readFileSync(join(w.etc, 'room-defaults.toml'), 'utf8');
  t.same(
    roomDefaults.split('\n').filter((line) => !line.includes('# set by meetctl install compat')),
    packaged.split('\n'),
    'created from the packaged file, every line of it kept',
  );
  t.match(roomDefaults, /^default_guest_policy = "ASK_MODERATOR"  # set by meetctl install compat$/m);
  t.match(roomDefaults, /^default_record = false  # set by meetctl install compat$/m);

  // What the daemon will see under systemd: the env file, then room-defaults.toml.
  const config = loadConfig({ env });
  t.equal(config.compatDefaultGuestPolicy, 'ASK_MODERATOR');
  t.equal(config.compatApiSharedSecret, env.COMPAT_API_SHARED_SECRET);
  t.equal(config.jitsiAllowAnonymous, false);
  t.equal(config.dataDir, w.data);

  const before = snapshot(w.root);
  const second = await w.install(['--key', key, '--json']);
  t.equal(second.code, 0, second.stderr);
  t.same(snapshot(w.root), before, 'second run: same bytes, modes and modification times');
  const summary = JSON.parse(second.stdout);
  t.match(summary, { module: 'compat', installed: true, customer: 'Collège Sud', modules: ['compat'] });
  t.same(
    summary.files.map((f: { status: string }) => f.status),
    ['unchanged', 'unchanged', 'unchanged'],
  );
  t.same(
    Object.values(summary.secrets),
    secretNames.map(() => ({ source: 'kept', value: '***' })),
    'secrets kept and masked',
  );
  t.same(
    summary.answers.COMPAT_JITSI_ALLOW_ANONYMOUS,
    { source: 'kept', value: false },
    'the open-rooms answer reused without a question',
  );
  assertNoSecretPrinted(t, w, first, second);
});

t.test("the operator's files: other lines and comments kept byte for byte, a given secret kept", async (t) => {
  const w = world(t);
  mkdirSync(w.etc, { recursive: true });
  const operatorToml =
    '# Our instance, do not touch\n[service]\nlog_level = "debug"   # noisy on purpose\n\n[modules.compat]\n# our LMS wants recordings\ndefault_record = true   # decided 2024-03\nframe = 1\n';
  // frame is not a known key: refused by the loader, so install refuses too and writes nothing.
  writeFileSync(join(w.etc, 'room-defaults.toml'), operatorToml);
  const bad = await w.install(['--key', await testServerKey(), '--open-rooms']);
  t.equal(bad.code, 2, 'an unknown key in room-defaults.toml is a configuration error');
  t.match(bad.stderr, /unknown key modules\.compat\.frame/);
  t.notOk(existsSync(join(w.etc, 'meet.env')), 'nothing written');

  const toml = operatorToml.replace('frame = 1\n', '\n# the end\n');
  writeFileSync(join(w.etc, 'room-defaults.toml'), toml);
  chmodSync(join(w.etc, 'room-defaults.toml'), 0o640);
  const env = '# ours\nSERVICE_HTTP_ADDR=127.0.0.1:3000\nCOMPAT_API_SHARED_SECRET=an-existing-lms-secret-of-our-own\n';
  writeFileSync(join(w.etc, 'meet.env'), env, { mode: 0o644 });
  const result = await w.install([
    '--key',
    await testServerKey(),
    '--open-rooms',
    '--compat-default-guest-policy',
    'ALWAYS_DENY',
  ]);
  t.equal(result.code, 0, result.stderr);
  const after = readFileSync(join(w.etc, 'room-defaults.toml'), 'utf8');
  t.equal(
    after,
    toml.replace('# the end\n', '# the end\ndefault_guest_policy = "ALWAYS_DENY"  # set by meetctl install compat\n'),
    "only the new key added; the operator's default_record line (same value) untouched",
  );
  t.equal(statSync(join(w.etc, 'room-defaults.toml')).mode & 0o777, 0o640, 'its mode kept');
  const envText = readFileSync(join(w.etc, 'meet.env'), 'utf8');
  t.ok(envText.startsWith(env), "the operator's env lines first, unchanged, the secret kept");
  t.equal(statSync(join(w.etc, 'meet.env')).mode & 0o777, 0o600, 'a secrets file left wider is narrowed to 0600');
  t.equal(w.envFile().COMPAT_JITSI_ALLOW_ANONYMOUS, 'true');
  t.notOk(result.stdout.includes('an-existing-lms-secret-of-our-own'), 'not printed');
});

t.test('the open-rooms answer: never asked without a terminal, then the flag is required', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  for (const args of [[], ['--yes']]) {
    // Without --yes, its own process on pipes: processIo itself must see that there is no terminal.
    const result =
      args.length === 0 ? await w.installProcess(['--key', key]) : await w.install(['--key', key, ...args]);
    t.equal(result.code, 64, `${args.join(' ') || 'no terminal'}: exit 64`);
    t.match(
      result.stderr,
      /--open-rooms or --no-open-rooms is required without a terminal or with --yes \(it answers "Allow open rooms \(arrivals without a token\)\?"\)/,
    );
  }
  t.same(snapshot(w.root), {}, 'nothing written');
});

t.test('uninstall reverses install and keeps the data; a re-install makes new secrets', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  t.equal((await w.install(['--key', key, '--no-open-rooms'])).code, 0);
  const oldSecrets = secretNames.map((name) => w.envFile()[name]);
  // The module's data, as a running daemon would have left it.
  mkdirSync(join(w.data, 'compat-api'), { recursive: true });
  writeFileSync(join(w.data, 'compat-api', 'confapi.sqlite'), 'meetings');
  writeFileSync(join(w.data, 'meet.sqlite'), 'rooms');

  const removed = await w.uninstall();
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, /compat uninstalled; the data in .* is kept/);
  t.notOk(existsSync(join(w.data, 'modules', 'compat.json')), 'the record is gone');
  t.equal(readFileSync(join(w.data, 'meet.sqlite'), 'utf8'), 'rooms', 'the database is kept');
  t.equal(readFileSync(join(w.data, 'compat-api', 'confapi.sqlite'), 'utf8'), 'meetings', "the module's data is kept");
  t.equal(readFileSync(join(w.etc, 'room-defaults.toml'), 'utf8'), packaged, 'room-defaults.toml: its values removed');
  const env = w.envFile();
  for (const name of [...secretNames, 'COMPAT_JITSI_ALLOW_ANONYMOUS']) t.equal(env[name], undefined, `${name} removed`);
  t.match(readFileSync(join(w.etc, 'meet.env'), 'utf8'), /^# COMPAT_API_SHARED_SECRET=$/m, 'left as an empty example');
  t.equal(env.SERVICE_DATA_DIR, w.data, "the engine's lines stay");

  const again = await w.uninstall(['--json']);
  t.equal(again.code, 0);
  t.match(JSON.parse(again.stdout), { module: 'compat', installed: false, changed: false });

  const reinstalled = await w.install(['--key', key, '--no-open-rooms']);
  t.equal(reinstalled.code, 0);
  const newSecrets = secretNames.map((name) => w.envFile()[name]);
  newSecrets.forEach((secret, i) => t.not(secret, oldSecrets[i], `${secretNames[i]} is new`));
  t.match(
    readFileSync(join(w.etc, 'meet.env'), 'utf8'),
    /^COMPAT_API_SHARED_SECRET=[A-Za-z0-9_-]{43}$/m,
    'back in its place',
  );
});
