// Issue 13, point 2: `meetctl nginx --install` against a test-owned nginx (Debian layout in its
// own prefix): nginx -t before reload, reload only when it passed, the old file kept when not.
import { existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { compatDaemonFor, fetchAnswer, ConfapiClient } from '../../helpers/compat.js';
import { runCli } from '../../helpers/cli.js';
import { runMeetctl } from '../../helpers/daemon.js';
import { freePort, nginxBin, nginxPrefixFor } from '../../helpers/nginx.js';
import { until } from '../../helpers/net.js';

const secret = 'compat-secret-of-the-nginx-install-test';

// nginx and a compat daemon start here; on a loaded two-core machine the file needs more than the default.
t.setTimeout(300_000);

t.test('--install: test, then reload; a failed test leaves the old file and nginx as they were', async (t) => {
  const d = await compatDaemonFor(t, { COMPAT_API_SHARED_SECRET: secret });
  const nginx = nginxPrefixFor(t, { debian: true });
  const port = await freePort();
  const link = join(nginx.prefix, 'sites-enabled', 'meet.conf');
  const base = [
    'nginx',
    '--server-name',
    'meet.test',
    '--http-only',
    '--listen',
    `127.0.0.1:${port}`,
    '--http-addr',
    `127.0.0.1:${new URL(d.url).port}`,
    '--compat-http-addr',
    `127.0.0.1:${new URL(d.compatUrl).port}`,
    '--site-access-log',
    nginx.accessLog,
    '--no-legacy-api-path',
    '--install',
    ...nginx.siteArgs,
    '--nginx-bin',
    nginxBin,
  ];
  const legacy = new ConfapiClient(`http://127.0.0.1:${port}`, secret, 'sha1', 'plus', '/bigbluebutton/api');

  // nginx is not running yet: the test passes, the file stays, the reload fails (exit 69).
  const first = await runCli(base);
  t.equal(first.code, 69, first.stderr);
  t.match(first.stderr, /✓ testing the nginx configuration \(nginx -t\)/, 'the test step is shown');
  t.match(first.stderr, /✗ reloading nginx/, 'and the failed reload');
  t.match(first.stderr, /nginx -t passed and .* is in place, but nginx -s reload failed/);
  t.match(first.stderr, /hint: is nginx running\?/);
  t.ok(lstatSync(link).isSymbolicLink() && readlinkSync(link) === nginx.site, 'linked into sites-enabled');
  const plainSite = readFileSync(nginx.site, 'utf8');
  t.notMatch(plainSite, /bigbluebutton/);

  await nginx.start(port);
  const before = await fetchAnswer(legacy.url('getMeetings'));
  t.equal(before.status, 404, "with --no-legacy-api-path the old path is the engine's 404");

  const again = await runCli(base);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, /unchanged; nginx not reloaded/);
  t.notMatch(again.stderr, /nginx -t/, 'nothing to test for an unchanged file');

  const refused = await runCli([...base, '--legacy-api-path']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /exists and differs[\s\S]*hint: .*--force/);
  t.equal(readFileSync(nginx.site, 'utf8'), plainSite, 'untouched without --force');

  const forced = await runCli([...base, '--legacy-api-path', '--force']);
  t.equal(forced.code, 0, forced.stderr);
  t.match(forced.stderr, /✓ testing the nginx configuration[\s\S]*✓ reloading nginx \(nginx -s reload\)/);
  t.match(forced.stdout, /^installed .*meet\.conf; nginx reloaded$/m);
  const legacySite = readFileSync(nginx.site, 'utf8');
  t.match(legacySite, /location \^~ \/bigbluebutton\/ /);
  // The reload's old worker closes its connections as it leaves: a request on one of them fails, so it is asked again.
  let after = '';
  await until(
    'the new location after the reload',
    async () => {
      const answer = await fetchAnswer(legacy.url('getMeetings')).catch((err: Error) => String(err));
      after = typeof answer === 'string' ? answer : answer.text;
      return typeof answer !== 'string' && answer.xml?.returncode === 'SUCCESS';
    },
    10_000,
    50,
  ).catch(() => undefined);
  t.match(after, /<returncode>SUCCESS<\/returncode>/, `after the reload the new location answers: ${after}`);

  // Something else in nginx's configuration is broken: the new site is tested, refused, taken back.
  writeFileSync(join(nginx.prefix, 'extra', 'broken.conf'), 'this_is_not_a_directive on;\n');
  const broken = await runCli([...base, '--force']);
  t.equal(broken.code, 69, 'environment: nginx refused the configuration');
  t.match(broken.stderr, /✗ testing the nginx configuration/);
  t.match(broken.stderr, /unknown directive "this_is_not_a_directive"/, "nginx's own error text");
  t.match(broken.stderr, /restored to its previous content, nginx not reloaded/);
  t.equal(readFileSync(nginx.site, 'utf8'), legacySite, 'the old file is back, byte for byte');
  t.equal(readlinkSync(link), nginx.site, 'the link is still there');
  t.equal(
    (await fetchAnswer(legacy.url('getMeetings'))).xml?.returncode,
    'SUCCESS',
    'the running nginx still serves the old site',
  );

  // A first install that fails leaves nothing behind.
  const otherSite = join(nginx.prefix, 'sites-available', 'other.conf');
  const fresh = await runCli([...base.map((arg) => (arg === nginx.site ? otherSite : arg))]);
  t.equal(fresh.code, 69);
  t.match(fresh.stderr, /other\.conf removed again/);
  t.notOk(existsSync(otherSite), 'no site file');
  t.notOk(existsSync(join(nginx.prefix, 'sites-enabled', 'other.conf')), 'no link');
});

