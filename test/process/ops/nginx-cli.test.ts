// Issue 13, point 2: `meetctl nginx` as an operator runs it: --out semantics, exit codes and
// hints for refused input (the checks themselves: nginx-render.test.ts), the trusted-proxy warning.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { nginxPrefixFor, selfSigned } from '../../helpers/nginx.js';

const addrs = ['--http-addr', '127.0.0.1:3000', '--compat-http-addr', '127.0.0.1:8088'];

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-nginx-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('the command writes what nginx accepts (TLS)', async (t) => {
  const nginx = nginxPrefixFor(t);
  const { cert, key } = selfSigned(nginx.prefix, 'meet.test');
  const run = await runCli([
    'nginx',
    '--server-name',
    'meet.test',
    ...addrs,
    '--tls-cert',
    cert,
    '--tls-key',
    key,
    '--listen',
    '127.0.0.1:18443',
    '--redirect-listen',
    '127.0.0.1:18080',
    '--legacy-api-path',
    '--site-access-log',
    nginx.accessLog,
    '--out',
    nginx.site,
  ]);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stderr, '', 'no warning: loopback upstream, trusted by default');
  const verdict = nginx.test();
  t.ok(verdict.ok, verdict.output);
});

t.test('--out: same bytes are left alone, different ones need --force', async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'meet.conf');
  const base = ['nginx', '--server-name', 'meet.test', '--http-only', ...addrs, '--out', out];
  const first = await runCli(base);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, `wrote ${out}`);
  t.equal((statSync(out).mode & 0o777).toString(8), '644', 'readable by nginx, like any site file');
  const written = readFileSync(out, 'utf8');
  const mtime = statSync(out).mtimeMs;

  const again = await runCli(base);
  t.equal(again.code, 0);
  t.match(again.stdout, `${out} unchanged`);
  t.equal(statSync(out).mtimeMs, mtime, 'not even rewritten');

  const differs = await runCli([...base, '--no-legacy-api-path']);
  t.equal(differs.code, 1, 'refused');
  t.match(differs.stderr, /exists and differs/);
  t.match(differs.stderr, /hint: .*--force/);
  t.equal(readFileSync(out, 'utf8'), written, 'the file is untouched');

  const forced = await runCli([...base, '--no-legacy-api-path', '--force']);
  t.equal(forced.code, 0, forced.stderr);
  t.notMatch(readFileSync(out, 'utf8'), /bigbluebutton/);
  t.match(
    written,
    /location \^~ \/bigbluebutton\/ \{ proxy_pass http:\/\/meet_compat; \}/,
    'the default routes the legacy path',
  );

  const printed = await runCli(base.slice(0, -2));
  t.equal(printed.code, 0);
  t.equal(printed.stdout, written, 'without --out the same text goes to standard output');
});

