// Issue 29 point 13: doctor's blind spots, each check against real files (sites rendered by
// meetctl's own template, certificates made by openssl, a real data directory).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { listenAddress } from '../../../src/config/parsers.js';
import { certificateCheck } from '../../../src/ops/doctor/certificate.js';
import type { DoctorCheck, DoctorContext } from '../../../src/ops/doctor/check.js';
import { clockCheck, clockEvidence, judgeClock } from '../../../src/ops/doctor/clock.js';
import { diskSpaceCheck } from '../../../src/ops/doctor/disk-space.js';
import { janusCheck } from '../../../src/ops/doctor/janus.js';
import { nginxAccessLogCheck } from '../../../src/ops/doctor/nginx-access-log.js';
import { nginxUpstreamsCheck } from '../../../src/ops/doctor/nginx-upstreams.js';
import { compatNodesOf, parseNodes } from '../../../src/ops/nginx-nodes.js';
import { loadTemplate, renderNginxSite, type NginxSite } from '../../../src/ops/nginx-config.js';
import type { Tap } from '../../helpers/api.js';
import { apiSecret } from '../../helpers/doctor.js';
import { recordServerKey, testAuthority, testServerKey } from '../../helpers/licence.js';
import { certificateBetween, selfSigned } from '../../helpers/nginx.js';

const dayMs = 86_400_000;

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-blind-spots-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function ctxOf(env: Record<string, string>, over: Partial<DoctorContext> = {}): DoctorContext {
  return {
    env,
    config: loadConfig({ env }),
    configError: null,
    configFile: null,
    configDir: '',
    envFile: { path: '', status: 'absent', ignoredLines: [], mode: null },
    nginxFile: '/nonexistent/meet.conf',
    unitFile: '/nonexistent/meet.service',
    nginxBin: null,
    serviceUser: null,
    nodeVersion: process.versions.node,
    now: new Date(),
    ...over,
  };
}

const run = (c: DoctorCheck, ctx: DoctorContext) => c.run(ctx);

function site(over: Partial<NginxSite> = {}): string {
  return renderNginxSite(loadTemplate(), {
    serverName: 'meet.example.org',
    engineAddr: listenAddress('127.0.0.1:3000'),
    compatAddr: listenAddress('127.0.0.1:8088'),
    trustedProxies: ['127.0.0.1'],
    tls: null,
    listen: null,
    redirectListen: null,
    legacyApiPath: false,
    accessLog: '/var/log/nginx/meet.access.log',
    ...over,
  });
}

const compatOn = { COMPAT_API_SHARED_SECRET: apiSecret };

t.test('nginx upstreams against the listen addresses of the env file', async (t) => {
  const dir = tempDir(t);
  const nginxFile = join(dir, 'meet.conf');
  writeFileSync(nginxFile, site());
  const listening = (engine: string, compat = '127.0.0.1:8088', extra: Record<string, string> = compatOn) =>
    ctxOf({ SERVICE_HTTP_ADDR: engine, COMPAT_HTTP_ADDR: compat, ...extra }, { nginxFile });

  t.match(await run(nginxUpstreamsCheck, listening('127.0.0.1:3000')), {
    status: 'ok',
    detail: /proxies to SERVICE_HTTP_ADDR 127\.0\.0\.1:3000, COMPAT_HTTP_ADDR 127\.0\.0\.1:8088/,
  });
  t.match(
    await run(nginxUpstreamsCheck, listening('0.0.0.0:3000')),
    { status: 'ok' },
    'a wildcard listener answers on loopback',
  );

  const moved = await run(nginxUpstreamsCheck, listening('127.0.0.1:3001'));
  t.equal(moved.status, 'fail', 'the env file moved the engine after the site was written');
  t.match(moved.detail, /proxies to 127\.0\.0\.1:3000 \(upstream meet_engine\), where the service does not listen/);
  t.match(moved.detail, /never proxies to SERVICE_HTTP_ADDR 127\.0\.0\.1:3001/);
  t.match(moved.hint, /meetctl nginx --install --force/);

  const compatMoved = await run(nginxUpstreamsCheck, listening('127.0.0.1:3000', '127.0.0.1:9099'));
  t.match(compatMoved, {
    status: 'fail',
    detail: /127\.0\.0\.1:8088 \(upstream meet_compat\).*never proxies to COMPAT_HTTP_ADDR 127\.0\.0\.1:9099/,
  });

  t.match(
    await run(nginxUpstreamsCheck, listening('127.0.0.1:3000', '127.0.0.1:8088', {})),
    { status: 'ok', detail: /proxies to SERVICE_HTTP_ADDR 127\.0\.0\.1:3000$/ },
    'the compat upstream of an engine-only install is not a fault',
  );
  t.match(await run(nginxUpstreamsCheck, ctxOf({}, { nginxFile: join(dir, 'absent.conf') })), { status: 'skip' });

  // Issue 35: a cluster's site (meetctl nginx --nodes) names the other nodes too; this node among them is enough.
  const nodes = parseNodes('127.0.0.1:3000,10.0.0.12:3000', '--nodes');
  writeFileSync(nginxFile, site({ cluster: { nodes, compatNodes: compatNodesOf(nodes, 8088, null) } }));
  t.match(await run(nginxUpstreamsCheck, listening('127.0.0.1:3000')), {
    status: 'ok',
    detail:
      /proxies to SERVICE_HTTP_ADDR 127\.0\.0\.1:3000, COMPAT_HTTP_ADDR 127\.0\.0\.1:8088 among the nodes of a cluster$/,
  });
  t.match(await run(nginxUpstreamsCheck, listening('127.0.0.1:3001')), {
    status: 'fail',
    detail: /never proxies to SERVICE_HTTP_ADDR 127\.0\.0\.1:3001/,
  });
});

