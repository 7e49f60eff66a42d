import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readinessProbeReuseMs } from '../../../src/http/app.js';
import { databaseFileName } from '../../../src/store/database.js';
import { writeProbeKey } from '../../../src/store/write-probe.js';
import { openSqlite } from '../../../src/platform/sqlite.js';
import { logRecords, type Tap } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';
import { compatInProcessFor } from '../../helpers/compat.js';
import { FakeClock } from '../../helpers/fake-clock.js';

// The full data directory needs a daemon in a filesystem of its own: health-full-disk.test.ts.
const packageVersion = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The engine built in-process and listening (the checks look at its socket), or the whole daemon. */
interface Listening {
  readonly url: string | null;
  readonly dataDir: string;
}

async function get(daemon: Listening, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${daemon.url!}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** How many write probes the daemon's database has taken (read from another connection). */
function probesOf(daemon: Listening): number {
  const db = openSqlite(join(daemon.dataDir, databaseFileName), { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM instance_meta WHERE key = ?').get(writeProbeKey) as
      { value: string } | undefined;
    return Number(row?.value ?? 0);
  } finally {
    db.close();
  }
}

t.test('/healthz and /readyz answer without a token on the engine listener', async (t) => {
  const daemon = await appFor(t, { listen: true });
  const health = await get(daemon, '/healthz');
  t.equal(health.status, 200);
  t.same(
    health.body,
    { status: 'ok', service: 'meeting-service', version: packageVersion },
    'the version of the package (issue 29 point 9)',
  );
  t.match(health.headers.get('content-type'), /^application\/json/);
  t.equal(health.headers.get('cache-control'), 'no-store');

  const before = probesOf(daemon);
  const ready = await get(daemon, '/readyz');
  t.equal(ready.status, 200);
  t.same(
    ready.body,
    { status: 'ready', checks: { database: 'ok', engine_listener: 'ok' } },
    'no compat listener on an engine-only daemon',
  );
  t.equal(ready.headers.get('cache-control'), 'no-store');
  t.equal(probesOf(daemon), before + 1, 'the database check committed a real write');

  // A bogus bearer changes nothing: the endpoints are outside /api and its token check.
  t.equal((await get(daemon, '/readyz', { authorization: 'Bearer mt_forged' })).status, 200);
  t.equal((await get(daemon, '/healthz?probe=1', { authorization: 'Bearer mt_forged' })).status, 200);
  // Not shadowed by the web client's routes, and nothing else answers there.
  t.equal((await fetch(`${daemon.url!}/readyz/extra`)).status, 404);
});

t.test('/readyz answers 503 while the database cannot take a write, and recovers', async (t) => {
  const clock = new FakeClock();
  const daemon = await appFor(t, { listen: true, clock });
  // The last probe's answer is reused for readinessProbeReuseMs, by the engine's clock.
  const pastReuse = () => clock.advance(readinessProbeReuseMs + 100);
  t.equal((await get(daemon, '/readyz')).status, 200);
  // Another process holds SQLite's write lock: every write of the daemon would wait, then fail.
  const blocker = openSqlite(join(daemon.dataDir, databaseFileName));
  t.teardown(() => blocker.close());
  blocker.exec('BEGIN IMMEDIATE');
  pastReuse();
  const started = Date.now();
  const blocked = await get(daemon, '/readyz');
  t.equal(blocked.status, 503);
  t.same(blocked.body, { status: 'not_ready', checks: { database: 'failing', engine_listener: 'ok' } });
  t.ok(
    Date.now() - started < 3000,
    `the probe gives up quickly (${Date.now() - started} ms), not after the 5 s of a normal write`,
  );
  t.notMatch(blocked.text, /SQLITE|locked|\/tmp|sqlite/i, 'no detail in the answer');
  t.equal((await get(daemon, '/healthz')).status, 200, 'the process is still up');
  const warning = logRecords(daemon).find((r) => r.msg === 'readiness check database failing');
  t.ok(warning, 'the reason is logged');
  t.match(JSON.stringify(warning), /SQLITE_BUSY/);

  blocker.exec('ROLLBACK');
  pastReuse();
  const recovered = await get(daemon, '/readyz');
  t.equal(recovered.status, 200, 'ready again once the lock is gone');
});

t.test('a flood of /readyz costs at most one probe write a second', async (t) => {
  const daemon = await appFor(t, { listen: true });
  const before = probesOf(daemon);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 300 }, () => get(daemon, '/readyz')));
  const seconds = (Date.now() - started) / 1000;
  t.same(
    new Set(answers.map((a) => a.status)),
    new Set([200]),
    'every one answered ready (no rate limit on the endpoint)',
  );
  const writes = probesOf(daemon) - before;
  t.ok(
    writes >= 1 && writes <= Math.ceil(seconds) + 1,
    `${writes} probe writes for 300 requests in ${seconds.toFixed(2)} s`,
  );
});

t.test('with the compat module, /readyz reports its listener', async (t: Tap) => {
  const daemon = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: 'compat-secret-of-the-readiness-test' });
  const ready = await get(daemon, '/readyz');
  t.equal(ready.status, 200);
  t.same(ready.body, {
    status: 'ready',
    checks: { database: 'ok', engine_listener: 'ok', compat_listener: 'ok', compat_module: 'ok' },
  });
  t.equal((await fetch(`${daemon.compatUrl}/readyz`)).status, 404, 'on the engine listener only');
});
