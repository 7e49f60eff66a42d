// Issue 13, point 2: what `meetctl nginx` writes, checked by real `nginx -t`, and what it refuses.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runMeetctl } from '../helpers/daemon.js';
import { nginxPrefixFor, selfSigned } from '../helpers/nginx.js';
import { checkServerName, loadTemplate, renderNginxSite, trusts, type NginxSite } from '../../src/ops/nginx-config.js';

const addrs = ['--http-addr', '127.0.0.1:3000', '--compat-http-addr', '127.0.0.1:8088'];

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-nginx-render-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
type Tap = Parameters<Parameters<typeof t.test>[1]>[0];

const site: NginxSite = {
  serverName: 'meet.example.org',
  engineAddr: { host: '0.0.0.0', port: 3000 },
  compatAddr: { host: '::', port: 8088 },
  trustedProxies: ['127.0.0.1', '::1'],
  tls: null,
  listen: null,
  redirectListen: null,
  legacyApiPath: false,
};

t.test('the rendered site: one limited location for the four room addresses, compat paths, upgrade, forwarding headers', async (t) => {
  const text = renderNginxSite(loadTemplate(), site);
  t.match(text, /^limit_req_zone \$binary_remote_addr zone=meet_rooms:10m rate=10r\/s;$/m, 'a zone per client address at 10 r/s');
  const limited = /location ~ \^\/room\/\.\+\/\(start\|exists\|knock\|waiting\)\$ \{\n([^}]*)\}/.exec(text);
  t.ok(limited, 'start, exists, knock and waiting share ONE location');
  t.match(limited?.[1], /limit_req zone=meet_rooms burst=100 nodelay;\n\s+limit_req_status 429;\n\s+proxy_pass http:\/\/meet_engine;/);
  t.equal(text.match(/limit_req zone=/g)?.length, 1, 'no other location is limited');
  t.match(text, /school/i, 'the numbers come with the school-NAT caveat');
  t.match(text, /upstream meet_engine \{ server 127\.0\.0\.1:3000;/, '0.0.0.0 is reached on loopback');
  t.match(text, /upstream meet_compat \{ server \[::1\]:8088;/, ':: is reached on IPv6 loopback');
  for (const path of ['location ^~ /confapi/ { proxy_pass http://meet_compat; }', 'location ^~ /videoconf/ { proxy_pass http://meet_compat; }', 'location = /external_api.js { proxy_pass http://meet_compat; }', 'location ~ ^/[^/]+/external_api\\.js$ { proxy_pass http://meet_compat; }']) {
    t.ok(text.includes(path), path);
  }
  t.match(text, /location ~ \^\/room\/\[\^\/\]\+\/live\$ \{[^}]*proxy_set_header Upgrade \$http_upgrade;[^}]*proxy_set_header Connection \$meet_connection_upgrade;/);
  t.match(text, /proxy_set_header X-Forwarded-For \$remote_addr;/, 'the client\'s own X-Forwarded-For is replaced, not appended to');
  t.match(text, /proxy_set_header X-Forwarded-Proto \$scheme;/);
  t.notMatch(text, /bigbluebutton/, 'no legacy path unless asked');
  t.notMatch(text, /ssl|Strict-Transport/, 'http-only has no TLS');
  t.notMatch(text, /include /, 'self-contained: no snippet to install beside it');
  t.match(text, /nginx connects to them from 127\.0\.0\.1\. The daemon believes X-Forwarded-For only from\n# SERVICE_TRUSTED_PROXIES \(now: 127\.0\.0\.1,::1\)/, 'the header states where nginx connects from and what the daemon trusts');
});

t.test('TLS: modern protocols only, HSTS, and a redirect server that keeps a non-default port', async (t) => {
  const text = renderNginxSite(loadTemplate(), { ...site, tls: { cert: '/etc/ssl/meet.pem', key: '/etc/ssl/meet.key' }, listen: '127.0.0.1:8443', redirectListen: '127.0.0.1:8080' });
  t.match(text, /listen 127\.0\.0\.1:8443 ssl;/);
  t.match(text, /ssl_protocols TLSv1\.2 TLSv1\.3;/);
  t.notMatch(text, /TLSv1 |TLSv1\.1|SSLv3/);
  t.match(text, /add_header Strict-Transport-Security "max-age=63072000" always;/);
  t.match(text, /server \{\n\s+listen 127\.0\.0\.1:8080;\n\s+server_name meet\.example\.org;\n\s+return 301 https:\/\/meet\.example\.org:8443\$request_uri;/);
  const defaults = renderNginxSite(loadTemplate(), { ...site, tls: { cert: '/c', key: '/k' } });
  t.match(defaults, /listen 443 ssl;\n\s+listen \[::\]:443 ssl;/);
  t.match(defaults, /listen 80;\n\s+listen \[::\]:80;\n\s+server_name meet\.example\.org;\n\s+return 301 https:\/\/meet\.example\.org\$request_uri;/);
});

t.test('server names: host names only, so nothing can become nginx syntax', async (t) => {
  t.equal(checkServerName('Meet.Example.org.'), 'meet.example.org');
  t.equal(checkServerName('xn--mnchen-3ya.de'), 'xn--mnchen-3ya.de');
  for (const bad of ['a;b', 'meet.example.org; include /etc/passwd', 'a{b', 'a}b', 'a\nb', 'a b', 'a\tb', 'münchen.de', '"meet"', "'meet'", 'a$host', 'a#b', '', '-a.org', 'a-.org', 'a..org', `${'a'.repeat(64)}.org`, '\u202eevil.org', 'a\u0000b']) {
    t.throws(() => checkServerName(bad), { field: '--server-name' }, JSON.stringify(bad));
  }
});

t.test('trusted proxies: single addresses and CIDR blocks of both families', async (t) => {
  t.ok(trusts(['127.0.0.1', '::1'], '127.0.0.1'));
  t.notOk(trusts(['127.0.0.1'], '127.0.0.2'));
  t.ok(trusts(['10.0.0.0/8'], '10.1.2.3'));
  t.ok(trusts(['2001:db8::/32'], '2001:db8:1::5'));
  t.notOk(trusts([], '127.0.0.1'), 'none trusts nobody');
});

t.test('the generated file passes nginx -t: http-only, TLS, legacy path', async (t) => {
  const cases: [string, (dir: string) => string[]][] = [
    ['http-only', () => ['--http-only', '--listen', '127.0.0.1:18080']],
    ['TLS', (dir) => {
      const { cert, key } = selfSigned(dir, 'meet.test');
      return ['--tls-cert', cert, '--tls-key', key, '--listen', '127.0.0.1:18443', '--redirect-listen', '127.0.0.1:18080'];
    }],
    ['TLS with the default listen addresses and the legacy path', (dir) => {
      const { cert, key } = selfSigned(dir, 'meet.test');
      return ['--tls-cert', cert, '--tls-key', key, '--legacy-api-path'];
    }],
    ['http-only with the legacy path', () => ['--http-only', '--legacy-api-path']],
  ];
  for (const [name, flags] of cases) {
    await t.test(name, async (t) => {
      const nginx = nginxPrefixFor(t);
      const run = await runMeetctl(['nginx', '--server-name', 'meet.test', ...addrs, ...flags(nginx.prefix), '--out', nginx.site]);
      t.equal(run.code, 0, run.stderr);
      t.equal(run.stderr, '', 'no warning: loopback upstream, trusted by default');
      const verdict = nginx.test();
      t.ok(verdict.ok, verdict.output);
      t.match(verdict.output, /test is successful/);
    });
  }
});

t.test('--out: same bytes are left alone, different ones need --force', async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'meet.conf');
  const base = ['nginx', '--server-name', 'meet.test', '--http-only', ...addrs, '--out', out];
  const first = await runMeetctl(base);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, `wrote ${out}`);
  t.equal((statSync(out).mode & 0o777).toString(8), '644', 'readable by nginx, like any site file');
  const written = readFileSync(out, 'utf8');
  const mtime = statSync(out).mtimeMs;

  const again = await runMeetctl(base);
  t.equal(again.code, 0);
  t.match(again.stdout, `${out} unchanged`);
  t.equal(statSync(out).mtimeMs, mtime, 'not even rewritten');

  const differs = await runMeetctl([...base, '--legacy-api-path']);
  t.equal(differs.code, 1, 'refused');
  t.match(differs.stderr, /exists and differs/);
  t.match(differs.stderr, /hint: .*--force/);
  t.equal(readFileSync(out, 'utf8'), written, 'the file is untouched');

  const forced = await runMeetctl([...base, '--legacy-api-path', '--force']);
  t.equal(forced.code, 0, forced.stderr);
  t.match(readFileSync(out, 'utf8'), /location \^~ \/bigbluebutton\/api\//);

  const printed = await runMeetctl(base.slice(0, -2));
  t.equal(printed.code, 0);
  t.equal(printed.stdout, written, 'without --out the same text goes to standard output');
});

