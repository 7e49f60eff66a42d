import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { doctorJson, expectFailure, healthy, lineOf, siteText, unitText, type Report } from '../helpers/doctor.js';

t.test('nginx: the limit lines missing, a commented line, a broken site, no site', async (t) => {
  const s = await healthy(t);
  const site = siteText(s.enginePort);
  writeFileSync(s.nginxFile, site.replace(/^\s*limit_req zone.*\n/m, '').replace(/^\s*limit_req_status 429;/m, '        # limit_req_status 429;'));
  const result = await expectFailure(
    t,
    s,
    'nginx limits and forwarding',
    /lacks limit_req zone=… burst=100 nodelay; and limit_req_status 429;/,
    /meetctl nginx --install --force/,
  );
  t.match(lineOf(result.stdout, 'nginx -t')[0], /^✓ nginx -t/, 'the lines are a check of their own: nginx -t still passes');

  writeFileSync(s.nginxFile, site.replace('proxy_set_header X-Forwarded-Proto $scheme;', ''));
  await expectFailure(t, s, 'nginx limits and forwarding', /lacks proxy_set_header X-Forwarded-Proto \$scheme;$/, /add the line/);

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
  writeFileSync(s.unitFile, unitText.replace('Type=simple', 'Type=bogus').replace(`ExecStart=${process.execPath}`, 'ExecStart=relative/node'));
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
