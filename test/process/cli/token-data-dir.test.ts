// Issue 29, point 7: `meetctl token create` used ./data of the current directory, silently made a
// new database there and printed a token the service rejected. The token commands now find the
// data directory the way serve does (the env file included) and make no database unless --init.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { call, daemonFor, dataDirFor } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';

const tokenPattern = /^mt_[A-Za-z0-9_-]{43,}$/;

t.test(
  'token create finds the data directory through the env file install wrote; the daemon started from it accepts the token',
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
    ]);
    t.equal(installed.code, 0, installed.stderr);
    // What systemd's EnvironmentFile= hands the daemon: it makes the database in the env file's data directory.
    const daemon = await daemonFor(t, { dataDir: w.data, env: w.envFile() });

    // No SERVICE_DATA_DIR and no --data-dir: only where the configuration lives, as for every other command.
    const byDir = await runCli(['token', 'create', '--name', 'ops', '--config-dir', w.etc]);
    t.equal(byDir.code, 0, byDir.stderr);
    t.match(byDir.stdout.trim(), tokenPattern);
    const byVariable = await runCli(['token', 'create', '--name', 'backup'], { SERVICE_CONFIG_DIR: w.etc });
    t.equal(byVariable.code, 0, byVariable.stderr);
    const byFile = await runCli(['token', 'create', '--name', 'moodle', '--env-file', join(w.etc, 'meet.env')]);
    t.equal(byFile.code, 0, byFile.stderr);
    for (const [name, result] of [
      ['--config-dir', byDir],
      ['SERVICE_CONFIG_DIR', byVariable],
      ['--env-file', byFile],
    ] as const) {
      t.equal(
        (await call(daemon, '/api/rooms', { token: result.stdout.trim() })).status,
        200,
        `the service accepts the token made with ${name}`,
      );
    }
    const listed = await runCli(['token', 'list', '--json', '--config-dir', w.etc]);
    t.same(
      (JSON.parse(listed.stdout) as { name: string }[]).map((row) => row.name).sort(),
      ['backup', 'initial-admin', 'moodle', 'ops'],
      "list reads the service's database",
    );
    t.equal((await runCli(['token', 'revoke', 'ops', '--config-dir', w.etc])).code, 0);
    t.equal(
      (await call(daemon, '/api/rooms', { token: byDir.stdout.trim() })).status,
      401,
      'revoke reaches the running service',
    );
  },
);

t.test('a data directory without a database is refused, naming it and where it came from, unless --init', async (t) => {
  const empty = dataDirFor(t);
  const refused = await runCli(['token', 'create', '--name', 'ci', '--data-dir', empty]);
  t.equal(refused.code, 1, 'refused');
  t.equal(refused.stdout, '', 'no token printed');
  t.match(
    refused.stderr,
    new RegExp(`no database at ${join(empty, 'meet.sqlite')} \\(the data directory came from --data-dir\\)`),
  );
  t.match(refused.stderr, /hint: .*--init/);
  t.notOk(existsSync(join(empty, 'meet.sqlite')), 'no database was made');
  for (const args of [['list'], ['revoke', 'ci']]) {
    const other = await runCli(['token', ...args, '--data-dir', empty]);
    t.equal(other.code, 1, `token ${args[0]} is refused too`);
  }
  t.notOk(existsSync(join(empty, 'meet.sqlite')), 'still none');

  // The env file names a data directory the service has not made yet: the message names the file.
  const etc = join(dataDirFor(t), 'etc');
  mkdirSync(etc);
  const missing = join(empty, 'not-yet');
  writeFileSync(join(etc, 'meet.env'), `SERVICE_DATA_DIR=${missing}\n`, { mode: 0o600 });
  const fromFile = await runCli(['token', 'create', '--name', 'ci', '--config-dir', etc]);
  t.equal(fromFile.code, 1);
  t.match(fromFile.stderr, `the data directory came from SERVICE_DATA_DIR in ${join(etc, 'meet.env')}`);
  t.notOk(existsSync(missing), 'not even the directory');

  const init = await runCli(['token', 'create', '--name', 'ci', '--config-dir', etc, '--init']);
  t.equal(init.code, 0, init.stderr);
  t.match(init.stdout.trim(), tokenPattern);
  t.ok(existsSync(join(missing, 'meet.sqlite')), '--init makes the database where the env file says');
});
