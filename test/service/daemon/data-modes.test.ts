// Issue 28, point 12: the data directory holds the databases, the signing key and the server
// key; under umask 022 (npm start, the container) they were readable by every local user.
// A real daemon (in process: both listeners, real SQLite) started under umask 022.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { compatInProcessFor } from '../../helpers/compat.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;

/** Every file and directory the daemon keeps private, relative to the data directory. */
const privateDirs = ['.', 'modules', 'compat-api'];
const privateFiles = [
  'meet.sqlite',
  'meet.sqlite-wal',
  'meet.sqlite-shm',
  'signing-key',
  'initial-admin-token',
  'modules/compat.json',
  'compat-api/confapi.sqlite',
  'compat-api/confapi.sqlite-wal',
  'compat-api/confapi.sqlite-shm',
];

const env = { COMPAT_API_SHARED_SECRET: 'compat-secret-of-the-data-modes-test-0123456789' };

function underUmask(t: Tap, mask: number): void {
  const before = process.umask(mask);
  t.teardown(() => void process.umask(before));
}

function checkModes(t: Tap, dataDir: string): void {
  for (const dir of privateDirs)
    t.equal(octal(modeOf(join(dataDir, dir))), '0700', `${dir === '.' ? 'the data directory' : dir}/ is 0700`);
  for (const file of privateFiles) {
    t.ok(existsSync(join(dataDir, file)), `${file} exists`);
    t.equal(octal(modeOf(join(dataDir, file))), '0600', `${file} is 0600`);
  }
}

t.test('a first start under umask 022 makes the data directory 0700 and its files 0600', async (t) => {
  underUmask(t, 0o022);
  const parent = mkdtempSync(join(tmpdir(), 'meet-modes-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  const daemon = await compatInProcessFor(t, { ...env, SERVICE_DATA_DIR: dataDir });
  // The meeting API's first write, so its database has a WAL beside it too.
  await fetch(`${daemon.compatUrl}/confapi/api/getMeetings?checksum=x`, { signal: AbortSignal.timeout(10_000) });
  checkModes(t, dataDir);
  t.notOk(
    daemon.lines.some((line) => line.includes('narrowed')),
    'nothing to narrow on a first start',
  );
});

t.test('a restart narrows what an older version (or the operator) left wider, and says so', async (t) => {
  underUmask(t, 0o022);
  const parent = mkdtempSync(join(tmpdir(), 'meet-modes-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  const first = await compatInProcessFor(t, { ...env, SERVICE_DATA_DIR: dataDir });
  await first.stop();
  for (const dir of privateDirs) chmodSync(join(dataDir, dir), 0o755);
  for (const file of privateFiles) if (existsSync(join(dataDir, file))) chmodSync(join(dataDir, file), 0o644);

  const again = await compatInProcessFor(t, { ...env, SERVICE_DATA_DIR: dataDir });
  await fetch(`${again.compatUrl}/confapi/api/getMeetings?checksum=x`, { signal: AbortSignal.timeout(10_000) });
  checkModes(t, dataDir);
  const narrowed = again.lines
    .filter((line) => /narrowed/.test(line))
    .map((line) => JSON.parse(line) as { path: string; was: string; now: string });
  for (const path of [
    dataDir,
    join(dataDir, 'meet.sqlite'),
    join(dataDir, 'signing-key'),
    join(dataDir, 'compat-api', 'confapi.sqlite'),
  ]) {
    const line = narrowed.find((l) => l.path === path);
    t.ok(line, `the log names ${path}`);
    t.match(line, { was: /^0(644|755)$/, now: /^0(600|700)$/ }, 'with its old and new mode');
  }
});
