import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { stopTimeoutSecs } from '../../../src/platform/stop-budget.js';
import {
  runtimeFiles,
  runtimeNextSteps,
  RuntimeSettingsError,
  type RuntimeFile,
  type RuntimeSettings,
} from '../../../src/ops/runtime-files.js';
import { daemonFor, type Tap } from '../../helpers/api.js';
import { hasSystemdAnalyze, packageRootForUnit, runtimeSettings, verifyUnit as verify } from '../../helpers/runtime.js';

/** The package as a unit may name it (a link when the checkout is under a home directory). */
const repoRoot = packageRootForUnit();

const base = runtimeSettings;

function outDirFor(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-runtime-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(files: readonly RuntimeFile[]): void {
  for (const file of files) writeFileSync(file.path, file.content, { mode: file.mode });
}

/** Directive → values, in order; continuation lines joined. */
function directives(unit: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of unit.replace(/\\\n\s*/g, ' ').split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!match) continue;
    map.set(match[1]!, [...(map.get(match[1]!) ?? []), match[2]!]);
  }
  return map;
}

t.test(
  'native: the unit passes systemd-analyze verify without a word about it',
  { skip: !hasSystemdAnalyze && 'systemd-analyze is not installed' },
  async (t) => {
    const out = outDirFor(t);
    const files = runtimeFiles(base(), out);
    t.same(
      files.map((f) => f.path),
      [join(out, 'meet.service')],
      'one file: meet.service',
    );
    t.equal(files[0]!.mode, 0o644);
    write(files);
    const result = await verify(files[0]!.path);
    t.same(result.ours, [], `no line about the unit:\n${result.all}`);
    t.equal(result.code, 0, `verify exits 0:\n${result.all}`);

    // The filter is not blind: broken copies of the same unit are reported.
    const misspelt = join(out, 'misspelt.service');
    writeFileSync(misspelt, files[0]!.content.replace(/^ReadWritePaths=/m, 'ReadWritePath='));
    t.ok(
      (await verify(misspelt)).ours.some((line) => /Unknown key 'ReadWritePath'/.test(line)),
      'an unknown directive is named',
    );
    const noNode = join(out, 'no-node.service');
    writeFileSync(noNode, files[0]!.content.replace(process.execPath, '/usr/bin/no-such-node'));
    const missing = await verify(noNode);
    t.ok(
      missing.ours.some((line) => /no-such-node/.test(line)) && missing.code !== 0,
      `a missing ExecStart binary fails:\n${missing.all}`,
    );
  },
);

t.test('native: the hardening, the paths and the stop timeout from the grace', async (t) => {
  const grace = 30;
  const unit = runtimeFiles(base({ shutdownGraceSecs: grace }), outDirFor(t))[0]!.content;
  const d = directives(unit);
  const one = (key: string) => {
    const values = d.get(key) ?? [];
    t.equal(values.length, 1, `${key}= appears once`);
    return values[0];
  };
  t.equal(one('Type'), 'simple');
  t.equal(one('Restart'), 'on-failure');
  t.equal(one('User'), 'meet');
  t.equal(one('EnvironmentFile'), '/etc/meet/meet.env');
  t.equal(one('StateDirectory'), 'meet', '/var/lib/meet');
  t.equal(one('ConfigurationDirectory'), 'meet', '/etc/meet');
  t.equal(one('NoNewPrivileges'), 'yes');
  t.equal(one('ProtectSystem'), 'strict');
  t.equal(one('ProtectHome'), 'yes');
  t.equal(one('PrivateTmp'), 'yes');
  t.equal(one('CapabilityBoundingSet'), '', 'no capabilities at all');
  t.equal(
    one('RestrictAddressFamilies'),
    'AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    "netlink: the daemon's Janus lists interfaces through it",
  );
  t.equal(one('SystemCallFilter'), '@system-service');
  t.same(
    one('ReadWritePaths')?.split(' ').sort(),
    ['/etc/meet', '/var/lib/meet'],
    'data and config directories writable',
  );
  t.notOk(d.has('MemoryDenyWriteExecute'), 'no W^X: V8 needs it');
  const timeout = Number(one('TimeoutStopSec'));
  t.ok(timeout > grace, `TimeoutStopSec ${timeout} > grace ${grace}`);
  t.equal(timeout, stopTimeoutSecs(grace));
  const exec = one('ExecStart')!.split(/\s+/);
  t.equal(exec[0], process.execPath, 'the node binary');
  t.equal(
    exec.find((arg) => arg.endsWith('/bin/meetctl.js')),
    `${repoRoot}/bin/meetctl.js`,
  );
  const flag = (name: string) => exec[exec.indexOf(name) + 1];
  t.ok(exec.includes('serve'));
  t.equal(flag('--config'), '/etc/meet/room-defaults.toml');
  t.equal(flag('--data-dir'), '/var/lib/meet', 'the daemon writes where ReadWritePaths lets it');
  t.equal(flag('--config-dir'), '/etc/meet');
  t.equal(flag('--shutdown-grace-secs'), String(grace), 'the daemon gets the grace TimeoutStopSec was sized for');

  const defaults = directives(runtimeFiles(base(), outDirFor(t))[0]!.content);
  t.equal(defaults.get('TimeoutStopSec')?.[0], String(stopTimeoutSecs(10)), 'default grace 10 s');
});

