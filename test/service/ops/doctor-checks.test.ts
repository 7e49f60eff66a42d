import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import type { DoctorContext } from '../../../src/ops/doctor/check.js';
import { check } from '../../../src/ops/doctor/check.js';
import { probeWritable } from '../../../src/ops/doctor/data-dir.js';
import { readEnvFile } from '../../../src/ops/doctor/env-file.js';
import { judgeSiteLines, siteStatements, statementsOf } from '../../../src/ops/doctor/nginx.js';
import { judgeNodeVersion } from '../../../src/ops/doctor/node-version.js';
import { judgePort, tryListen, whoHolds } from '../../../src/ops/doctor/ports.js';
import { oneLine, runChecks } from '../../../src/ops/doctor/runner.js';

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-doctor-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function listening(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

t.test('Node version against the engines field and the end of life of 20', async (t) => {
  const now = new Date('2026-11-24T00:00:00Z');
  const before = new Date('2026-01-01T00:00:00Z');
  t.equal(judgeNodeVersion('22.12.0', now).status, 'ok');
  t.equal(judgeNodeVersion('v24.1.0', now).status, 'ok');
  t.equal(judgeNodeVersion('20.19.0', before).status, 'ok', '20.19 before its end of life');
  const eol = judgeNodeVersion('20.20.2', now);
  t.equal(eol.status, 'warn', '20 after 2026-04-30 is a warning, not a failure');
  t.match(eol.detail, /end of life on 2026-04-30/);
  t.match(eol.hint, /22 or 24/);
  for (const version of ['20.18.1', '18.20.0', '21.7.0', 'v16.0.0']) {
    const judged = judgeNodeVersion(version, now);
    t.equal(judged.status, 'fail', `${version} is refused`);
    t.match(judged.hint, /install Node 22 or 24/);
  }
  t.equal(judgeNodeVersion('23.1.0', now).status, 'warn', 'an odd line works but is not LTS');
  t.equal(judgeNodeVersion('garbage', now).status, 'fail');
});

t.test('a check that throws is a failure with its message; the others still run', async (t) => {
  const boom = check('boom', 'Boom', () => {
    throw new Error('disk on fire\n\u001b[31mred');
  });
  const fine = check('fine', 'Fine', () => ({ status: 'ok', detail: 'all good' }));
  const results = await runChecks([boom, fine], {} as DoctorContext);
  t.equal(results.length, 2);
  t.equal(results[0]!.status, 'fail');
  t.match(results[0]!.detail, /the check itself failed: disk on fire; \?\[31mred/, 'one line, escapes neutralised');
  t.equal(results[1]!.status, 'ok');
  t.equal(oneLine('a\r\nb\n\n c\u202e'), 'a; b; c?');
});

t.test('nginx statements: comments and quotes, includes, the required lines', async (t) => {
  t.same(
    statementsOf(
      'limit_req_status 429; # limit_req_status 500;\n  proxy_set_header  X-Forwarded-For\n $proxy_add_x_forwarded_for;',
    ),
    ['limit_req_status 429', 'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for'],
  );
  t.same(statementsOf('add_header X "a # not a comment";'), ['add_header X "a # not a comment"']);

  const all = [
    'limit_req_zone $binary_remote_addr zone=meet_rooms:10m rate=10r/s',
    'limit_req zone=meet_rooms burst=100 nodelay',
    'limit_req_status 429',
    'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for',
    'proxy_set_header x-forwarded-proto $scheme',
  ];
  t.same(judgeSiteLines(all), { missing: [], differing: [] });
  const none = judgeSiteLines(['server_name x']);
  t.equal(none.missing.length, 5, 'each missing line is named');
  t.match(none.missing.join('\n'), /limit_req_zone \$binary_remote_addr.*rate=10r\/s/);
  const tuned = judgeSiteLines(all.map((s) => s.replace('burst=100', 'burst=20')));
  t.same(tuned.missing, []);
  t.match(tuned.differing[0], /burst=20 .*recommended: limit_req zone=… burst=100 nodelay/);

  const dir = tempDir(t);
  writeFileSync(join(dir, 'proxy.conf'), 'proxy_set_header X-Forwarded-Proto $scheme;\n');
  writeFileSync(
    join(dir, 'site.conf'),
    `server { include ${join(dir, 'proxy.conf')}; include ${join(dir, 'nope.conf')}; include ${dir}/*.conf; }\n`,
  );
  t.ok(
    siteStatements(join(dir, 'site.conf')).includes('proxy_set_header X-Forwarded-Proto $scheme'),
    'the lines of an included snippet count',
  );
});

t.test('the data-directory probe leaves nothing behind and names the failing step', async (t) => {
  const dir = tempDir(t);
  t.equal(probeWritable(dir), null);
  t.same(readdirSync(dir), [], 'no probe file left');
  const missing = probeWritable(join(dir, 'nope'));
  t.same(missing, { step: 'create a file', code: 'ENOENT' });
  if (process.getuid?.() !== 0) {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o500 });
    t.same(probeWritable(locked), { step: 'create a file', code: 'EACCES' });
    chmodSync(locked, 0o700);
  }
});

