// Issue 29, point 4: meetctl run as root (a licence renewal, a re-install, `serve` once by
// hand) left root-owned files in directories of the service's user: the module refused its
// record at the next start, the daemon's Janus folder could not be replaced (so the service fell
// back to the mesh), and `sudo -u meet meetctl tenant …` could not read meet.env. What root
// writes now keeps the owner of the file it replaces, or takes the owner of its directory, and
// doctor's "File owners" compares them with the unit's user.
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { daemonFor, logRecords, stopGracefully, type Tap } from '../../helpers/api.js';
import { logMatch } from '../../helpers/compat.js';
import { meetctl, type CliResult } from '../../helpers/daemon.js';
import { doctorJson, healthy } from '../../helpers/doctor.js';
import { world } from '../../helpers/install-world.js';
import { janusMissing } from '../../helpers/janus.js';
import { testServerKey } from '../../helpers/licence.js';

/** The service's user of these tests: no name, as a uid only root can hand files to. */
const serviceUid = 12345;
/** Debian's `nobody`, for the checks that resolve a user name. */
const nobody = 65534;
const needsRoot =
  process.getuid?.() === 0 ? false : 'root is needed to run meetctl as root and hand files to another user';

/**
 * Runs `command` as the service's user (what `sudo -u meet` or systemd's User= does), without
 * tap's loader in NODE_OPTIONS: that user may not write the coverage folder of the checkout.
 */
const asServiceUser = (command: readonly string[]): readonly string[] => [
  'env',
  '-u',
  'NODE_OPTIONS',
  'setpriv',
  `--reuid=${serviceUid}`,
  `--regid=${serviceUid}`,
  '--clear-groups',
  ...command,
];