t.test('an nginx site that logs query strings (renders older than meet_noquery)', async (t) => {
  const dir = tempDir(t);
  const nginxFile = join(dir, 'meet.conf');
  const ctx = ctxOf({}, { nginxFile });
  writeFileSync(nginxFile, site());
  t.match(await run(nginxAccessLogCheck, ctx), { status: 'ok', detail: /without query strings/ });
  writeFileSync(nginxFile, site({ accessLog: null }));
  t.match(await run(nginxAccessLogCheck, ctx), { status: 'ok' }, 'access_log off logs nothing');

  // What the template rendered before log_format meet_noquery: no access_log line at all.
  const older = site()
    .split('\n')
    .filter((line) => !/^\s*(access_log|log_format)\s/.test(line))
    .join('\n');
  writeFileSync(nginxFile, older);
  const old = await run(nginxAccessLogCheck, ctx);
  t.equal(old.status, 'fail');
  t.match(old.detail, /server block has no access_log, so nginx's default \(combined, with the query string\) applies/);
  t.match(old.detail, /session tokens, app JWTs and meeting-API checksums/);
  t.match(old.hint, /meetctl nginx --install --force/);

  writeFileSync(nginxFile, site().replace(/access_log (\S+) meet_noquery;/g, 'access_log $1 combined;'));
  t.match(await run(nginxAccessLogCheck, ctx), { status: 'fail', detail: /uses combined, which logs \$request/ });
  writeFileSync(nginxFile, site().replace('"$request_method $uri $server_protocol"', '"$request"'));
  t.match(
    await run(nginxAccessLogCheck, ctx),
    { status: 'fail', detail: /uses meet_noquery, which logs \$request/ },
    'a format edited back to $request',
  );
});

t.test('the TLS certificate of the installed site: valid, under 14 days, expired, not yet valid', async (t) => {
  const dir = tempDir(t);
  const nginxFile = join(dir, 'meet.conf');
  const now = new Date();
  const long = certificateBetween(
    dir,
    'meet.example.org',
    new Date(now.getTime() - dayMs),
    new Date(now.getTime() + 90 * dayMs),
  );
  writeFileSync(nginxFile, site({ tls: long }));
  t.match(await run(certificateCheck, ctxOf({}, { nginxFile })), {
    status: 'ok',
    detail: /valid until .* \(89 days left\)/,
  });

  const short = selfSigned(dir, 'meet.example.org');
  writeFileSync(nginxFile, site({ tls: short }));
  const soon = await run(certificateCheck, ctxOf({}, { nginxFile }));
  t.match(soon, { status: 'warn', detail: /\(1 day left\)/, hint: /certbot renew/ });

  const expired = certificateBetween(
    dir,
    'meet.example.org',
    new Date('2024-01-01T00:00:00Z'),
    new Date('2025-01-01T00:00:00Z'),
  );
  writeFileSync(nginxFile, site({ tls: expired }));
  const gone = await run(certificateCheck, ctxOf({}, { nginxFile }));
  t.match(gone, {
    status: 'fail',
    detail: new RegExp(`${expired.cert.replace(/[.]/g, '\\.')} expired on 2025-01-01T00:00:00\\.000Z`),
    hint: /renew it/,
  });

  const future = certificateBetween(
    dir,
    'meet.example.org',
    new Date(now.getTime() + 10 * dayMs),
    new Date(now.getTime() + 100 * dayMs),
  );
  writeFileSync(nginxFile, site({ tls: future }));
  t.match(await run(certificateCheck, ctxOf({}, { nginxFile })), {
    status: 'fail',
    detail: /is valid only from/,
    hint: /check the clock/,
  });

  writeFileSync(nginxFile, site());
  t.match(await run(certificateCheck, ctxOf({}, { nginxFile })), {
    status: 'skip',
    detail: /names no ssl_certificate/,
  });
});

t.test('free disk space of the data directory: the floors decide, the real filesystem is measured', async (t) => {
  const dataDir = tempDir(t);
  const env = { SERVICE_DATA_DIR: dataDir };
  t.match(await run(diskSpaceCheck, ctxOf(env)), { status: 'ok', detail: /GiB free on the filesystem of / });
  const huge = 2 ** 60;
  const low = await run(diskSpaceCheck, ctxOf(env, { freeSpace: { warnBytes: huge, failBytes: 0 } }));
  t.match(low, {
    status: 'warn',
    detail: /free on the filesystem of .*, under 1073741824\.0 GiB/,
    hint: /move SERVICE_DATA_DIR to a larger disk/,
  });
  const full = await run(diskSpaceCheck, ctxOf(env, { freeSpace: { warnBytes: huge, failBytes: huge } }));
  t.match(full, { status: 'fail', detail: /the database cannot grow or checkpoint/ });
  const later = join(dataDir, 'not', 'yet');
  t.match(
    await run(diskSpaceCheck, ctxOf({ SERVICE_DATA_DIR: later })),
    { status: 'ok', detail: new RegExp(`\\(where ${later} will be\\)`) },
    'before install made it: the filesystem it will be on',
  );
});

t.test('Janus when SERVICE_MEDIA wants it', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'janus');
  const janus = await run(janusCheck, ctxOf({ SERVICE_MEDIA: 'janus', SERVICE_JANUS_BIN: missing }));
  t.match(janus, {
    status: 'fail',
    detail:
      /SERVICE_MEDIA=janus but .*janus \(SERVICE_JANUS_BIN\) is not an executable program: the daemon will not start/,
  });
  t.match(janus.hint, /apt install janus/);
  t.match(await run(janusCheck, ctxOf({ SERVICE_MEDIA: 'auto', SERVICE_JANUS_BIN: missing })), {
    status: 'warn',
    detail: /meetings will use the browser-to-browser mesh/,
  });
  t.match(await run(janusCheck, ctxOf({ SERVICE_MEDIA: 'mesh', SERVICE_JANUS_BIN: missing })), { status: 'skip' });
  const pool = {
    SERVICE_MEDIA: 'janus',
    SERVICE_JANUS_BIN: missing,
    SERVICE_JANUS_URLS: 'http://10.0.0.5:8088/janus,http://10.0.0.6:8088/janus',
    SERVICE_JANUS_API_SECRET: 'doctor-api-secret-0123',
    SERVICE_JANUS_ROOM_ADMIN_KEY: 'doctor-admin-key-01234',
  };
  t.match(
    await run(janusCheck, ctxOf(pool)),
    { status: 'ok', detail: /2 external Janus servers in SERVICE_JANUS_URLS/ },
    'a pool of external servers needs no program here',
  );
  writeFileSync(missing, '#!/bin/sh\n');
  t.match(
    await run(janusCheck, ctxOf({ SERVICE_MEDIA: 'janus', SERVICE_JANUS_BIN: missing })),
    { status: 'fail' },
    'a file that is not executable',
  );
  chmodSync(missing, 0o755);
  t.match(await run(janusCheck, ctxOf({ SERVICE_MEDIA: 'janus', SERVICE_JANUS_BIN: missing })), {
    status: 'ok',
    detail: /is installed/,
  });
});