t.test(
  'abuse: bad names, listen addresses, TLS files and flag combinations are refused before anything is written',
  async (t) => {
    const dir = tempDir(t);
    const out = join(dir, 'meet.conf');
    const { cert, key } = selfSigned(dir, 'meet.test');
    const other = mkdtempSync(join(dir, 'other-'));
    const { key: otherKey } = selfSigned(other, 'other.test');
    const cases: [string, string[], number, RegExp][] = [
      ['semicolon', ['--server-name', 'a.org;', '--http-only'], 2, /--server-name must be a host name/],
      ['newline', ['--server-name', 'a.org\nlisten 81;', '--http-only'], 2, /--server-name must be an ASCII host name/],
      ['unicode', ['--server-name', 'münchen.de', '--http-only'], 2, /xn-- form/],
      ['no name', ['--http-only'], 64, /--server-name is required/],
      [
        'listen with syntax',
        ['--server-name', 'a.org', '--http-only', '--listen', '80; include /etc/passwd'],
        2,
        /--listen must be PORT/,
      ],
      ['neither TLS nor --http-only', ['--server-name', 'a.org'], 64, /--tls-cert and --tls-key, or --http-only/],
      ['--tls-cert without --tls-key', ['--server-name', 'meet.test', '--tls-cert', cert], 64, /--tls-key is missing/],
      [
        'TLS and --http-only',
        ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', key, '--http-only'],
        64,
        /--http-only cannot be combined/,
      ],
      [
        'missing certificate',
        ['--server-name', 'meet.test', '--tls-cert', join(dir, 'nope.pem'), '--tls-key', key],
        2,
        /--tls-cert names a file that does not exist.*ENOENT/,
      ],
      [
        'key of another certificate',
        ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', otherKey],
        2,
        /--tls-key is not the private key of the certificate/,
      ],
      [
        '--out and --install',
        ['--server-name', 'a.org', '--http-only', '--install'],
        64,
        /--out and --install exclude each other/,
      ],
    ];
    // The flag checks themselves are unit-tested above; these runs show the CLI's exit codes and hints.
    const runs = [];
    for (let i = 0; i < cases.length; i += 4) {
      runs.push(
        ...(await Promise.all(
          cases.slice(i, i + 4).map(([, flags]) => runCli(['nginx', ...addrs, ...flags, '--out', out])),
        )),
      );
    }
    for (const [i, [name, , code, message]] of cases.entries()) {
      const run = runs[i]!;
      t.equal(run.code, code, `${name}: exit ${code}`);
      t.match(run.stderr, message, `${name}: ${run.stderr.trim()}`);
      t.match(run.stderr, /hint: /, `${name}: a hint`);
      t.notMatch(run.stderr, /BEGIN .*PRIVATE KEY|at .*\.js:\d+/, `${name}: no key material, no stack`);
      t.throws(() => statSync(out), `${name}: nothing written`);
    }
    const engineOnPortZero = await runCli([
      'nginx',
      '--server-name',
      'a.org',
      '--http-only',
      '--http-addr',
      '127.0.0.1:0',
    ]);
    t.equal(engineOnPortZero.code, 2);
    t.match(engineOnPortZero.stderr, /SERVICE_HTTP_ADDR has port 0/);
    const wrongHost = await runCli([
      'nginx',
      '--server-name',
      'meet.example.org',
      ...addrs,
      '--tls-cert',
      cert,
      '--tls-key',
      key,
    ]);
    t.equal(wrongHost.code, 0, 'a certificate for another name is only a warning (it may be about to be replaced)');
    t.match(wrongHost.stderr, /warning: the certificate .* does not name meet\.example\.org/);
  },
);

t.test(
  'the generated file and the daemon agree on the proxy: a warning when the daemon would not trust nginx',
  async (t) => {
    const remote = await runCli([
      'nginx',
      '--server-name',
      'a.org',
      '--http-only',
      '--http-addr',
      '10.1.2.3:3000',
      '--compat-http-addr',
      '10.1.2.3:8088',
    ]);
    t.equal(remote.code, 0, 'a warning, not a failure');
    t.match(
      remote.stderr,
      /warning: the engine listener is not on loopback: nginx will connect from 10\.1\.2\.3, which SERVICE_TRUSTED_PROXIES \(127\.0\.0\.1,::1\) does not cover/,
    );
    t.match(remote.stdout, /nginx connects to them from 10\.1\.2\.3\./);
    t.match(remote.stdout, /upstream meet_engine \{ server 10\.1\.2\.3:3000;/);

    const covered = await runCli(['nginx', '--server-name', 'a.org', '--http-only', '--http-addr', '10.1.2.3:3000'], {
      SERVICE_TRUSTED_PROXIES: '10.1.2.0/24',
    });
    t.equal(covered.stderr, '', 'covered by a CIDR block: no warning');
    t.match(covered.stdout, /SERVICE_TRUSTED_PROXIES \(now: 10\.1\.2\.0\/24\)/);

    const none = await runCli(['nginx', '--server-name', 'a.org', '--http-only', ...addrs], {
      SERVICE_TRUSTED_PROXIES: 'none',
    });
    t.match(
      none.stderr,
      /warning: the engine listener is on loopback: nginx will connect from 127\.0\.0\.1, which SERVICE_TRUSTED_PROXIES \(none\) does not cover/,
    );
  },
);

t.test('an unreadable defaults file or a bad setting is a configuration error', async (t) => {
  const dir = tempDir(t);
  const bad = join(dir, 'bad.toml');
  writeFileSync(bad, '[service]\nhttp_addr = "nope"\n');
  const run = await runCli(['nginx', '--server-name', 'a.org', '--http-only', '--config', bad]);
  t.equal(run.code, 2);
  t.match(run.stderr, /SERVICE_HTTP_ADDR must be host:port/);
});
