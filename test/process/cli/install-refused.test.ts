// meetctl install compat refusing (issue 13, point 1): a malformed, forged, expired or
// module-less key, a huge or misplaced key, a wrong flag: exit 2 (or 64) naming the fault, and
// nothing created or changed; concurrent installs end as one installation.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { badKeys, faultWords } from '../../helpers/bad-keys.js';
import { runCli } from '../../helpers/cli.js';
import type { CliResult } from '../../helpers/daemon.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

t.test('refused keys: exit 2 naming the fault, and nothing created or changed', async (t) => {
  const w = world(t);
  const all = await badKeys();
  const check = async (stage: string, bad: { name: string; key: string; fault: keyof typeof faultWords }[]) => {
    const before = snapshot(w.root);
    // No key writes, so they may run side by side (the machine is shared: four at a time).
    for (let i = 0; i < bad.length; i += 4) {
      const batch = bad.slice(i, i + 4);
      const results = await Promise.all(batch.map((b) => w.install(['--key-file', w.keyFile(b.key), '--open-rooms'])));
      results.forEach((result, j) => {
        const b = batch[j]!;
        t.equal(result.code, 2, `${stage}, ${b.name}: exit 2`);
        t.match(
          result.stderr,
          new RegExp(`^meetctl: [^\\n]*${faultWords[b.fault].source}`, 'm'),
          `${stage}, ${b.name}: says ${b.fault}`,
        );
        t.match(result.stderr, /hint: /);
      });
    }
    t.same(snapshot(w.root), before, `${stage}: no file created, changed or removed`);
  };
  await check('fresh machine', all);
  t.equal((await w.install(['--key', await testServerKey(), '--no-open-rooms'])).code, 0, 'a valid install');
  // One of each fault is enough once installed: the path to the refusal is the same.
  await check(
    'installed machine',
    ['malformed', 'forged', 'expired', 'module'].map((fault) => all.find((b) => b.fault === fault)!),
  );
});

t.test('abuse: huge, odd and misplaced keys, concurrent installs', async (t) => {
  const w = world(t);
  const key = await testServerKey();
  const huge = w.keyFile(`${key}.${'A'.repeat(1024 * 1024)}`);
  const dir = join(w.keys, 'a-directory');
  mkdirSync(dir);
  const [big, bigEnv, isDir, missing, zeroWidth, fullwidthDot, both, none, module] = await Promise.all([
    w.install(['--key-file', huge, '--open-rooms']),
    w.install(['--open-rooms'], { SERVICE_SERVER_KEY: `${key}${'x'.repeat(100_000)}` }),
    w.install(['--key-file', dir, '--open-rooms']),
    w.install(['--key-file', join(w.keys, 'nope'), '--open-rooms']),
    w.install(['--key', key.replace('.', '\u200b.'), '--open-rooms']),
    w.install(['--key', key.replace('.', '\uff0e'), '--open-rooms']),
    w.install(['--key', key, '--key-file', huge, '--open-rooms']),
    w.install(['--open-rooms']),
    runCli(['install', 'recording', '--key', key], w.env),
  ]);
  t.equal(big.code, 2);
  t.match(big.stderr, /server key is malformed: --key-file .* holds more than 16384 bytes/);
  t.equal(bigEnv.code, 2);
  t.match(bigEnv.stderr, /server key is malformed: it is \d+ bytes long/);
  t.equal(isDir.code, 2);
  t.match(isDir.stderr, /--key-file .* is a directory, not a file/);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--key-file .* does not exist/);
  for (const [what, result] of [
    ['a zero-width space', zeroWidth],
    ['a full-width dot', fullwidthDot],
  ] as const) {
    t.equal(result.code, 2, `${what}: exit 2`);
    t.match(result.stderr, /server key is malformed/, `${what}: malformed`);
  }
  t.equal(both.code, 64);
  t.match(both.stderr, /--key and --key-file exclude each other/);
  t.equal(none.code, 64);
  t.match(none.stderr, /a server key is required: --key KEY, --key-file PATH or SERVICE_SERVER_KEY/);
  t.equal(module.code, 64);
  t.match(module.stderr, /unknown module "recording"/);
  t.same(snapshot(w.root), {}, 'none of them wrote anything');

  // A key wrapped by a mail client, with spaces and CRLFs inside, is the same key.
  const wrapped = `  ${key.slice(0, 40)}\r\n ${key.slice(40, 120)}\n\t${key.slice(120)}\n`;
  // Two processes: the install lock is held by a pid, and another pid must wait for it.
  const [a, b] = await Promise.all([
    w.installProcess(['--key-file', w.keyFile(wrapped), '--no-open-rooms']),
    w.installProcess(['--no-open-rooms'], { SERVICE_SERVER_KEY: key }),
  ]);
  t.equal(a.code, 0, `wrapped key file: ${a.stderr}`);
  t.equal(b.code, 0, `concurrent install through SERVICE_SERVER_KEY: ${b.stderr}`);
  const statuses = (r: CliResult) =>
    r.stdout
      .split('\n')
      .filter((l) => /^\s+(created|changed|unchanged)/.test(l))
      .map((l) => l.trim().split(/\s+/)[0]);
  t.same(
    [statuses(a), statuses(b)].sort(),
    [
      ['created', 'created', 'created'],
      ['unchanged', 'unchanged', 'unchanged'],
    ].sort(),
    'one created, the other (after the lock) found it done',
  );
  const before = snapshot(w.root);
  t.equal((await w.install(['--key', key])).code, 0);
  t.same(snapshot(w.root), before, 'one consistent installation');
  t.notOk(existsSync(join(w.etc, '.meetctl-install.lock')), 'the lock is released');
});

t.test('--runtime is checked; install with it still verifies first', async (t) => {
  const w = world(t);
  const wrong = await w.install(['--key', await testServerKey(), '--no-open-rooms', '--runtime', 'docker']);
  t.equal(wrong.code, 64);
  t.match(wrong.stderr, /--runtime/);
  const forged = await w.install([
    '--key',
    (await badKeys()).find((b) => b.fault === 'forged')!.key,
    '--no-open-rooms',
    '--runtime',
    'container',
    '--runtime-dir',
    join(w.root, 'rt'),
  ]);
  t.equal(forged.code, 2);
  t.same(snapshot(w.root), {}, 'nothing written');
  const ok = await w.install([
    '--key',
    await testServerKey(),
    '--no-open-rooms',
    '--runtime',
    'container',
    '--runtime-dir',
    join(w.root, 'rt'),
  ]);
  t.equal(ok.code, 0, ok.stderr);
});