t.test('abuse: bad names, listen addresses, TLS files and flag combinations are refused before anything is written', async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'meet.conf');
  const { cert, key } = selfSigned(dir, 'meet.test');
  const other = mkdtempSync(join(dir, 'other-'));
  const { key: otherKey } = selfSigned(other, 'other.test');
  const cases: [string, string[], number, RegExp][] = [
    ['semicolon', ['--server-name', 'a.org;', '--http-only'], 2, /--server-name must be a host name/],
    ['brace', ['--server-name', 'a{.org', '--http-only'], 2, /--server-name/],
    ['newline', ['--server-name', 'a.org\nlisten 81;', '--http-only'], 2, /--server-name must be an ASCII host name/],
    ['spaces', ['--server-name', 'a.org b.org', '--http-only'], 2, /--server-name/],
    ['unicode', ['--server-name', 'münchen.de', '--http-only'], 2, /xn-- form/],
    ['quote', ['--server-name', '"a.org"', '--http-only'], 2, /--server-name/],
    ['no name', ['--http-only'], 64, /--server-name is required/],
    ['listen with syntax', ['--server-name', 'a.org', '--http-only', '--listen', '80; include /etc/passwd'], 2, /--listen must be PORT/],
    ['port 0 listen', ['--server-name', 'a.org', '--http-only', '--listen', '0'], 2, /--listen/],
    ['neither TLS nor --http-only', ['--server-name', 'a.org'], 64, /--tls-cert and --tls-key, or --http-only/],
    ['--tls-cert without --tls-key', ['--server-name', 'meet.test', '--tls-cert', cert], 64, /--tls-key is missing/],
    ['--tls-key without --tls-cert', ['--server-name', 'meet.test', '--tls-key', key], 64, /--tls-cert is missing/],
    ['TLS and --http-only', ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', key, '--http-only'], 64, /--http-only cannot be combined/],
    ['missing certificate', ['--server-name', 'meet.test', '--tls-cert', join(dir, 'nope.pem'), '--tls-key', key], 2, /--tls-cert names a file that does not exist.*ENOENT/],
    ['missing key', ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', join(dir, 'nope.key')], 2, /--tls-key names a file that does not exist/],
    ['certificate is a directory', ['--server-name', 'meet.test', '--tls-cert', dir, '--tls-key', key], 2, /--tls-cert is not a regular file/],
    ['key given as the certificate', ['--server-name', 'meet.test', '--tls-cert', key, '--tls-key', key], 2, /--tls-cert is not a PEM certificate/],
    ['certificate given as the key', ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', cert], 2, /--tls-key is not an unencrypted PEM private key/],
    ['key of another certificate', ['--server-name', 'meet.test', '--tls-cert', cert, '--tls-key', otherKey], 2, /--tls-key is not the private key of the certificate/],
    ['path nginx would split', ['--server-name', 'meet.test', '--tls-cert', `${dir}/a b.pem`, '--tls-key', key], 2, /--tls-cert must be an absolute path without spaces/],
    ['redirect without TLS', ['--server-name', 'a.org', '--http-only', '--redirect-listen', '8080'], 64, /--redirect-listen only applies with TLS/],
    ['--out and --install', ['--server-name', 'a.org', '--http-only', '--install'], 64, /--out and --install exclude each other/],
  ];
  for (const [name, flags, code, message] of cases) {
    const run = await runMeetctl(['nginx', ...addrs, ...flags, '--out', out]);
    t.equal(run.code, code, `${name}: exit ${code}`);
    t.match(run.stderr, message, `${name}: ${run.stderr.trim()}`);
    t.match(run.stderr, /hint: /, `${name}: a hint`);
    t.notMatch(run.stderr, /BEGIN .*PRIVATE KEY|at .*\.js:\d+/, `${name}: no key material, no stack`);
    t.throws(() => statSync(out), `${name}: nothing written`);
  }
  const engineOnPortZero = await runMeetctl(['nginx', '--server-name', 'a.org', '--http-only', '--http-addr', '127.0.0.1:0']);
  t.equal(engineOnPortZero.code, 2);
  t.match(engineOnPortZero.stderr, /SERVICE_HTTP_ADDR has port 0/);
  const wrongHost = await runMeetctl(['nginx', '--server-name', 'meet.example.org', ...addrs, '--tls-cert', cert, '--tls-key', key]);
  t.equal(wrongHost.code, 0, 'a certificate for another name is only a warning (it may be about to be replaced)');
  t.match(wrongHost.stderr, /warning: the certificate .* does not name meet\.example\.org/);
});

t.test('the generated file and the daemon agree on the proxy: a warning when the daemon would not trust nginx', async (t) => {
  const remote = await runMeetctl(['nginx', '--server-name', 'a.org', '--http-only', '--http-addr', '10.1.2.3:3000', '--compat-http-addr', '10.1.2.3:8088']);
  t.equal(remote.code, 0, 'a warning, not a failure');
  t.match(remote.stderr, /warning: the engine listener is not on loopback: nginx will connect from 10\.1\.2\.3, which SERVICE_TRUSTED_PROXIES \(127\.0\.0\.1,::1\) does not cover/);
  t.match(remote.stdout, /nginx connects to them from 10\.1\.2\.3\./);
  t.match(remote.stdout, /upstream meet_engine \{ server 10\.1\.2\.3:3000;/);

  const covered = await runMeetctl(['nginx', '--server-name', 'a.org', '--http-only', '--http-addr', '10.1.2.3:3000'], { SERVICE_TRUSTED_PROXIES: '10.1.2.0/24' });
  t.equal(covered.stderr, '', 'covered by a CIDR block: no warning');
  t.match(covered.stdout, /SERVICE_TRUSTED_PROXIES \(now: 10\.1\.2\.0\/24\)/);

  const none = await runMeetctl(['nginx', '--server-name', 'a.org', '--http-only', ...addrs], { SERVICE_TRUSTED_PROXIES: 'none' });
  t.match(none.stderr, /warning: the engine listener is on loopback: nginx will connect from 127\.0\.0\.1, which SERVICE_TRUSTED_PROXIES \(none\) does not cover/);
});

t.test('an unreadable defaults file or a bad setting is a configuration error', async (t) => {
  const dir = tempDir(t);
  const bad = join(dir, 'bad.toml');
  writeFileSync(bad, '[service]\nhttp_addr = "nope"\n');
  const run = await runMeetctl(['nginx', '--server-name', 'a.org', '--http-only', '--config', bad]);
  t.equal(run.code, 2);
  t.match(run.stderr, /SERVICE_HTTP_ADDR must be host:port/);
});
