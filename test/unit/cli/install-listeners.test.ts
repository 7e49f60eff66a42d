// Issue 28, point 7 (issue 29, point 3): after `meetctl install` both listeners bound 0.0.0.0,
// so clients could go around nginx's TLS and limits. Install now writes loopback listeners
// into the env file (and the compose file publishes on loopback) unless told otherwise.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../../src/config/load.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

t.test(
  'a first install writes loopback listeners where the env file shows them; a second run keeps them',
  async (t) => {
    const w = world(t);
    const key = await testServerKey();
    const first = await w.install(['--key', key, '--no-open-rooms']);
    t.equal(first.code, 0, first.stderr);
    const env = w.envFile();
    t.equal(env.SERVICE_HTTP_ADDR, '127.0.0.1:3000', 'the engine listener on loopback');
    t.equal(env.COMPAT_HTTP_ADDR, '127.0.0.1:8088', 'the compat listener on loopback');
    const text = readFileSync(join(w.etc, 'meet.env'), 'utf8');
    t.notMatch(text, /^# (SERVICE_HTTP_ADDR|COMPAT_HTTP_ADDR)=/m, 'in place of the examples');
    t.match(text, /nginx on this machine is the edge/, 'the file says why');
    t.match(first.stdout, /SERVICE_HTTP_ADDR=127\.0\.0\.1:3000 \(loopback\)/, 'the summary names them');
    const config = loadConfig({ env });
    t.same(
      [config.httpAddr, config.compatHttpAddr],
      [
        { host: '127.0.0.1', port: 3000 },
        { host: '127.0.0.1', port: 8088 },
      ],
      'what the daemon binds',
    );

    const before = snapshot(w.root);
    const again = await w.install(['--key', key, '--json']);
    t.equal(again.code, 0, again.stderr);
    t.same(snapshot(w.root), before, 'a second run changes no byte');
    t.same(JSON.parse(again.stdout).listeners, {
      SERVICE_HTTP_ADDR: { source: 'kept', value: '127.0.0.1:3000' },
      COMPAT_HTTP_ADDR: { source: 'kept', value: '127.0.0.1:8088' },
    });
  },
);

t.test('told otherwise: the flags, the environment, the operator’s own line, room-defaults.toml', async (t) => {
  const key = await testServerKey();
  const flags = world(t);
  const byFlag = await flags.install([
    '--key',
    key,
    '--no-open-rooms',
    '--http-addr',
    '0.0.0.0:3000',
    '--compat-http-addr',
    '[::]:8090',
  ]);
  t.equal(byFlag.code, 0, byFlag.stderr);
  t.match(flags.envFile(), { SERVICE_HTTP_ADDR: '0.0.0.0:3000', COMPAT_HTTP_ADDR: '[::]:8090' }, 'the flags');

  const environment = world(t);
  const byEnv = await environment.install(['--key', key, '--no-open-rooms'], { SERVICE_HTTP_ADDR: '10.0.0.5:3000' });
  t.equal(byEnv.code, 0, byEnv.stderr);
  t.match(
    environment.envFile(),
    { SERVICE_HTTP_ADDR: '10.0.0.5:3000', COMPAT_HTTP_ADDR: '127.0.0.1:8088' },
    'the environment, loopback for the other',
  );

  const operator = world(t);
  mkdirSync(operator.etc, { recursive: true });
  writeFileSync(join(operator.etc, 'meet.env'), '# ours\nSERVICE_HTTP_ADDR=0.0.0.0:4000\n', { mode: 0o600 });
  const kept = await operator.install(['--key', key, '--no-open-rooms']);
  t.equal(kept.code, 0, kept.stderr);
  t.match(
    operator.envFile(),
    { SERVICE_HTTP_ADDR: '0.0.0.0:4000', COMPAT_HTTP_ADDR: '127.0.0.1:8088' },
    "the operator's line is kept",
  );

  const toml = world(t);
  mkdirSync(toml.etc, { recursive: true });
  writeFileSync(join(toml.etc, 'room-defaults.toml'), '[service]\nhttp_addr = "0.0.0.0:3100"\n');
  const fromToml = await toml.install(['--key', key, '--no-open-rooms']);
  t.equal(fromToml.code, 0, fromToml.stderr);
  t.equal(toml.envFile().SERVICE_HTTP_ADDR, undefined, 'no env line overrides room-defaults.toml');
  t.equal(toml.envFile().COMPAT_HTTP_ADDR, '127.0.0.1:8088');

  const bad = world(t);
  const refused = await bad.install(['--key', key, '--no-open-rooms', '--http-addr', 'everywhere']);
  t.equal(refused.code, 2, refused.stderr);
  t.match(refused.stderr, /SERVICE_HTTP_ADDR must be host:port/, 'a bad address names its setting');
});

t.test('--runtime container publishes both listeners on loopback', async (t) => {
  const w = world(t);
  const out = join(w.root, 'compose');
  const result = await w.install([
    '--key',
    await testServerKey(),
    '--no-open-rooms',
    '--runtime',
    'container',
    '--runtime-dir',
    out,
  ]);
  t.equal(result.code, 0, result.stderr);
  const compose = parseYaml(readFileSync(join(out, 'compose.yaml'), 'utf8'));
  const ports = (Object.values<Record<string, any>>(compose.services)[0]!.ports as string[]).filter(
    (p) => !p.endsWith('/udp'),
  );
  t.same(ports, ['127.0.0.1:3000:3000', '127.0.0.1:8088:8088'], 'reachable from the host (nginx) only');
});
