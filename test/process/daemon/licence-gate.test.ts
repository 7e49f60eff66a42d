// serve runs the compat module only when it is installed with a valid server key (issue 13,
// point 1), against real daemons: absent → the engine alone and a warning naming the
// command; valid → customer and expiry logged; expired, tampered or forged → refused with a
// message while the engine serves; under 30 days → a warning; a licence that ends while the
// daemon runs does not stop the module, but the next start refuses it. The daemon starts in
// this process (its start is what decides and logs); one case runs the built binary, whose
// standard output must hold neither the key nor the secret.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { gateDecision, runningCheck } from '../../../src/daemon/licence-gate.js';
import { installationFile, writeInstallation } from '../../../src/licence/installation.js';
import { LicenceError, licencePublicKey, verifyServerKey } from '../../../src/licence/server-key.js';
import type { DaemonOptions } from '../../../src/daemon/run.js';
import { dataDirFor, logRecords, stopGracefully, type Tap } from '../../helpers/api.js';
import { startDaemon } from '../../helpers/daemon.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../../helpers/in-process-daemon.js';
import { testAuthority, testServerKey } from '../../helpers/licence.js';
import { until } from '../../helpers/net.js';

const secret = 'licence-gate-compat-secret';

async function install(
  dataDir: string,
  grant: Parameters<typeof testServerKey>[0],
  issuedAt = new Date(),
): Promise<string> {
  const key = await testServerKey(grant, issuedAt);
  writeInstallation(
    dataDir,
    'compat',
    key,
    await verifyServerKey(key, licencePublicKey(testAuthority().publicKeyPem), 'compat', issuedAt),
  );
  return key;
}

const compatEnv = (env: Record<string, string> = {}) => ({
  COMPAT_HTTP_ADDR: '127.0.0.1:0',
  COMPAT_API_SHARED_SECRET: secret,
  SERVICE_LICENSE_PUBLIC_KEY: testAuthority().publicKeyPem,
  ...env,
});

function serve(
  t: Tap,
  dataDir: string,
  env: Record<string, string> = {},
  options: DaemonOptions = {},
): Promise<InProcessDaemon> {
  return inProcessDaemonFor(t, dataDir, compatEnv(env), options);
}

/** A started daemon, in this process or its own: where the engine listens and what it logged. */
type Started = { readonly url: string; readonly lines: string[] };

const compatUrl = (d: Started) =>
  logRecords(d).find((r) => /^compat listening/.test(String(r.msg)))?.url as string | undefined;
const licenceLine = (d: Started) => logRecords(d).find((r) => r.module === 'compat' && typeof r.licence === 'string');

async function engineServes(t: Tap, d: Started): Promise<void> {
  t.equal((await fetch(`${d.url}/room/nowhere/exists`)).status, 404, 'the engine serves');
}