t.test('the clock against offline evidence: the licence issued, the data written, the hardware clock', async (t) => {
  const dataDir = tempDir(t);
  const now = new Date();
  const env = { SERVICE_DATA_DIR: dataDir, SERVICE_LICENSE_PUBLIC_KEY: testAuthority().publicKeyPem };
  t.match(await run(clockCheck, ctxOf(env)), { status: 'ok' });

  // Installed two years ago, then the machine's clock went back (a flat RTC battery).
  recordServerKey(dataDir, await testServerKey({ days: 365 }, new Date(now.getTime() - 2 * 365 * dayMs)));
  const twoYearsAgo = new Date(now.getTime() - 3 * 365 * dayMs);
  const behind = await run(clockCheck, ctxOf(env, { now: twoYearsAgo }));
  t.match(behind, {
    status: 'fail',
    detail: /the clock reads .*, but .* at .*: the clock is behind/,
    hint: /timedatectl set-ntp true/,
  });

  // Two years ahead: the licence reads as expired; the check says the clock may be why.
  const ahead = await run(clockCheck, ctxOf(env, { now }));
  t.match(ahead, {
    status: 'warn',
    detail:
      /after the compat licence's end .*: if that is not today, the clock is ahead and the licence only looks expired/,
  });

  const rtc = join(dataDir, 'rtc');
  writeFileSync(rtc, `${Math.floor((now.getTime() - 2 * 365 * dayMs) / 1000)}\n`);
  const evidence = clockEvidence(ctxOf(env), rtc);
  t.match(judgeClock(now, evidence), { status: 'fail', detail: /the hardware clock .*: one of them is wrong/ });
  t.match(
    judgeClock(now, { past: [], rtc: new Date(now.getTime() + 60_000), licenceExpires: null }),
    { status: 'ok' },
    'a minute off is NTP business',
  );
  t.match(
    judgeClock(new Date('2020-01-01T00:00:00Z'), {
      past: [{ what: 'this package was built', at: now }],
      rtc: null,
      licenceExpires: null,
    }),
    {
      status: 'fail',
      detail: /but this package was built at/,
    },
  );
});
