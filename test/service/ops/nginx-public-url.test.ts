// Issue 29, point 1: `meetctl nginx` reads the env file install wrote and names the site after
// SERVICE_PUBLIC_URL's host unless --server-name says otherwise.
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';

t.test('the site is named after the public address install recorded; --server-name still wins', async (t) => {
  const w = world(t);
  const installed = await w.install([
    '--key',
    await testServerKey(),
    '--no-open-rooms',
    '--yes',
    '--public-url',
    'https://meet.example.org',
    '--http-addr',
    '127.0.0.1:3900',
  ]);
  t.equal(installed.code, 0, installed.stderr);
  const site = await runCli(['nginx', '--http-only'], { SERVICE_CONFIG_DIR: w.etc });
  t.equal(site.code, 0, site.stderr);
  t.match(site.stdout, /^\s*server_name meet\.example\.org;$/m, 'server_name from SERVICE_PUBLIC_URL');
  t.match(site.stdout, /upstream meet_engine \{ server 127\.0\.0\.1:3900;/, 'proxied to the listener install wrote');
  const named = await runCli(
    ['nginx', '--http-only', '--server-name', 'other.example.org', '--env-file', `${w.etc}/meet.env`],
    {},
  );
  t.equal(named.code, 0, named.stderr);
  t.match(named.stdout, /^\s*server_name other\.example\.org;$/m, '--server-name wins');
});

t.test('without a public address or --server-name: exit 64 naming both ways', async (t) => {
  const w = world(t);
  const site = await runCli(['nginx', '--http-only'], { SERVICE_CONFIG_DIR: w.etc });
  t.equal(site.code, 64, site.stderr);
  t.match(site.stderr, /--server-name is required when SERVICE_PUBLIC_URL is not set/);
  t.match(site.stderr, /--public-url/);
});