t.test('ports: free, held by a foreign program, held by a server answering our /healthz', async (t) => {
  const probe = createServer();
  const freePort = await listening(probe);
  await new Promise((r) => probe.close(r));
  t.equal(await tryListen({ host: '127.0.0.1', port: freePort }), null);

  const silent = createServer((socket) => socket.destroy());
  const silentPort = await listening(silent);
  t.teardown(() => silent.close());
  t.equal(await tryListen({ host: '127.0.0.1', port: silentPort }), 'EADDRINUSE');
  const foreign = await judgePort('SERVICE_HTTP_ADDR', { host: '127.0.0.1', port: silentPort });
  t.equal(foreign.status, 'fail');
  t.match(foreign.detail, new RegExp(`port ${silentPort} \\(SERVICE_HTTP_ADDR .*\\) is in use by another program`));

  // A program that accepts and never answers is not taken for ours, and doctor does not hang.
  const mute = createServer(() => {});
  const mutePort = await listening(mute);
  t.teardown(() => mute.close());
  const started = Date.now();
  t.same(await whoHolds({ host: '127.0.0.1', port: mutePort }, 300), {
    ours: false,
    what: 'another program (GET /healthz: no answer)',
  });
  t.ok(Date.now() - started < 2000);

  const impostor = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","service":"something-else"}'),
  );
  const impostorPort = await listening(impostor);
  t.teardown(() => impostor.close());
  t.match(
    (await judgePort('COMPAT_HTTP_ADDR', { host: '127.0.0.1', port: impostorPort })).detail,
    /HTTP 200 for "something-else"/,
  );

  const ours = createHttpServer((req, res) => {
    if (req.url === '/healthz')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","service":"meeting-service"}');
    else res.writeHead(404).end();
  });
  const oursPort = await listening(ours);
  t.teardown(() => ours.close());
  const held = await judgePort('SERVICE_HTTP_ADDR', { host: '0.0.0.0', port: oursPort });
  t.equal(held.status, 'ok', 'a wildcard address is asked on loopback');
  t.match(held.detail, /held by this service/);

  // The compat listener answers 404 on /healthz; its engine sibling vouches for it.
  const compat = createHttpServer((_req, res) => res.writeHead(404).end('{"statusCode":404}'));
  const compatPort = await listening(compat);
  t.teardown(() => compat.close());
  const sibling = await judgePort(
    'COMPAT_HTTP_ADDR',
    { host: '127.0.0.1', port: compatPort },
    { host: '127.0.0.1', port: oursPort },
  );
  t.equal(sibling.status, 'ok');
  t.match(sibling.detail, new RegExp(`engine listener on 127.0.0.1:${oursPort}`));
  t.equal(
    (
      await judgePort(
        'COMPAT_HTTP_ADDR',
        { host: '127.0.0.1', port: compatPort },
        { host: '127.0.0.1', port: silentPort },
      )
    ).status,
    'fail',
    'not when the sibling is foreign',
  );

  t.equal((await judgePort('SERVICE_HTTP_ADDR', { host: '127.0.0.1', port: 0 })).status, 'skip');
  const elsewhere = await judgePort('SERVICE_HTTP_ADDR', { host: '192.0.2.1', port: freePort });
  t.equal(elsewhere.status, 'fail');
  t.match(elsewhere.detail, /not an address of this machine/);
});

t.test('env file: garbage lines are counted by number, never shown; huge and odd files', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'meet.env');
  writeFileSync(
    file,
    'SERVICE_LOG_LEVEL=debug\n# comment\n\nCOMPAT_API_SHARED_SECRET hunter2-not-shown\nexport X=1\n\u0000\u00ff=\nSERVICE_DATA_DIR = /srv/meet \n',
    { mode: 0o600 },
  );
  const read = readEnvFile(file);
  t.equal(read.state.status, 'read');
  t.same(read.state.ignoredLines, [4, 5, 6]);
  t.equal(read.values.SERVICE_LOG_LEVEL, 'debug');
  t.equal(read.values.SERVICE_DATA_DIR, '/srv/meet');
  t.equal(read.values.COMPAT_API_SHARED_SECRET, undefined);

  const huge = join(dir, 'huge.env');
  writeFileSync(huge, `X=${'a'.repeat(5 * 1024 * 1024)}\n`);
  t.match(readEnvFile(huge).state, { status: 'unreadable', error: /larger than 4 MiB/ });
  t.match(readEnvFile(dir).state, { status: 'unreadable', error: 'not a regular file' });
  t.match(readEnvFile(join(dir, 'absent')).state, { status: 'absent' });
});
