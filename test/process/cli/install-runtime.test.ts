// meetctl install compat --runtime: the files the runtime renderers make, written by install
// beside the env file, the unit verified by systemd, the compose file parsed; a setting that
// cannot go into them stops install before anything is written.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { checkoutVisibleToUnit, hasSystemdAnalyze, verifyUnit } from '../../helpers/runtime.js';
import { snapshot } from '../../helpers/tree.js';

const ports = { SERVICE_HTTP_ADDR: '127.0.0.1:3000', COMPAT_HTTP_ADDR: '127.0.0.1:8088' };

t.test(
  '--runtime native writes a unit systemd accepts, naming the files install wrote',
  {
    skip:
      !checkoutVisibleToUnit &&
      'this checkout is under a home directory, which the unit hides (the refusal is tested below)',
  },
  async (t) => {
    const w = world(t);
    const out = join(w.root, 'units');
    const key = await testServerKey();
    const result = await w.install(
      ['--key', key, '--no-open-rooms', '--runtime', 'native', '--runtime-dir', out, '--service-user', 'meet'],
      ports,
    );
    t.equal(result.code, 0, result.stderr);
    const unitFile = join(out, 'meet.service');
    const unit = readFileSync(unitFile, 'utf8');
    t.equal(statSync(unitFile).mode & 0o777, 0o644, 'the unit is readable by systemd, not secret');
    t.match(unit, new RegExp(`^EnvironmentFile=-?${join(w.etc, 'meet.env')}$`, 'm'), 'the env file install wrote');
    t.match(unit, new RegExp(`--config ${join(w.etc, 'room-defaults.toml')}`), 'the room-defaults.toml install wrote');
    t.match(unit, new RegExp(`--data-dir ${w.data}`), 'the data dir that holds the licence record');
    t.match(unit, /^User=meet$/m);
    t.match(result.stdout, /systemctl daemon-reload/, 'the next steps are printed');
    t.ok(existsSync(join(w.data, 'modules', 'compat.json')), 'the record is written too');
    if (hasSystemdAnalyze) {
      const verified = await verifyUnit(unitFile);
      t.equal(verified.code, 0, verified.all);
      t.same(verified.ours, [], 'systemd-analyze says nothing about the unit');
    }

    const before = snapshot(w.root);
    const again = await w.install(
      ['--key', key, '--runtime', 'native', '--runtime-dir', out, '--service-user', 'meet'],
      ports,
    );
    t.equal(again.code, 0, again.stderr);
    t.same(snapshot(w.root), before, 'a second run changes no byte, the unit included');
  },
);

t.test(
  '--runtime container writes Dockerfile and compose.yaml with the config and data directories as volumes',
  async (t) => {
    const w = world(t);
    const out = join(w.root, 'compose');
    const result = await w.install(
      ['--key', await testServerKey(), '--open-rooms', '--runtime', 'container', '--runtime-dir', out],
      {
        ...ports,
        SERVICE_RTP_PORTS: '20000-20099',
      },
    );
    t.equal(result.code, 0, result.stderr);
    t.same(readdirSync(out).sort(), ['Dockerfile', 'Dockerfile.dockerignore', 'compose.yaml']);
    const compose = parseYaml(readFileSync(join(out, 'compose.yaml'), 'utf8'));
    const [service] = Object.values<Record<string, any>>(compose.services);
    t.ok(service, 'one service');
    t.ok(
      (service!.ports as string[]).includes('20000-20099:20000-20099/udp'),
      'the RTP ports of the settings are published',
    );
    const volumes = (service!.volumes as unknown[]).map((v) =>
      typeof v === 'string' ? v : `${(v as any).source}:${(v as any).target}`,
    );
    t.ok(
      volumes.some((v) => v.startsWith(`${w.data}:`)),
      `the data directory is a volume (${volumes.join(', ')})`,
    );
    t.ok(
      volumes.some((v) => v.startsWith(`${w.etc}:`)),
      'the config directory (not the tenants file alone) is a volume',
    );
    t.same(
      [service!.env_file].flat().map((e: any) => (typeof e === 'string' ? e : e.path)),
      [join(w.etc, 'meet.env')],
      'the env file install wrote',
    );
    t.match(JSON.stringify(service!.healthcheck), /readyz/);
    t.match(readFileSync(join(out, 'Dockerfile'), 'utf8'), /^HEALTHCHECK /m);
  },
);

t.test('a setting no unit can hold stops install before anything is written', async (t) => {
  const w = world(t);
  const before = snapshot(w.root);
  const privileged = await w.install(
    ['--key', await testServerKey(), '--no-open-rooms', '--runtime', 'native', '--runtime-dir', join(w.root, 'units')],
    {
      ...ports,
      SERVICE_HTTP_ADDR: '127.0.0.1:80',
    },
  );
  t.equal(privileged.code, 2, privileged.stderr);
  t.match(privileged.stderr, /--runtime native: engineAddr: port must be from 1024.*SERVICE_HTTP_ADDR/);
  t.match(privileged.stderr, /hint: nothing was written/);
  t.same(snapshot(w.root), before, 'nothing written');

  const badUser = await w.install(
    [
      '--key',
      await testServerKey(),
      '--no-open-rooms',
      '--runtime',
      'native',
      '--runtime-dir',
      join(w.root, 'units'),
      '--service-user',
      'root',
    ],
    ports,
  );
  t.equal(badUser.code, 2, badUser.stderr);
  t.match(badUser.stderr, /does not run as root.*--service-user/);
  t.same(snapshot(w.root), before, 'nothing written');

  if (!checkoutVisibleToUnit) {
    const hidden = await w.install(
      [
        '--key',
        await testServerKey(),
        '--no-open-rooms',
        '--runtime',
        'native',
        '--runtime-dir',
        join(w.root, 'units'),
      ],
      ports,
    );
    t.equal(hidden.code, 2, 'a package under a home directory cannot be run by the hardened unit');
    t.match(hidden.stderr, /ProtectHome/);
  }
});
