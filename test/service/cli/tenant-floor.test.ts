// Issue 29 point 18: `meetctl tenant add` refuses a secret under the floor `meetctl doctor`
// fails (one number for both: what add accepts, doctor passes), and warns about tenant ids
// outside [a-z0-9], which platforms and host names mangle.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { minSecretBytes } from '../../../src/compat/tenants/parse.js';
import { runCli } from '../../helpers/cli.js';
import { doctorJson, healthy } from '../../helpers/doctor.js';

t.test('add refuses what doctor fails and accepts what it passes', async (t) => {
  const s = await healthy(t, { light: true });
  const add = (...args: string[]) => runCli(['tenant', 'add', ...args, '--config-dir', s.configDir]);
  const before = readFileSync(s.tenantsFile, 'utf8');
  t.equal(minSecretBytes, 32, 'the floor is 32 bytes, what meetctl generates');

  const tooShort = 'x'.repeat(minSecretBytes - 1);
  const refused = await add('moodle', '--api-secret', tooShort);
  t.equal(refused.code, 64, 'a 31-byte secret is a usage error (exit 64)');
  t.match(
    refused.stderr,
    /--api-secret holds 31 bytes; a secret needs at least 32 \(meetctl doctor fails a shorter one\)/,
    'naming the flag and the floor',
  );
  t.notOk(refused.stderr.includes(tooShort), 'the secret is not echoed');
  const tenSecret = join(s.root, 'ten.secret');
  writeFileSync(tenSecret, '0123456789\n');
  const fromFile = await add('canvas', '--app-id', 'canvas-app', '--app-secret-file', tenSecret);
  t.equal(fromFile.code, 64, 'a 10-character secret from a file too');
  t.match(fromFile.stderr, /--app-secret-file holds 10 bytes/);
  // Multi-byte characters count as the bytes doctor counts, not as characters.
  const accents = await add('lms', '--api-secret', 'é'.repeat(16));
  t.equal(accents.code, 0, `16 two-byte characters are 32 bytes: ${accents.stderr}`);
  t.equal(readFileSync(s.tenantsFile, 'utf8').startsWith(before), true, 'the refusals wrote nothing before it');

  const exact = await add('moodle', '--api-secret', 'k'.repeat(minSecretBytes));
  t.equal(exact.code, 0, `a 32-byte secret is accepted: ${exact.stderr}`);
  const generated = await add('portal', '--generate-app');
  t.equal(generated.code, 0, generated.stderr);

  const { byId } = await doctorJson(t, s);
  t.match(
    byId.get('secrets'),
    { status: 'ok', detail: /each at least 32 bytes/ },
    'doctor passes every secret add accepted',
  );
});

t.test('ids outside [a-z0-9] are accepted with a warning', async (t) => {
  const s = await healthy(t, { light: true });
  const add = (id: string) => runCli(['tenant', 'add', id, '--config-dir', s.configDir]);
  for (const id of ['Moodle', 'moodle-north', 'portal.v2', 'lms_2']) {
    const result = await add(id);
    t.equal(result.code, 0, `${id}: added`);
    t.match(
      result.stderr,
      new RegExp(`warning: tenant id ${id.replace('.', '\\.')} holds characters other than a-z and 0-9`),
      `${id}: warned`,
    );
  }
  const plain = await add('moodle2');
  t.equal(plain.code, 0);
  t.notMatch(plain.stderr, /tenant id .* holds characters/, 'a plain id: no warning');
});
