// The licence authority's side of meetctl (issue 13, point 1): keygen writes an Ed25519
// pair (private 0600), issue prints a key and nothing else, every flag is checked by name.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { licencePublicKey, verifyServerKey } from '../../../src/licence/server-key.js';
import type { Tap } from '../../helpers/api.js';
import { runCli as runMeetctl } from '../../helpers/cli.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-license-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('keygen writes the pair with the right modes and never overwrites without --force', async (t) => {
  const dir = join(tempDir(t), 'authority');
  const made = await runMeetctl(['license', 'keygen', '--out', dir]);
  t.equal(made.code, 0, made.stderr);
  t.equal(statSync(join(dir, 'licence.key')).mode & 0o777, 0o600, 'private key 0600');
  t.equal(statSync(join(dir, 'licence.pub')).mode & 0o777, 0o644, 'public key 0644');
  t.match(readFileSync(join(dir, 'licence.key'), 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
  t.notOk(
    made.stdout.includes(readFileSync(join(dir, 'licence.key'), 'utf8').split('\n')[1]!),
    'the private key is not printed',
  );
  const before = readFileSync(join(dir, 'licence.key'), 'utf8');

  const again = await runMeetctl(['license', 'keygen', '--out', dir]);
  t.equal(again.code, 1, 'refused');
  t.match(again.stderr, /already exist[\s\S]*hint: pass --force/);
  t.equal(readFileSync(join(dir, 'licence.key'), 'utf8'), before, 'the old pair is untouched');

  const forced = await runMeetctl(['license', 'keygen', '--out', dir, '--force']);
  t.equal(forced.code, 0);
  t.not(readFileSync(join(dir, 'licence.key'), 'utf8'), before, '--force replaces it');

  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, 'x');
  t.equal((await runMeetctl(['license', 'keygen', '--out', file])).code, 2, '--out naming a file: exit 2');
  t.equal((await runMeetctl(['license', 'keygen'])).code, 64, 'no --out: usage');
});

t.test('issue prints one verifiable key and nothing else on standard output', async (t) => {
  const dir = tempDir(t);
  t.equal((await runMeetctl(['license', 'keygen', '--out', dir])).code, 0);
  const issued = await runMeetctl([
    'license',
    'issue',
    '--private-key',
    join(dir, 'licence.key'),
    '--customer',
    '  École Nord  ',
    '--modules',
    'compat,recording,compat',
    '--days',
    '30',
  ]);
  t.equal(issued.code, 0, issued.stderr);
  t.match(issued.stdout, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/, 'the key, one line');
  const licence = await verifyServerKey(
    issued.stdout,
    licencePublicKey(readFileSync(join(dir, 'licence.pub'), 'utf8')),
    'compat',
    new Date(),
  );
  t.equal(licence.customer, 'École Nord', 'customer trimmed, unicode kept');
  t.same(licence.modules, ['compat', 'recording'], 'modules deduplicated');
  t.equal(Math.round((licence.expiresAt.getTime() - licence.issuedAt.getTime()) / 86_400_000), 30);
});

t.test('every flag of issue is checked and named', async (t) => {
  const dir = tempDir(t);
  t.equal((await runMeetctl(['license', 'keygen', '--out', dir])).code, 0);
  const key = join(dir, 'licence.key');
  const rsa = join(dir, 'rsa.pem');
  writeFileSync(
    rsa,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  mkdirSync(join(dir, 'a-dir'));
  const base = { '--private-key': key, '--customer': 'C', '--modules': 'compat', '--days': '10' };
  const cases: [string, Record<string, string | null>, number, RegExp][] = [
    ['days zero', { '--days': '0' }, 64, /--days must be a whole number/],
    ['days negative', { '--days': '-3' }, 64, /--days/],
    ['days fractional', { '--days': '1.5' }, 64, /--days must be a whole number/],
    ['days text', { '--days': 'ten' }, 64, /--days/],
    ['days huge', { '--days': '99999999' }, 64, /--days must be a whole number of days from 1 to/],
    ['days missing', { '--days': null }, 64, /--days/],
    ['customer blank', { '--customer': '   ' }, 64, /--customer must name the customer/],
    ['customer with a newline', { '--customer': 'A\n{"level":50}' }, 64, /--customer must not contain control/],
    [
      'customer with a bidi override',
      { '--customer': 'A\u202eB' },
      64,
      /--customer must not contain control or invisible/,
    ],
    ['modules empty', { '--modules': ' , ' }, 64, /--modules must list at least one/],
    ['module name odd', { '--modules': 'compat,Com Pat' }, 64, /--modules: "Com Pat" is not a module name/],
    ['private key missing', { '--private-key': join(dir, 'nope') }, 2, /--private-key .* cannot be read \(ENOENT\)/],
    ['private key a directory', { '--private-key': join(dir, 'a-dir') }, 2, /--private-key .* is a directory/],
    [
      'private key the public one',
      { '--private-key': join(dir, 'licence.pub') },
      2,
      /--private-key .* is not a private key/,
    ],
    [
      'private key RSA',
      { '--private-key': rsa },
      2,
      /--private-key .* is a rsa key; the licence authority signs with Ed25519/,
    ],
  ];
  for (const [what, change, code, message] of cases) {
    const flags = { ...base, ...change };
    const args = Object.entries(flags).flatMap(([flag, value]) => (value === null ? [] : [flag, value]));
    const result = await runMeetctl(['license', 'issue', ...args]);
    t.equal(result.code, code, `${what}: exit ${code}`);
    t.match(result.stderr, message, `${what}: ${message}`);
    t.equal(result.stdout, '', `${what}: nothing on standard output`);
  }
});

t.test('license show: the installed licence, or why there is none', async (t) => {
  const w = world(t);
  const where = ['--config-dir', w.etc, '--data-dir', w.data];
  const absent = await runMeetctl(['license', 'show', ...where, '--json'], w.env);
  t.equal(absent.code, 1, 'not installed: exit 1');
  t.match(JSON.parse(absent.stdout), { module: 'compat', status: 'absent' });
  t.match(absent.stderr, /compat is not installed in .*\n  hint: run meetctl install compat/);

  t.equal(
    (await w.install(['--key', await testServerKey({ customer: 'Lycée Bleu', days: 45 }), '--no-open-rooms'])).code,
    0,
  );
  const shown = await runMeetctl(['license', 'show', ...where, '--json'], w.env);
  t.equal(shown.code, 0, shown.stderr);
  t.match(JSON.parse(shown.stdout), {
    module: 'compat',
    status: 'valid',
    customer: 'Lycée Bleu',
    modules: ['compat'],
    daysLeft: 44,
  });
  // Without --data-dir: the env file install wrote names the data directory.
  const plain = await runMeetctl(['license', 'show', '--config-dir', w.etc], w.env);
  t.equal(plain.code, 0, plain.stderr);
  t.match(plain.stdout, /customer: Lycée Bleu[\s\S]*44 days left/);

  const record = join(w.data, 'modules', 'compat.json');
  writeFileSync(record, readFileSync(record, 'utf8').replace('Lycée Bleu', 'Lycée Rouge'));
  const tampered = await runMeetctl(['license', 'show', ...where], w.env);
  t.equal(tampered.code, 2, 'an edited record: exit 2');
  t.match(tampered.stderr, /not valid: .*was edited/);
});
