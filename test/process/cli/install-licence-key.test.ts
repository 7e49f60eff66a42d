// Issue 29, point 8: install verified the server key with the private authority's public key
// of its environment, but did not write that key to meet.env; the daemon, started from the env
// file, checked the valid key against the built-in key and called it forged. Install now
// records the key in force, on one line, and a forged verdict without one says which key checked.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { daemonFor, logRecords, type Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { logMatch } from '../../helpers/compat.js';
import { world } from '../../helpers/install-world.js';
import { recordServerKey, testAuthority, testServerKey } from '../../helpers/licence.js';
import { snapshot } from '../../helpers/tree.js';

/** Install as the README says for a private authority: SERVICE_LICENSE_PUBLIC_KEY=@licence.pub in the environment of the install. */
async function installWithKeyFile(t: Tap) {
  const w = world(t);
  const pub = join(w.keys, 'licence.pub');
  writeFileSync(pub, testAuthority().publicKeyPem);
  const key = await testServerKey({ customer: 'Private Ltd' });
  const args = [
    '--key',
    key,
    '--no-open-rooms',
    '--yes',
    '--http-addr',
    '127.0.0.1:0',
    '--compat-http-addr',
    '127.0.0.1:0',
  ];
  const result = await w.install(args, { SERVICE_LICENSE_PUBLIC_KEY: `@${pub}` });
  t.equal(result.code, 0, result.stderr);
  return { w, pub, key, args, result };
}

t.test("the private authority's key is written to meet.env on one line, and a second run keeps it", async (t) => {
  const { w, pub, args, result } = await installWithKeyFile(t);
  const body = testAuthority()
    .publicKeyPem.replace(/-----[A-Z ]+-----/g, '')
    .replace(/\s+/g, '');
  t.equal(
    w.envFile().SERVICE_LICENSE_PUBLIC_KEY,
    body,
    "the PEM's base64 body: one line, whatever the service user can read",
  );
  t.notMatch(
    readFileSync(join(w.etc, 'meet.env'), 'utf8'),
    /^# SERVICE_LICENSE_PUBLIC_KEY=/m,
    'in place of the example',
  );
  t.match(result.stdout, /SERVICE_LICENSE_PUBLIC_KEY=recorded \(environment\)/, 'the summary says so');
  const before = snapshot(w.root);
  rmSync(pub);
  const again = await runCli(
    [
      'install',
      'compat',
      '--config-dir',
      w.etc,
      '--data-dir',
      w.data,
      ...args,
      '--public-url',
      'https://meet.example.org',
    ],
    {},
  );
  t.equal(again.code, 0, `a second run without the variable verifies with the recorded key: ${again.stderr}`);
  t.same(snapshot(w.root), before, 'and changes no byte');
});

t.test('the daemon started from the env file alone starts the module; license show agrees', async (t) => {
  const { w, pub } = await installWithKeyFile(t);
  // The file the operator named is gone, as a key copied from a laptop would be: the env file holds the key itself.
  rmSync(pub);
  const daemon = await daemonFor(t, { dataDir: w.data, env: w.envFile() });
  await logMatch(daemon, /"msg":"compat listening/);
  t.match(
    logRecords(daemon).find((r) => typeof r.licence === 'string'),
    { licence: 'valid', customer: 'Private Ltd' },
    'the licence is valid for the daemon',
  );
  const shown = await runCli(['license', 'show', '--config-dir', w.etc, '--json'], {});
  t.equal(shown.code, 0, shown.stderr);
  t.match(JSON.parse(shown.stdout), { status: 'valid', customer: 'Private Ltd' });
});

t.test(
  'without a configured key, a private key reads as forged and every surface says which key checked it',
  async (t) => {
    const w = world(t);
    recordServerKey(w.data, await testServerKey());
    const shown = await runCli(['license', 'show', '--data-dir', w.data, '--config-dir', w.etc], {});
    t.equal(shown.code, 2, shown.stderr);
    t.match(shown.stderr, /forged.*checked against the built-in public key: SERVICE_LICENSE_PUBLIC_KEY is not set/);
    const doctor = await runCli(['doctor', '--config-dir', w.etc, '--json'], { SERVICE_DATA_DIR: w.data });
    const licence = (
      JSON.parse(doctor.stdout) as { checks: { id: string; status: string; hint?: string }[] }
    ).checks.find((c) => c.id === 'licence');
    t.match(licence, {
      status: 'fail',
      hint: /private licence authority, set SERVICE_LICENSE_PUBLIC_KEY in the env file/,
    });
  },
);