function meetctlAsServiceUser(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const [file, ...argv] = asServiceUser([process.execPath, meetctl, ...args]);
  return new Promise((resolve) => {
    execFile(
      file!,
      argv,
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** Every path under `root` (itself included) whose owner is not `uid`, with the owner it has. */
function notOwnedBy(root: string, uid: number): string[] {
  const stat = lstatSync(root);
  const here = stat.uid === uid ? [] : [`${root} (uid ${stat.uid})`];
  if (!stat.isDirectory()) return here;
  return [...here, ...readdirSync(root).flatMap((entry) => notOwnedBy(join(root, entry), uid))];
}

function chownTree(root: string, uid: number): void {
  chownSync(root, uid, uid);
  if (lstatSync(root).isDirectory()) for (const entry of readdirSync(root)) chownTree(join(root, entry), uid);
}

/** A directory of the service's user (0700), under folders its processes may pass through. */
function serviceDirectory(t: Tap, path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chownSync(path, serviceUid, serviceUid);
  for (let up = dirname(path); up !== dirname(up) && up.startsWith(tmpdir()) && up !== tmpdir(); up = dirname(up))
    chmodSync(up, 0o755);
  t.ok(existsSync(path));
  return path;
}

t.test(
  'install, a licence renewal and a re-install as root leave the files to the service user, whose daemon then starts the module',
  { skip: needsRoot },
  async (t) => {
    const w = world(t);
    serviceDirectory(t, w.etc);
    serviceDirectory(t, w.data);
    const args = ['--yes', '--no-open-rooms', '--http-addr', '127.0.0.1:0', '--compat-http-addr', '127.0.0.1:0'];
    const first = await w.install(['--key', await testServerKey(), ...args]);
    t.equal(first.code, 0, first.stderr);
    // The README's renewal: the same command with the new key.
    const renewal = await w.install(['--key', await testServerKey({ customer: 'Renewed' }), ...args]);
    t.equal(renewal.code, 0, renewal.stderr);
    t.match(renewal.stdout, /compat\.json/, 'the renewal rewrote the licence record');
    t.same(
      notOwnedBy(w.etc, serviceUid),
      [],
      "meet.env, room-defaults.toml and the tenants file are the service user's",
    );
    t.same(notOwnedBy(w.data, serviceUid), [], "modules/ and modules/compat.json are the service user's");

    const listed = await meetctlAsServiceUser(['tenant', 'list', '--config-dir', w.etc], {});
    t.equal(listed.code, 0, `sudo -u meet meetctl tenant list reads meet.env: ${listed.stderr}`);
    const added = await meetctlAsServiceUser(['tenant', 'add', 'acme', '--config-dir', w.etc], {});
    t.equal(added.code, 0, `and tenant add replaces the tenants file: ${added.stderr}`);

    // As systemd starts it: the env file install wrote, the unit's user.
    const daemon = await daemonFor(t, { dataDir: w.data, env: w.envFile(), launcher: asServiceUser });
    await logMatch(daemon, /"msg":"compat listening/);
    t.match(
      logRecords(daemon).find((r) => typeof r.licence === 'string'),
      { licence: 'valid', customer: 'Renewed' },
      'the module reads the renewed record',
    );
  },
);

t.test(
  'serve run once as root leaves the data directory to its owner: the service user’s start runs Janus, not the mesh',
  { skip: needsRoot || janusMissing || false },
  async (t) => {
    const base = mkdtempSync(join(tmpdir(), 'meet-owner-'));
    t.teardown(() => rmSync(base, { recursive: true, force: true }));
    const data = serviceDirectory(t, join(base, 'data'));
    const asRoot = await daemonFor(t, { dataDir: data, env: { SERVICE_MEDIA: 'janus' } });
    t.ok(existsSync(join(data, 'meet.sqlite-wal')), 'the database is open in WAL mode');
    t.same(
      notOwnedBy(data, serviceUid),
      [],
      'while it runs: the database with its -wal and -shm, the signing key, the first admin token, janus/',
    );
    t.equal(await stopGracefully(asRoot), 0);
    t.ok(existsSync(join(data, 'janus', 'janus.jcfg')), "root's Janus configuration is there");
    t.same(notOwnedBy(data, serviceUid), [], 'and after it stopped');

    const own = await daemonFor(t, { dataDir: data, env: { SERVICE_MEDIA: 'auto' }, launcher: asServiceUser });
    const media = logRecords(own).filter((r) => typeof r.msg === 'string' && /Janus/.test(r.msg));
    t.match(
      media.map((r) => r.msg),
      ['meetings use the Janus SFU'],
      `the service user's start replaces the Janus configuration and runs Janus: ${JSON.stringify(media)}`,
    );
  },
);

t.test(
  "doctor's File owners: what is not the unit's user's is named, with the chown that fixes it",
  { skip: needsRoot },
  async (t) => {
    const s = await healthy(t, { light: true });
    // As after the README's `chown -R meet:meet`, but for one file a command run as root replaced.
    chownTree(s.dataDir, nobody);
    chownTree(s.configDir, nobody);
    const record = join(s.dataDir, 'modules', 'compat.json');
    chownSync(record, 0, 0);
    const before = await doctorJson(t, s, ['--service-user', 'nobody']);
    t.match(before.byId.get('ownership'), {
      status: 'fail',
      detail: new RegExp(`not owned by nobody \\(uid ${nobody}\\).*${record.replace(/[.]/g, '\\.')} \\(uid 0\\)`),
      hint: new RegExp(`chown -R nobody:nobody ${s.dataDir}$|chown -R nobody:nobody ${s.dataDir} `),
    });
    t.equal(before.result.code, 1, 'a failed check');
    chownSync(record, nobody, nobody);
    // The unit install wrote names the user (User=), as it does on a real machine.
    const unit = join(s.root, 'owner.service');
    writeFileSync(unit, '[Service]\nUser=nobody\nGroup=nobody\nExecStart=/bin/true\n');
    const after = await doctorJson(t, s, ['--unit-file', unit]);
    t.match(after.byId.get('ownership'), {
      status: 'ok',
      detail: new RegExp(`belong to nobody \\(uid ${nobody}\\).*User= of ${unit}`),
    });
    const noUnit = await doctorJson(t, s);
    t.match(
      noUnit.byId.get('ownership'),
      { status: 'skip', detail: /--service-user/ },
      'no unit, no flag: nothing to compare with',
    );
  },
);
