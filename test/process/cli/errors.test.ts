import t from 'tap';
import { CliError, cliErrorKinds, renderCliError } from '../../../src/cli/errors.js';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/io.js';

function io(): CliIo & { outText: () => string; errText: () => string } {
  let out = '';
  let err = '';
  return {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    env: {},
    interactive: false,
    colour: false,
    outText: () => out,
    errText: () => err,
  };
}

t.test('the table: one exit code and a hint per kind', async (t) => {
  t.same(Object.fromEntries(Object.entries(cliErrorKinds).map(([k, v]) => [k, v.exitCode])), {
    usage: 64,
    config: 2,
    refused: 1,
    environment: 69,
    internal: 70,
  });
  for (const kind of Object.values(cliErrorKinds)) t.match(kind.hint, /\S/);
  const err = new CliError('environment', 'nginx is not installed', 'apt-get install nginx');
  t.equal(err.exitCode, 69);
  t.equal(renderCliError(err), 'meetctl: nginx is not installed\n  hint: apt-get install nginx\n');
  t.equal(new CliError('usage', 'x').hint, cliErrorKinds.usage.hint, 'the default hint of the kind');
});

t.test('main maps commander usage errors to 64 and help to 0', async (t) => {
  const unknown = io();
  t.equal(await main(['node', 'meetctl', 'no-such-command'], unknown), 64);
  t.match(unknown.errText(), /unknown command/);
  const badFlag = io();
  t.equal(await main(['node', 'meetctl', 'token', 'list', '--no-such-flag'], badFlag), 64);
  const help = io();
  t.equal(await main(['node', 'meetctl', '--help'], help), 0);
  t.match(help.outText(), /Usage: meetctl/);
  for (const group of ['install', 'nginx', 'tenant', 'serve', 'doctor', 'token', 'license']) {
    t.match(help.outText(), new RegExp(`^ {2}${group}\\b`, 'm'), `--help lists ${group}`);
  }
});

t.test('a configuration error exits 2 with the hint, a system error 69', async (t) => {
  const bad = io();
  t.equal(await main(['node', 'meetctl', 'token', 'list', '--data-dir', '   '], bad), 2);
  t.match(bad.errText(), /SERVICE_DATA_DIR must be a non-empty path/);
  t.match(bad.errText(), /hint: /);
  const dir = t.testdir({ file: 'not a directory' });
  const env = io();
  t.equal(
    await main(['node', 'meetctl', 'token', 'list', '--data-dir', `${dir}/file/sub`], env),
    69,
    "a data dir under a file is the machine's problem",
  );
  t.match(env.errText(), /hint: run `meetctl doctor`/);
});

t.test('the launcher hides --env-file from node itself (nodejs/node#54232 would stop at a missing file)', async (t) => {
  const { execFile } = await import('node:child_process');
  const { meetctl } = await import('../../helpers/daemon.js');
  const dir = t.testdir({});
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      meetctl,
      ['doctor', '--json', '--config-dir', dir, '--env-file', `${dir}/missing.env`],
      { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
  t.not(result.code, 9, `node did not take the flag (${result.stderr})`);
  t.notMatch(result.stderr, /node: .*not found/);
  t.match(
    JSON.parse(result.stdout).checks.find((c: { id: string }) => c.id === 'env-file')?.status,
    /skip/,
    'doctor saw a missing env file',
  );
});
