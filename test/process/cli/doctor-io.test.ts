import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { meetctl, runMeetctl } from '../../helpers/daemon.js';
import { doctorJson, expectFailure, healthy, type Report } from '../../helpers/doctor.js';

t.test('colours on a terminal only', async (t) => {
  const s = await healthy(t);
  const plain = await runMeetctl(s.args(), { NO_COLOR: '' });
  t.notMatch(plain.stdout, /\u001b\[/, 'piped: no escape sequences');
  const command = [process.execPath, meetctl, ...s.args()].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const tty = await new Promise<string>((resolve) =>
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { env: { PATH: process.env.PATH ?? '', TERM: 'xterm' }, encoding: 'utf8', timeout: 60_000 },
      (_e, stdout) => resolve(stdout),
    ),
  );
  t.match(tty, /\u001b\[32m✓\u001b\[0m Configuration/, 'on a terminal the marks are coloured');
  const piped = await new Promise<string>((resolve) =>
    execFile(
      'script',
      ['-qec', `${command} | cat`, '/dev/null'],
      { env: { PATH: process.env.PATH ?? '', TERM: 'xterm' }, encoding: 'utf8', timeout: 60_000 },
      (_e, stdout) => resolve(stdout),
    ),
  );
  t.match(piped, /✓ Configuration/);
  t.notMatch(piped, /\u001b\[3\dm/, 'standard output piped from a terminal: plain');
});

t.test('abuse: garbage and huge env files, an env file that is a directory', async (t) => {
  const s = await healthy(t, { light: true });
  const secretOnBadLine = 'hunter2-hunter2-hunter2-hunter2-hunter2';
  const hugeSecret = 'S'.repeat(1024 * 1024);
  writeFileSync(
    s.envFile,
    [
      `SERVICE_DATA_DIR=${s.dataDir}`,
      `SERVICE_HTTP_ADDR=127.0.0.1:${s.enginePort}`,
      `COMPAT_HTTP_ADDR=127.0.0.1:${s.compatPort}`,
      `SERVICE_LICENSE_PUBLIC_KEY=@${s.publicKeyFile}`,
      `COMPAT_API_SHARED_SECRET ${secretOnBadLine}`,
      '\u0000\u0001\u001b[2J garbage',
      `COMPAT_JITSI_APP_SECRET=${hugeSecret}`,
      '=no-name',
    ].join('\n'),
    { mode: 0o600 },
  );
  const { result, byId } = await doctorJson(t, s);
  t.equal(result.code, 0, 'garbage lines are a warning');
  t.match(byId.get('env-file'), { status: 'warn', detail: /line 5, 6, 8 is not KEY=value and is ignored/ });
  t.match(
    byId.get('secrets'),
    { status: 'ok', detail: /3 secrets/ },
    'the huge secret counts, the one on a bad line is not set',
  );
  t.notOk(
    result.stdout.includes(secretOnBadLine) || result.stdout.includes('SSSSSSSSSSSSSSSS'),
    'no value of the file is printed',
  );
  t.ok(result.stdout.length < 20_000, 'the output stays small');

  writeFileSync(s.envFile, `X=${'v'.repeat(5 * 1024 * 1024)}\n`, { mode: 0o600 });
  await expectFailure(t, s, 'Environment file', /cannot read .*meet\.env: larger than 4 MiB/, /--env-file/);

  chmodSync(s.envFile, 0o644);
  s.env();
  chmodSync(s.envFile, 0o640);
  await expectFailure(t, s, 'Environment file', /holds secrets but is mode 0640/, /chmod 600/);

  rmSync(s.envFile);
  mkdirSync(s.envFile);
  await expectFailure(t, s, 'Environment file', /not a regular file/, /--env-file/);

  // --env-file names another file (an empty one here; a missing one cannot be named: Node 20 and 22
  // take a script's --env-file for their own and stop on a missing file, nodejs/node#54232).
  const empty = join(s.root, 'empty.env');
  writeFileSync(empty, '', { mode: 0o600 });
  const onlyEnv = {
    SERVICE_DATA_DIR: s.dataDir,
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
    SERVICE_LICENSE_PUBLIC_KEY: `@${s.publicKeyFile}`,
  };
  const named = await doctorJson(t, s, ['--env-file', empty], onlyEnv);
  t.match(named.byId.get('env-file'), { status: 'ok', detail: /empty\.env read/ });
  t.match(named.byId.get('engine-port'), { status: 'skip', detail: /port 0/ }, 'the environment alone is used');

  // No env file in the configuration directory: doctor reads the environment alone.
  const bare = mkdtempSync(join(tmpdir(), 'meet-doctor-bare-'));
  t.teardown(() => rmSync(bare, { recursive: true, force: true }));
  const alone = await runCli(
    ['doctor', '--json', '--config-dir', bare, '--nginx-file', s.nginxFile, '--unit-file', s.unitFile],
    onlyEnv,
  );
  const report = JSON.parse(alone.stdout) as Report;
  t.match(
    report.checks.find((c) => c.id === 'env-file'),
    { status: 'skip', detail: /meet\.env does not exist; doctor reads the environment alone/ },
  );
  t.equal(alone.code, 0, alone.stdout);
});