/** What /readyz answers (status and body). */
async function readyz(
  d: Started,
): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const response = await fetch(`${d.url}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; checks: Record<string, string> },
  };
}

/**
 * Issue 29 point 5: a configured module the gate refused leaves the platforms with 502 from
 * nginx while the engine is fine; /readyz must say so, naming the module.
 */
async function notReadyNamingCompat(t: Tap, d: Started): Promise<void> {
  const ready = await readyz(d);
  t.equal(ready.status, 503, '/readyz: not ready');
  t.match(
    ready.body,
    { status: 'not_ready', checks: { database: 'ok', engine_listener: 'ok', compat_module: 'failing' } },
    'naming the compat module',
  );
}

t.test('the decision, without a daemon', async (t) => {
  const now = new Date('2030-01-01T00:00:00Z');
  const licence = { customer: 'C', modules: ['compat'], issuedAt: now, expiresAt: new Date('2030-03-01T00:00:00Z') };
  t.match(gateDecision('compat', { status: 'valid', licence }, now), {
    start: true,
    level: 'info',
    fields: { daysLeft: 59 },
  });
  const soon = { ...licence, expiresAt: new Date('2030-01-30T12:00:00Z') };
  t.match(gateDecision('compat', { status: 'valid', licence: soon }, now), {
    start: true,
    level: 'warn',
    message: /29 days left, under 30/,
  });
  t.match(gateDecision('compat', { status: 'absent' }, now), {
    start: false,
    level: 'warn',
    message: /meetctl install compat/,
  });
  const expired = new LicenceError('expired', 'the server key expired on 2029-12-31T00:00:00.000Z; ask for a new one');
  t.match(gateDecision('compat', { status: 'invalid', error: expired }, now), {
    start: false,
    level: 'error',
    fields: { fault: 'expired' },
  });
  t.equal(
    runningCheck('compat', { status: 'valid', licence }, now),
    null,
    'far from expiry the daily check says nothing',
  );
  t.match(runningCheck('compat', { status: 'valid', licence: soon }, now), { level: 'warn' });
  t.match(runningCheck('compat', { status: 'invalid', error: expired }, now), {
    level: 'error',
    message: /keeps serving until this process stops, and will not start again/,
  });
});

t.test('a newcomer without compat settings: the engine alone, no licence talk', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { COMPAT_HTTP_ADDR: '127.0.0.1:0' });
  await engineServes(t, d);
  t.equal(compatUrl(d), undefined);
  t.notMatch(d.lines.join('\n'), /licen[cs]e|not installed/i, 'nothing about a licence');
  t.same(
    await readyz(d),
    { status: 200, body: { status: 'ready', checks: { database: 'ok', engine_listener: 'ok' } } },
    'ready: no module was configured',
  );
});

t.test('no licence: no compat listener, a warning naming meetctl install compat', async (t) => {
  const d = await serve(t, dataDirFor(t));
  await engineServes(t, d);
  t.equal(compatUrl(d), undefined, 'no compat listener');
  t.match(licenceLine(d), { level: 40, licence: 'absent', msg: /compat module not installed.*meetctl install compat/ });
  await notReadyNamingCompat(t, d);
});

t.test(
  'a valid licence: compat listens, the log names customer and expiry (meetctl serve, its own process)',
  async (t) => {
    const dataDir = dataDirFor(t);
    const key = await install(dataDir, { customer: 'Académie Ouest', days: 400 });
    const d = await startDaemon({ dataDir, env: compatEnv() });
    t.teardown(() => stopGracefully(d));
    const url = compatUrl(d);
    t.ok(url, 'compat listening');
    t.equal((await fetch(`${url}/confapi/api`)).status, 200, 'it answers');
    t.same(
      (await readyz(d)).body,
      {
        status: 'ready',
        checks: { database: 'ok', engine_listener: 'ok', compat_listener: 'ok', compat_module: 'ok' },
      },
      'ready, the module serving',
    );
    t.match(licenceLine(d), {
      level: 30,
      licence: 'valid',
      customer: 'Académie Ouest',
      expiresAt: /^\d{4}-\d\d-\d\dT/,
      msg: /compat licence of Académie Ouest, valid until \d{4}-.*\((399|400) days left\)/,
    });
    t.notOk(d.lines.join('\n').includes(key), 'the key itself is not logged');
    t.notOk(d.lines.join('\n').includes(secret), 'nor the secret');
  },
);

t.test('under 30 days: it starts, with a warning', async (t) => {
  const dataDir = dataDirFor(t);
  await install(dataDir, { days: 10 });
  const d = await serve(t, dataDir);
  t.ok(compatUrl(d), 'compat listening');
  t.match(licenceLine(d), {
    level: 40,
    licence: 'valid',
    daysLeft: 9,
    msg: /expires on .* \(9 days left, under 30\): ask for a new key/,
  });
});

t.test('an expired licence: refused with a message, the engine serves', async (t) => {
  const dataDir = dataDirFor(t);
  await install(dataDir, { days: 30 }, new Date(Date.now() - 40 * 86_400_000));
  const d = await serve(t, dataDir);
  await engineServes(t, d);
  t.equal(compatUrl(d), undefined, 'no compat listener');
  t.match(licenceLine(d), {
    level: 50,
    licence: 'invalid',
    fault: 'expired',
    msg: /compat module refused to start: the server key expired on \d{4}-.*the engine still serves/,
  });
  await notReadyNamingCompat(t, d);
});

t.test('an unreadable installation record: refused, the engine serves, /readyz names the module', async (t) => {
  const dataDir = dataDirFor(t);
  await install(dataDir, { days: 100 });
  // A directory where the record should be: unreadable even for root, who reads any file's bytes.
  const file = installationFile(dataDir, 'compat');
  rmSync(file);
  mkdirSync(file);
  const d = await serve(t, dataDir);
  await engineServes(t, d);
  t.equal(compatUrl(d), undefined, 'no compat listener');
  t.match(
    logRecords(d).find((r) => r.module === 'compat' && /installation record cannot be read/.test(String(r.msg))),
    { level: 50 },
  );
  await notReadyNamingCompat(t, d);
});

t.test('a tampered record: refused', async (t) => {
  for (const [what, tamper, message] of [
    [
      'customer edited',
      (r: Record<string, unknown>) => ({ ...r, customer: 'Somebody else' }),
      /was edited: its fields no longer match its server key/,
    ],
    [
      'expiry pushed back',
      (r: Record<string, unknown>) => ({ ...r, expires_at: '2099-01-01T00:00:00.000Z' }),
      /was edited/,
    ],
    [
      'key signature changed',
      (r: Record<string, unknown>) => ({ ...r, key: `${String(r.key).slice(0, -4)}AAAA` }),
      /server key is forged/,
    ],
    ['not JSON', () => null, /holds no server key/],
  ] as const) {
    await t.test(what, async (t) => {
      const dataDir = dataDirFor(t);
      await install(dataDir, { days: 100 });
      const file = installationFile(dataDir, 'compat');
      const changed = tamper(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
      writeFileSync(file, changed === null ? '{not json' : JSON.stringify(changed, null, 2));
      const d = await serve(t, dataDir);
      t.equal(compatUrl(d), undefined, 'no compat listener');
      t.match(licenceLine(d), { level: 50, licence: 'invalid', msg: message });
    });
  }
});

t.test(
  'a key of another authority (SERVICE_LICENSE_PUBLIC_KEY changed since install): refused as forged',
  async (t) => {
    const dataDir = dataDirFor(t);
    await install(dataDir, { days: 100 });
    const d = await serve(t, dataDir, { SERVICE_LICENSE_PUBLIC_KEY: '' });
    t.equal(compatUrl(d), undefined);
    t.match(licenceLine(d), { level: 50, fault: 'forged' }, 'the built-in key does not verify a test key');
  },
);

t.test('a licence ending while the daemon runs: meetings keep being served; the next start refuses', async (t) => {
  const dataDir = dataDirFor(t);
  const issuedAt = new Date();
  await install(dataDir, { days: 1 }, issuedAt);
  // The gate's clock: an hour into the licence's last day, then past its end. Its check runs every 50 ms instead of daily.
  let clock = issuedAt.getTime() + 3_600_000;
  const now = () => new Date(clock);
  const first = await serve(t, dataDir, {}, { now, licenceCheckMs: 50 });
  const url = compatUrl(first);
  t.ok(url, 'compat listening while valid');
  t.match(licenceLine(first), { level: 40, daysLeft: 0 });
  const expiresAt = new Date(String(licenceLine(first)?.expiresAt)).getTime();
  clock = expiresAt + 1000;
  const noLonger = () => logRecords(first).find((r) => /licence no longer valid/.test(String(r.msg)));
  await until('the running check sees the licence ended', () => Promise.resolve(noLonger() !== undefined), 5000, 20);
  t.match(noLonger(), {
    level: 50,
    fault: 'expired',
    msg: /keeps serving until this process stops, and will not start again/,
  });
  t.equal((await fetch(`${url}/confapi/api`)).status, 200, 'after expiry the running module still answers');
  t.equal((await readyz(first)).status, 200, 'and /readyz stays ready: the module serves');
  await first.stop();

  const second = await serve(t, dataDir, {}, { now });
  t.equal(compatUrl(second), undefined, 'a restart does not start it');
  t.match(licenceLine(second), { level: 50, fault: 'expired', msg: /refused to start: the server key expired/ });
  await notReadyNamingCompat(t, second);
});
