import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { doctorJson, expectFailure, healthy, lineOf, siteText, unitText, type Report } from '../../helpers/doctor.js';

t.test('nginx: the limit lines missing, a commented line, a broken site, no site', async (t) => {
  const s = await healthy(t);
  const site = siteText(s.enginePort, s.compatPort);
  writeFileSync(
    s.nginxFile,
    site
      .replace(/^\s*limit_req zone.*\n/m, '')
      .replace(/^\s*limit_req_status 429;/m, '        # limit_req_status 429;'),
  );
  const result = await expectFailure(
    t,
    s,
    'nginx limits and forwarding',
    /lacks limit_req zone=… burst=100 nodelay; and limit_req_status 429;/,
    /meetctl nginx --install --force/,
  );
  t.match(
    lineOf(result.stdout, 'nginx -t')[0],
    /^✓ nginx -t/,
    'the lines are a check of their own: nginx -t still passes',
  );

  writeFileSync(s.nginxFile, site.replace('proxy_set_header X-Forwarded-Proto $scheme;', ''));
  await expectFailure(
    t,
    s,
    'nginx limits and forwarding',
    /lacks proxy_set_header X-Forwarded-Proto \$scheme;$/,
    /add the line/,
  );

  writeFileSync(s.nginxFile, site.replace('limit_req_status 429;', 'limit_req_status 429;\n        frobnicate on;'));
  await expectFailure(t, s, 'nginx -t', /unknown directive "frobnicate" in .*meet\.conf:8/, /fix the line nginx names/);

  const bogus = await runCli(s.args('--json', '--nginx-bin', join(s.root, 'no-nginx')));
  t.match(
    (JSON.parse(bogus.stdout) as Report).checks.find((c) => c.id === 'nginx-test'),
    { status: 'skip', detail: /nginx not found at/ },
  );

  rmSync(s.nginxFile);
  await expectFailure(t, s, 'nginx site', /meet\.conf not found/, /meetctl nginx --install/);
});

t.test('a broken systemd unit fails with what systemd-analyze says', async (t) => {
  const s = await healthy(t);
  writeFileSync(
    s.unitFile,
    unitText.replace('Type=simple', 'Type=bogus').replace(`ExecStart=${process.execPath}`, 'ExecStart=relative/node'),
  );
  await expectFailure(
    t,
    s,
    'systemd unit',
    /meet\.service:\d+: .*(Failed to parse service type|Neither a valid executable name nor an absolute path)/,
    /fix the line systemd names/,
  );

  const missing = await doctorJson(t, s, ['--unit-file', join(s.root, 'nope.service')]);
  t.match(missing.byId.get('systemd-unit'), { status: 'skip', detail: /does not exist/ });
  const noAnalyze = await doctorJson(t, s, [], { MEET_SYSTEMD_ANALYZE_BIN: join(s.root, 'no-such-program') });
  t.match(noAnalyze.byId.get('systemd-unit'), { status: 'skip', detail: /systemd-analyze is not installed/ });
});

// Issue 28, point 7: a listener on a public address beside an installed nginx site lets clients around nginx.
t.test(
  'listeners: loopback behind nginx is fine; a public listener is a warning while a site is installed',
  async (t) => {
    const s = await healthy(t, { light: true });
    const fine = await doctorJson(t, s);
    t.match(fine.byId.get('listeners'), {
      status: 'ok',
      detail: /SERVICE_HTTP_ADDR 127\.0\.0\.1:\d+, COMPAT_HTTP_ADDR 127\.0\.0\.1:\d+: loopback/,
    });

    s.env({ SERVICE_HTTP_ADDR: `0.0.0.0:${s.enginePort}`, COMPAT_HTTP_ADDR: `[::]:${s.compatPort}` });
    const open = await doctorJson(t, s);
    t.equal(open.result.code, 0, 'a warning, not a failure');
    t.match(open.byId.get('listeners'), {
      status: 'warn',
      detail: new RegExp(
        `SERVICE_HTTP_ADDR 0\\.0\\.0\\.0:${s.enginePort} and COMPAT_HTTP_ADDR \\[::\\]:${s.compatPort} are reachable from other machines while .*meet\\.conf is installed`,
      ),
      hint: new RegExp(
        `SERVICE_HTTP_ADDR=127\\.0\\.0\\.1:${s.enginePort} and COMPAT_HTTP_ADDR=127\\.0\\.0\\.1:${s.compatPort}`,
      ),
    });
    const text = await runCli(s.args());
    t.match(
      lineOf(text.stdout, 'Listeners behind nginx')[0],
      /^! Listeners behind nginx: SERVICE_HTTP_ADDR 0\.0\.0\.0/,
      'shown as a warning',
    );

    s.env({ SERVICE_HTTP_ADDR: `192.0.2.10:${s.enginePort}` });
    t.match(
      (await doctorJson(t, s)).byId.get('listeners'),
      { status: 'warn', detail: /^SERVICE_HTTP_ADDR 192\.0\.2\.10:\d+ is reachable/ },
      'an interface address too',
    );

    rmSync(s.nginxFile);
    t.match(
      (await doctorJson(t, s)).byId.get('listeners'),
      { status: 'skip', detail: /no nginx site file/ },
      'without a site, the daemon may face clients itself',
    );
  },
);
