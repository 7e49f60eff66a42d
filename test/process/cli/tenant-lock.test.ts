// Issue 13 point 3: `meetctl tenant` as separate processes: concurrent invocations and the
// lock file (a stale one taken over once, a live one waited for) never lose a change.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { sample, setup, tenant, tenantProcess } from '../../helpers/tenants.js';

t.test('concurrent invocations never lose a change', async (t) => {
  const s = setup(t);
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all([
      tenantProcess(s, ['add', `left${round}`]),
      tenantProcess(s, ['add', `right${round}`]),
    ]);
    t.same(
      results.map((r) => r.code),
      [0, 0],
      `round ${round}: both succeed`,
    );
  }
  const ids = [...parseRegistry(readFileSync(s.file, 'utf8'), null).byId.keys()];
  for (let round = 0; round < 3; round++)
    t.ok(ids.includes(`left${round}`) && ids.includes(`right${round}`), `round ${round}: both present`);
  t.ok(readFileSync(s.file, 'utf8').startsWith(sample), "the original text is still the file's start");
  t.notOk(existsSync(`${s.file}.lock`), 'no lock left behind');

  // A lock left by a process that has ended is taken over.
  const dead = await new Promise<number>((resolve) => {
    const child = execFile(process.execPath, ['-e', '']);
    child.once('exit', () => resolve(child.pid!));
  });
  writeFileSync(`${s.file}.lock`, `${dead}\n`);
  const stale = await tenantProcess(s, ['add', 'after-stale'], { MEET_LOCK_WAIT_MS: '2000' });
  t.equal(stale.code, 0, `a stale lock (pid ${dead}) is taken over: ${stale.stderr}`);
  t.notOk(existsSync(`${s.file}.lock`), 'and released');
  // Several waiters that all see the same dead holder: only one may break the lock, or two would run at once.
  for (let round = 0; round < 1; round++) {
    writeFileSync(`${s.file}.lock`, `${dead}\n`);
    const ids = [0, 1, 2].map((i) => `stale${round}-${i}`);
    const results = await Promise.all(ids.map((id) => tenantProcess(s, ['add', id], { MEET_LOCK_WAIT_MS: '20000' })));
    t.same(
      results.map((r) => r.code),
      [0, 0, 0],
      `stale round ${round}: all three succeed`,
    );
    const present = parseRegistry(readFileSync(s.file, 'utf8'), null).byId;
    t.ok(
      ids.every((id) => present.has(id)),
      `stale round ${round}: all three present`,
    );
    t.notOk(existsSync(`${s.file}.lock`) || existsSync(`${s.file}.lock.break`), 'no lock or break file left behind');
  }

  // A live holder (this test's process): the second invocation waits, then times out clearly...
  writeFileSync(`${s.file}.lock`, `${process.pid}\n`);
  const before = readFileSync(s.file, 'utf8');
  const timedOut = await tenantProcess(s, ['add', 'blocked'], { MEET_LOCK_WAIT_MS: '300' });
  t.equal(timedOut.code, 69, 'a held lock: environment error after the wait');
  t.match(
    timedOut.stderr,
    new RegExp(`locked by process ${process.pid} \\(lock file .*tenants\\.toml\\.lock\\); waited 300 ms`),
    'naming the lock file and its holder',
  );
  t.equal(readFileSync(s.file, 'utf8'), before, 'nothing written');
  t.ok(existsSync(`${s.file}.lock`), "the holder's lock is not taken");
  // ...or succeeds once the holder lets go.
  const waiting = tenantProcess(s, ['add', 'waited'], { MEET_LOCK_WAIT_MS: '10000' });
  await new Promise((r) => setTimeout(r, 700));
  t.notOk(parseRegistry(readFileSync(s.file, 'utf8'), null).byId.has('waited'), 'it waits while the lock is held');
  unlinkSync(`${s.file}.lock`);
  t.equal((await waiting).code, 0, 'then proceeds');
  t.ok(parseRegistry(readFileSync(s.file, 'utf8'), null).byId.has('waited'));
  t.equal(
    (await tenant(s, ['add', 'x'], { MEET_LOCK_WAIT_MS: 'soon' })).code,
    2,
    'a bad MEET_LOCK_WAIT_MS is a configuration error',
  );
});