t.test(
  'native: directories outside /var/lib and /etc still verify, without StateDirectory=',
  { skip: !hasSystemdAnalyze && 'systemd-analyze is not installed' },
  async (t) => {
    const out = outDirFor(t);
    const files = runtimeFiles(
      base({ dataDir: '/srv/meet/data', configDir: '/srv/meet/config', envFile: '/srv/meet/config/meet.env' }),
      out,
    );
    write(files);
    const d = directives(files[0]!.content);
    t.notOk(d.has('StateDirectory'));
    t.notOk(d.has('ConfigurationDirectory'));
    t.same(d.get('ReadWritePaths'), ['/srv/meet/data /srv/meet/config']);
    t.match(files[0]!.content, /# No StateDirectory=: \/srv\/meet\/data is outside \/var\/lib/);
    const result = await verify(files[0]!.path);
    t.same(result.ours, [], result.all);
    t.match(
      runtimeNextSteps(base({ dataDir: '/srv/meet/data' }), files).join('\n'),
      /install -d -o meet -g meet -m 0700 \/srv\/meet\/data/,
    );
  },
);

t.test('native: the next steps are the systemctl commands', async (t) => {
  const out = outDirFor(t);
  const settings = base();
  const steps = runtimeNextSteps(settings, runtimeFiles(settings, out));
  t.ok(steps.includes(`install -m 0644 ${out}/meet.service /etc/systemd/system/meet.service`));
  t.ok(steps.includes('systemctl daemon-reload'));
  t.ok(steps.includes('systemctl enable --now meet'));
  t.ok(steps.includes('journalctl -u meet -f'));
  t.ok(steps.indexOf('systemctl daemon-reload') < steps.indexOf('systemctl enable --now meet'), 'reload before enable');
  t.notOk(
    runtimeNextSteps(settings, runtimeFiles(settings, '/etc/systemd/system')).some((s) => s.startsWith('install -m')),
    'no copy when written in place',
  );
});

t.test('settings that cannot go into a unit or compose file are refused, naming the field', async (t) => {
  const cases: [string, Partial<RuntimeSettings>, string][] = [
    ['a newline smuggling a directive', { dataDir: '/var/lib/meet\nExecStartPre=/bin/sh -c id' }, 'dataDir'],
    ['a space (would split ExecStart)', { installDir: '/opt/meet service' }, 'installDir'],
    ['a % specifier', { configDir: '/etc/meet%h' }, 'configDir'],
    ['a $ expansion', { envFile: '/etc/meet/$HOME.env' }, 'envFile'],
    ['a relative path', { dataDir: 'data' }, 'dataDir'],
    ['dot segments', { dataDir: '/var/lib/../../etc' }, 'dataDir'],
    ['the root directory', { dataDir: '/' }, 'dataDir'],
    ['a home directory ProtectHome hides', { installDir: '/home/admin/meet' }, 'installDir'],
    ['node under /root', { node: '/root/.nvm/versions/node/v24/bin/node' }, 'node'],
    ['root as the user', { user: 'root' }, 'user'],
    ['an odd user name', { user: 'meet;rm' }, 'user'],
    ['a privileged port', { engineAddr: { host: '0.0.0.0', port: 80 } }, 'engineAddr'],
    ['a random port', { compatAddr: { host: '127.0.0.1', port: 0 } }, 'compatAddr'],
    ['a negative grace', { shutdownGraceSecs: -1 }, 'shutdownGraceSecs'],
    ['a fractional grace', { shutdownGraceSecs: 1.5 }, 'shutdownGraceSecs'],
    ['a grace over an hour', { shutdownGraceSecs: 99_999 }, 'shutdownGraceSecs'],
    ['an unknown runtime', { runtime: 'podman' as never }, 'runtime'],
  ];
  for (const [what, overrides, field] of cases) {
    for (const runtime of ['native', 'container'] as const) {
      if (
        runtime === 'container' &&
        ['node', 'user', 'installDir'].includes(field) &&
        what !== 'a space (would split ExecStart)'
      )
        continue;
      const settings = base({ runtime, ...overrides });
      try {
        runtimeFiles(settings, outDirFor(t));
        t.fail(`${runtime}: ${what} was accepted`);
      } catch (err) {
        t.type(err, RuntimeSettingsError, `${runtime}: ${what}`);
        t.equal((err as RuntimeSettingsError).field, field, `${runtime}: ${what} names ${field}`);
        t.match((err as Error).message, new RegExp(`^${field}: `));
      }
    }
  }
});

interface Compose {
  name: string;
  services: Record<string, any>;
  networks: Record<string, any>;
}

function containerOf(t: Tap, overrides: Partial<RuntimeSettings> = {}) {
  const out = outDirFor(t);
  const settings = base({ runtime: 'container', ...overrides });
  const files = runtimeFiles(settings, out);
  const byName = new Map(files.map((file) => [basename(file.path), file]));
  return {
    out,
    settings,
    files,
    byName,
    compose: parseYaml(byName.get('compose.yaml')!.content) as Compose,
    dockerfile: byName.get('Dockerfile')!.content,
  };
}

t.test('container: compose.yaml parses with one service running meetctl serve', async (t) => {
  const grace = 20;
  const { out, compose, files } = containerOf(t, {
    shutdownGraceSecs: grace,
    engineAddr: { host: '127.0.0.1', port: 3100 },
    compatAddr: { host: '::1', port: 8100 },
  });
  t.same(files.map((f) => basename(f.path)).sort(), ['Dockerfile', 'Dockerfile.dockerignore', 'compose.yaml']);
  t.ok(files.every((f) => f.mode === 0o644));
  t.same(Object.keys(compose.services), ['meet', 'turn'], 'the service, and TURN');
  t.same(compose.services.turn.profiles, ['turn'], 'TURN only when asked for (--profile turn)');
  const meet = compose.services.meet;
  const command: string[] = meet.command;
  t.same(command.slice(0, 3), ['node', 'bin/meetctl.js', 'serve']);
  const flag = (name: string) => command[command.indexOf(name) + 1];
  t.equal(flag('--config'), '/etc/meet/room-defaults.toml');
  t.equal(meet.init, true, 'init: true (signals forwarded, zombies reaped)');
  t.equal(meet.restart, 'unless-stopped');
  t.same(meet.env_file, ['/etc/meet/meet.env']);
  t.same(meet.build, { context: repoRoot, dockerfile: `${out}/Dockerfile` });

  const volumes: { type: string; source: string; target: string }[] = meet.volumes;
  t.same(
    volumes.map((v) => [v.type, v.source, v.target]),
    [
      ['bind', '/var/lib/meet', '/var/lib/meet'],
      ['bind', '/etc/meet', '/etc/meet'],
    ],
    'the data and config directories, as directories',
  );
  t.notOk(
    volumes.some((v) => /tenants/.test(v.source)),
    'not the tenants file alone',
  );
  t.equal(flag('--data-dir'), volumes[0]!.target, 'the daemon writes into the data volume');
  t.equal(flag('--config-dir'), volumes[1]!.target, 'and reads the config volume');

  t.same(
    meet.ports,
    ['127.0.0.1:3100:3100', '[::1]:8100:8100', '40000-40999:40000-40999/udp'],
    'published on the configured host addresses; media on all, as UDP',
  );
  t.equal(flag('--rtp-ports'), '40000-40999', 'Janus inside uses the ports published');
  t.equal(flag('--http-addr'), '0.0.0.0:3100');
  t.equal(flag('--compat-http-addr'), '0.0.0.0:8100');
  const gateway = compose.networks.meet.ipam.config[0].gateway;
  t.equal(flag('--trusted-proxies'), gateway, 'the proxy trusted is the network gateway the host nginx comes through');
  t.same(meet.networks, ['meet']);

  const test: string[] = meet.healthcheck.test;
  t.equal(test[0], 'CMD');
  t.match(test.join(' '), /http:\/\/127\.0\.0\.1:3100\/readyz/, 'healthcheck on /readyz');
  t.notMatch(test.join(' '), /curl|wget/);
  t.equal(flag('--shutdown-grace-secs'), String(grace));
  t.equal(meet.stop_grace_period, `${stopTimeoutSecs(grace)}s`, 'Docker waits longer than the daemon');
  t.same(meet.cap_drop, ['ALL']);
  t.equal(meet.read_only, true);
});

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function instructions(dockerfile: string): { op: string; args: string }[] {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

t.test(
  'container: the Dockerfile builds in one stage and runs slim, unprivileged, with a readiness healthcheck',
  async (t) => {
    const { dockerfile, compose, settings } = containerOf(t);
    const ops = instructions(dockerfile);
    const arg = ops.find((i) => i.op === 'ARG' && i.args.startsWith('NODE_IMAGE='));
    const image = arg?.args.split('=')[1] ?? '';
    t.match(image, /^node:(20|22|24|26)-bookworm-slim$/, `an LTS slim image (${image})`);
    t.equal(image, 'node:24-bookworm-slim');
    const froms = ops.filter((i) => i.op === 'FROM');
    t.equal(froms.length, 2, 'multi-stage');
    t.ok(
      froms.every((f) => f.args.startsWith('${NODE_IMAGE}')),
      'both stages from the same ARG',
    );
    t.match(froms[0]!.args, /AS build$/);

    const runs = ops.filter((i) => i.op === 'RUN').map((i) => i.args);
    const buildRuns = ops
      .slice(ops.indexOf(froms[0]!), ops.indexOf(froms[1]!))
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join(' ');
    t.match(buildRuns, /apt-get install .*python3 .*make .*g\+\+/, 'a toolchain for better-sqlite3');
    t.match(buildRuns, /npm ci/);
    t.match(buildRuns, /better-sqlite3 --build-from-source/);
    t.match(buildRuns, /npm run build/);
    t.match(buildRuns, /npm prune --omit=dev/);
    t.ok(runs.length >= 3);

    const runtimeStage = ops.slice(ops.indexOf(froms[1]!));
    const users = runtimeStage.filter((i) => i.op === 'USER');
    t.equal(users.length, 1);
    t.notMatch(users[0]!.args, /^(root|0)(:|$)/, `USER ${users[0]!.args} is not root`);
    const user = users[0]!.args;
    t.ok(
      runtimeStage.findIndex((i) => i.op === 'USER') < runtimeStage.findIndex((i) => i.op === 'CMD'),
      'USER before CMD',
    );
    t.match(
      runtimeStage
        .filter((i) => i.op === 'RUN')
        .map((i) => i.args)
        .join(' '),
      new RegExp(`useradd .*${user}`),
      'the user is created',
    );

    const health = runtimeStage.find((i) => i.op === 'HEALTHCHECK');
    t.ok(health, 'HEALTHCHECK');
    t.match(health!.args, /CMD \["node","-e",".*\/readyz/);
    t.notMatch(
      ops.map((i) => `${i.op} ${i.args}`).join('\n'),
      /\bcurl\b|\bwget\b/,
      'no curl or wget (not in slim images)',
    );
    t.same(runtimeStage.find((i) => i.op === 'EXPOSE')?.args.split(' '), ['3000', '8088', '40000-40999/udp']);
    t.match(
      runtimeStage
        .filter((i) => i.op === 'RUN')
        .map((i) => i.args)
        .join(' '),
      /apt-get install -y --no-install-recommends janus/,
      "Debian's Janus in the image, for SERVICE_MEDIA janus or auto",
    );

    // An init: compose runs it (init: true); a bare `docker run` is told to pass --init.
    t.equal(compose.services.meet.init, true);
    t.match(dockerfile, /--init/);
    const cmd = JSON.parse(runtimeStage.find((i) => i.op === 'CMD')!.args) as string[];
    t.same(cmd, compose.services.meet.command, 'the image runs what compose runs');
    t.ok(settings);
  },
);

t.test(
  'container: another RTP range is published and passed as one; a bad one is refused naming the field',
  async (t) => {
    const { compose, dockerfile } = containerOf(t, { rtpPorts: { min: 20000, max: 20099 } });
    const command: string[] = compose.services.meet.command;
    t.equal(command[command.indexOf('--rtp-ports') + 1], '20000-20099');
    t.ok((compose.services.meet.ports as string[]).includes('20000-20099:20000-20099/udp'));
    t.match(dockerfile, /EXPOSE 3000 8088 20000-20099\/udp/);
    t.throws(() => runtimeFiles(base({ runtime: 'container', rtpPorts: { min: 500, max: 600 } }), '/tmp/none'), {
      name: 'RuntimeSettingsError',
      field: 'rtpPorts',
    });
  },
);

t.test(
  'container: the TURN service uses REST credentials from the env file and relays to no private address',
  async (t) => {
    const { compose, settings } = containerOf(t);
    const turn = compose.services.turn;
    t.equal(turn.network_mode, 'host', 'relays need the host network (and its port range)');
    t.same(turn.env_file, [settings.envFile], 'the env file the daemon reads: one secret for both');
    const command = (turn.command as string[])[0]!;
    t.match(command, /--use-auth-secret/);
    t.match(
      command,
      /--static-auth-secret="\$\$SERVICE_TURN_SECRET"/,
      'the secret from the container environment, escaped from compose',
    );
    for (const range of [
      '10.0.0.0-10.255.255.255',
      '127.0.0.0-127.255.255.255',
      '169.254.0.0-169.254.255.255',
      '172.16.0.0-172.31.255.255',
      '192.168.0.0-192.168.255.255',
      '::1',
    ]) {
      t.ok(command.includes(`--denied-peer-ip=${range}`), `no relay to ${range}`);
    }
    t.match(command, /--no-multicast-peers/);
  },
);

t.test('container: every COPY of the runtime stage names something the build context or the build makes', async (t) => {
  const { dockerfile, byName } = containerOf(t);
  const ops = instructions(dockerfile);
  const copies = ops
    .filter((i) => i.op === 'COPY' && i.args.startsWith('--from=build'))
    .map((i) => i.args.split(' ')[1]!.replace(/^\/app\//, ''));
  for (const path of copies) {
    t.ok(path === 'dist' || existsSync(join(repoRoot, path)), `${path} exists in the package (or is built)`);
  }
  t.ok(copies.includes('dist') && copies.includes('node_modules') && copies.includes('bin'));
  const ignore = byName.get('Dockerfile.dockerignore')!.content.split('\n');
  for (const entry of ['**/node_modules', 'data', '.git'])
    t.ok(ignore.includes(entry), `.dockerignore keeps ${entry} out`);
  for (const needed of [
    'package.json',
    'package-lock.json',
    'src',
    'templates',
    'room-defaults.toml',
    'scripts',
    'tsconfig.json',
  ]) {
    t.notOk(ignore.includes(needed), `${needed} stays in the build context`);
  }
});

t.test(
  'container: the HEALTHCHECK command, run for real, passes against a ready daemon and fails without one',
  async (t) => {
    const daemon = await daemonFor(t);
    const port = Number(new URL(daemon.url).port);
    const { compose } = containerOf(t, { engineAddr: { host: '127.0.0.1', port } });
    const [, node, ...args] = compose.services.meet.healthcheck.test as string[];
    t.equal(node, 'node');
    const run = () =>
      new Promise<number>((resolve) =>
        execFile(process.execPath, args, { timeout: 20_000 }, (error) =>
          resolve(error ? (typeof error.code === 'number' ? error.code : -1) : 0),
        ),
      );
    t.equal(await run(), 0, 'healthy while /readyz answers 200');
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    t.equal(await run(), 1, 'unhealthy when nothing answers');
  },
);

t.test('container: next steps chown the volumes to the image user and start compose', async (t) => {
  const { settings, files, out } = containerOf(t);
  const steps = runtimeNextSteps(settings, files);
  t.ok(steps.includes('chown -R 10001:10001 /var/lib/meet /etc/meet'));
  t.ok(steps.includes(`docker compose -f ${out}/compose.yaml up -d`));
  t.match(files.find((f) => f.path.endsWith('Dockerfile'))!.content, /--uid 10001/, 'the uid the steps chown to');
});
