// Issue 29, point 14: faults of the machine were reported as meetctl's bugs (exit 70, "this is
// a bug", a stack): a read-only data directory, SERVICE_MEDIA=janus without Janus, a file doctor
// may not read. They are environment errors: exit 69, one line naming the cause, a hint.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { dataDirFor, type Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { meetctl, runMeetctl, type CliResult } from '../../helpers/daemon.js';
import { healthy, type Report } from '../../helpers/doctor.js';
import { canMountPrivateTmpfs, privateTmpfsLauncher } from '../../helpers/private-tmpfs.js';

/** Runs meetctl through `prefix` (unshare, setpriv), without tap's loader: the run's user or mounts may not allow its files. */
function meetctlThrough(
  prefix: readonly string[],
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliResult> {
  const [file, ...argv] = ['env', '-u', 'NODE_OPTIONS', ...prefix, process.execPath, meetctl, ...args];
  return new Promise((resolve) => {
    execFile(
      file,
      argv,
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** Exit 69, the cause and a hint, nothing that calls it a bug, no stack. */
function assertEnvironment(t: Tap, result: CliResult, cause: RegExp, hint: RegExp): void {
  t.equal(result.code, 69, `exit 69: ${result.stderr}`);
  t.match(result.stderr, new RegExp(`^meetctl: .*${cause.source}`, 'm'));
  t.match(result.stderr, new RegExp(`^  hint: .*${hint.source}`, 'm'));
  t.notMatch(result.stderr, /this is a bug/);
  t.notMatch(result.stderr, /^\s+at /m, 'no stack');
}

t.test('serve with SERVICE_MEDIA=janus and no Janus: exit 69 naming the program, with what to do', async (t) => {
  const dir = dataDirFor(t);
  const result = await runMeetctl(['serve'], {
    SERVICE_DATA_DIR: dir,
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
    SERVICE_MEDIA: 'janus',
    SERVICE_JANUS_BIN: join(dir, 'no-janus'),
  });
  // The start's preflight (doctor's Janus check) finds it before the daemon loads: its words.
  assertEnvironment(
    t,
    result,
    /SERVICE_MEDIA=janus but .*no-janus.* is not an executable program/,
    /install Janus .*SERVICE_JANUS_BIN.*SERVICE_MEDIA=mesh/,
  );
});

const roMount = canMountPrivateTmpfs() ? false : 'needs root and unshare to mount the data directory read-only';

t.test(
  'a read-only data directory: serve and meetctl commands exit 69 naming the read-only filesystem',
  { skip: roMount },
  async (t) => {
    const dir = dataDirFor(t);
    // The service ran here before: its database exists, so SQLite, not a new file, meets the read-only mount first.
    const made = await runCli(['token', 'list', '--init', '--data-dir', dir]);
    t.equal(made.code, 0, made.stderr);
    // What ProtectSystem=strict does to a data directory the unit's ReadWritePaths= does not name.
    const readOnly = [
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
      dir,
    ];
    const serve = await meetctlThrough(readOnly, ['serve'], {
      SERVICE_DATA_DIR: dir,
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      SERVICE_MEDIA: 'mesh',
    });
    assertEnvironment(
      t,
      serve,
      new RegExp(`${dir}.*read-only`),
      /read-only filesystem: mount it read-write .*ReadWritePaths=/,
    );
    const tokens = await meetctlThrough(readOnly, ['token', 'list', '--data-dir', dir], {});
    assertEnvironment(t, tokens, new RegExp(`${dir}.*read-only`), /ReadWritePaths=/);
  },
);

t.test('a full disk under the data directory: exit 69 naming it', { skip: roMount }, async (t) => {
  const dir = dataDirFor(t);
  const full = privateTmpfsLauncher(dir, '64k', 'dd if=/dev/zero of="$0/fill" bs=4k count=100 2>/dev/null')([]);
  const created = await meetctlThrough(full, ['token', 'create', '--name', 'ops', '--init', '--data-dir', dir], {});
  assertEnvironment(
    t,
    created,
    new RegExp(`${dir}.*disk is full \\(ENOSPC\\)`),
    new RegExp(`the disk holding ${dir} is full`),
  );
});

const otherUser = process.getuid?.() === 0 ? false : 'root is needed to run doctor as another user';

t.test(
  'doctor run by a user who may not read the data directory: the checks say so, none calls it a bug',
  { skip: otherUser },
  async (t) => {
    const s = await healthy(t, { light: true });
    // The operator's own account, not the service's: the data directory (0700, root's) holds the licence record.
    const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
    const result = await meetctlThrough(nobody, s.args('--json'), { SERVICE_DATA_DIR: s.dataDir });
    t.equal(result.code, 1, `checks failed, doctor did not: ${result.stderr}`);
    const report = JSON.parse(result.stdout) as Report;
    const licence = report.checks.find((c) => c.id === 'licence');
    t.match(licence, {
      status: 'fail',
      detail: /EACCES/,
      hint: /uid 65534\) may not use .*run the command as the service's user .*or as root/,
    });
    for (const check of report.checks) t.notMatch(check.hint ?? '', /bug/, `${check.id}: not a bug`);
  },
);
