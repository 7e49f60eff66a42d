// Issue 29 point 13: doctor reads the site `meetctl nginx` wrote from the env file install wrote,
// and fails when they drift apart (a listener moved) or the site is an older render that logs
// query strings.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { lineOf } from '../../helpers/doctor.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { freePort, freePorts } from '../../helpers/nginx.js';

t.test('doctor: the installed site against the env file, and an older render that logs query strings', async (t) => {
  const w = world(t);
  const [engine, compat] = await freePorts(2);
  const where = ['--http-addr', `127.0.0.1:${engine}`, '--compat-http-addr', `127.0.0.1:${compat}`];
  t.equal((await w.install(['--key', await testServerKey(), '--no-open-rooms', '--yes', ...where])).code, 0);
  const site = join(w.root, 'meet.conf');
  const envFile = join(w.etc, 'meet.env');
  const rendered = await runCli(
    [
      'nginx',
      '--env-file',
      envFile,
      '--http-only',
      '--site-access-log',
      join(w.root, 'meet.access.log'),
      '--out',
      site,
    ],
    w.env,
  );
  t.equal(rendered.code, 0, rendered.stderr);
  const doctor = () =>
    runCli(
      [
        'doctor',
        '--config-dir',
        w.etc,
        '--nginx-file',
        site,
        '--nginx-bin',
        join(w.root, 'no-nginx'),
        '--unit-file',
        join(w.root, 'absent.service'),
      ],
      w.env,
    );

  const fine = await doctor();
  t.match(
    lineOf(fine.stdout, 'nginx upstreams')[0],
    new RegExp(
      `^✓ nginx upstreams: .* proxies to SERVICE_HTTP_ADDR 127\\.0\\.0\\.1:${engine}, COMPAT_HTTP_ADDR 127\\.0\\.0\\.1:${compat}$`,
    ),
  );
  t.match(lineOf(fine.stdout, 'nginx access log')[0], /^✓ nginx access log: .* logs paths without query strings$/);

  // The engine moved in the env file; the site was not rendered again.
  const moved = await freePort();
  writeFileSync(
    envFile,
    readFileSync(envFile, 'utf8').replace(
      `SERVICE_HTTP_ADDR=127.0.0.1:${engine}`,
      `SERVICE_HTTP_ADDR=127.0.0.1:${moved}`,
    ),
  );
  const drifted = await doctor();
  t.equal(drifted.code, 1);
  const [line, hint] = lineOf(drifted.stdout, 'nginx upstreams');
  t.match(
    line,
    new RegExp(
      `^✗ nginx upstreams: .* proxies to 127\\.0\\.0\\.1:${engine} \\(upstream meet_engine\\), where the service does not listen and never proxies to SERVICE_HTTP_ADDR 127\\.0\\.0\\.1:${moved}`,
    ),
  );
  t.match(hint, /^ {4}hint: regenerate the site from the env file: meetctl nginx --install --force/);

  // What the template rendered before meet_noquery: no access_log, so nginx's combined format (query strings included).
  const older = readFileSync(site, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*(access_log|log_format)\s/.test(l))
    .join('\n');
  writeFileSync(site, older);
  const leaky = await doctor();
  const [logLine, logHint] = lineOf(leaky.stdout, 'nginx access log');
  t.match(
    logLine,
    /^✗ nginx access log: .*server block has no access_log, so nginx's default \(combined, with the query string\) applies/,
  );
  t.match(logHint, /meetctl nginx --install --force/);
});