t.test('--install: a link that is not ours, a missing nginx, two installs at once', async (t) => {
  const nginx = nginxPrefixFor(t, { debian: true });
  const link = join(nginx.prefix, 'sites-enabled', 'meet.conf');
  const base = [
    'nginx',
    '--server-name',
    'meet.test',
    '--http-only',
    '--listen',
    `127.0.0.1:${await freePort()}`,
    '--http-addr',
    '127.0.0.1:3000',
    '--compat-http-addr',
    '127.0.0.1:8088',
    '--site-access-log',
    nginx.accessLog,
    '--no-legacy-api-path',
    '--install',
    ...nginx.siteArgs,
  ];
  writeFileSync(link, "# the operator's own file\n");
  const taken = await runCli([...base, '--nginx-bin', nginxBin]);
  t.equal(taken.code, 1);
  t.match(taken.stderr, /meet\.conf exists and is not a link to/);
  t.equal(readFileSync(link, 'utf8'), "# the operator's own file\n");
  t.notOk(existsSync(nginx.site), 'nothing written');

  const missing = await runCli([...base, '--nginx-bin', join(nginx.prefix, 'no-nginx-here'), '--force']);
  t.equal(missing.code, 69);
  t.match(missing.stderr, /cannot run .*no-nginx-here: ENOENT/);
  t.match(missing.stderr, /hint: install nginx/);
  t.equal(readFileSync(link, 'utf8'), "# the operator's own file\n", "the operator's file is put back");
  t.notOk(existsSync(nginx.site), 'and the site file removed again');

  // Two installs at once (different sites), as two processes: one after the other under the lock, each tested.
  const [a, b] = await Promise.all([
    runMeetctl([...base, '--nginx-bin', nginxBin, '--force']),
    runMeetctl([...base, '--nginx-bin', nginxBin, '--force', '--legacy-api-path']),
  ]);
  t.match(a.stderr, /✓ testing the nginx configuration/, a.stderr);
  t.match(b.stderr, /✓ testing the nginx configuration/, b.stderr);
  const final = readFileSync(nginx.site, 'utf8');
  t.ok(final.includes('meet_rooms'), 'the site file is one whole render, not a mix');
  t.ok(nginx.test().ok, 'and nginx accepts it');
  t.notOk(existsSync(`${nginx.site}.lock`), 'the lock is released');
});
