import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { LockTimeout, readIfExists, withFileLock, writeFileAtomic } from '../../../src/platform/atomic-file.js';

t.test('writeFileAtomic replaces the bytes, with the mode, and leaves no temp file', async (t) => {
  const dir = t.testdir({ 'a.toml': 'old\n' });
  const file = join(dir, 'a.toml');
  writeFileAtomic(file, 'new\n');
  t.equal(readFileSync(file, 'utf8'), 'new\n');
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600 by default, even over a 0644 file');
  writeFileAtomic(join(dir, 'b.txt'), Buffer.from('bytes'), 0o644);
  t.equal(statSync(join(dir, 'b.txt')).mode & 0o777, 0o644);
  t.same(readdirSync(dir).sort(), ['a.toml', 'b.txt'], 'no temp file is left behind');
});

t.test('writeFileAtomic into a missing directory fails and creates nothing', async (t) => {
  const dir = t.testdir({});
  t.throws(() => writeFileAtomic(join(dir, 'missing', 'x'), 'x'), { code: 'ENOENT' });
  t.same(readdirSync(dir), []);
});

t.test('readIfExists: text, or null for a missing file; other errors are thrown', async (t) => {
  const dir = t.testdir({ f: 'x', d: {} });
  t.equal(readIfExists(join(dir, 'f')), 'x');
  t.equal(readIfExists(join(dir, 'nope')), null);
  t.throws(() => readIfExists(join(dir, 'd')), { code: 'EISDIR' });
});

t.test('withFileLock serialises read-modify-write: no change is lost', async (t) => {
  const dir = t.testdir({ counter: '0' });
  const counter = join(dir, 'counter');
  const lock = join(dir, 'counter.lock');
  await Promise.all(
    Array.from({ length: 20 }, () =>
      withFileLock(lock, async () => {
        const value = Number(readFileSync(counter, 'utf8'));
        await new Promise((r) => setTimeout(r, 2));
        writeFileAtomic(counter, String(value + 1));
      }),
    ),
  );
  t.equal(readFileSync(counter, 'utf8'), '20', 'twenty increments, none lost');
  t.equal(readIfExists(lock), null, 'the lock is released');
});

t.test('withFileLock releases the lock when the work throws', async (t) => {
  const dir = t.testdir({});
  const lock = join(dir, 'x.lock');
  await t.rejects(
    withFileLock(lock, () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  t.equal(readIfExists(lock), null);
});

t.test('a lock held by a live process times out naming it; a dead holder is taken over', async (t) => {
  const dir = t.testdir({});
  const lock = join(dir, 'x.lock');
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  t.teardown(() => holder.kill('SIGKILL'));
  writeFileSync(lock, `${holder.pid}\n`);
  const err = await withFileLock(lock, () => 'never', 200).catch((e: unknown) => e);
  t.type(err, LockTimeout);
  t.equal((err as LockTimeout).holder, holder.pid, 'names the holder');
  t.match((err as Error).message, String(holder.pid));

  holder.kill('SIGKILL');
  await new Promise((r) => holder.once('exit', r));
  t.equal(await withFileLock(lock, () => 'taken', 200), 'taken', 'a lock left by a dead process is taken over');
  writeFileSync(lock, 'garbage');
  t.type(
    await withFileLock(lock, () => 'x', 100).catch((e: unknown) => e),
    LockTimeout,
    'a lock without a pid is not taken over',
  );
});
