// Issue 29, point 9: no version anywhere, and a downgrade ran on a database written by a
// newer release. `meetctl --version` prints the package's version, `serve` logs it first and
// /healthz reports it (test/service/http/health.test.ts); a database whose schema is newer than the
// code (the engine's and the meeting API's alike) refuses the start with exit 2, naming both
// versions, before anything is written. From the env file `meetctl install compat` wrote, as
// systemd starts the service: the refused starts are `meetctl serve` processes (their exit code
// and output are the point); the starts that succeed run the daemon in the test's process.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { compatDatabaseFileName } from '../../../src/compat/store/compat-store.js';
import { databaseFileName } from '../../../src/store/database.js';
import { openSqlite, readPragma, setPragma } from '../../../src/platform/sqlite.js';
import { logRecords, type Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { runMeetctl } from '../../helpers/daemon.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { world, type World } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The schema version the code's last migration leads to, from the file names (NNN-name.sql). */
function knownVersion(dir: string): number {
  return Math.max(
    ...readdirSync(fileURLToPath(new URL(dir, import.meta.url))).map((file) =>
      Number(/^(\d{3})-/.exec(file)?.[1] ?? 0),
    ),
  );
}

/** A machine with the compat module installed; the environment its service runs with, on free ports. */
async function installed(t: Tap): Promise<{ w: World; env: Record<string, string> }> {
  const w = world(t);
  const result = await w.install(['--key', await testServerKey(), '--no-open-rooms']);
  t.equal(result.code, 0, result.stderr);
  // The env file as systemd's EnvironmentFile= reads it; only the ports are moved off the shared 3000/8088.
  const env = {
    ...w.env,
    ...w.envFile(),
    SERVICE_MEDIA: 'mesh',
    SERVICE_HTTP_ADDR: '127.0.0.1:0',
    COMPAT_HTTP_ADDR: '127.0.0.1:0',
  };
  return { w, env };
}

function schemaOf(file: string): { version: number; objects: string[] } {
  const db = openSqlite(file, { readonly: true });
  try {
    const objects = (
      db.prepare('SELECT type, name FROM sqlite_schema ORDER BY type, name').all() as { type: string; name: string }[]
    ).map((row) => `${row.type} ${row.name}`);
    return { version: readPragma(db, 'user_version') as number, objects };
  } finally {
    db.close();
  }
}

function setSchemaVersion(file: string, version: number): void {
  const db = openSqlite(file);
  try {
    setPragma(db, 'user_version', version);
  } finally {
    db.close();
  }
}

t.test('meetctl --version prints the version of the package', async (t) => {
  // The process once, for its exit status and standard output; the short flag is the same
  // commander option, checked in this process.
  for (const [flag, run] of [
    ['--version', runMeetctl],
    ['-V', runCli],
  ] as const) {
    const result = await run([flag]);
    t.equal(result.code, 0, `${flag}: exit 0`);
    t.equal(result.stdout, `${packageVersion}\n`, `${flag}: the version alone, for scripts`);
  }
});

t.test(
  'serve logs its version first; a database newer than the code is refused with exit 2, both versions named',
  async (t) => {
    const { w, env } = await installed(t);
    const dataDir = env.SERVICE_DATA_DIR!;
    t.equal(dataDir, w.data, 'the env file names the data directory install made');

    const first = await inProcessDaemonFor(t, dataDir, env);
    const records = logRecords(first);
    t.match(
      records[0],
      { level: 30, version: packageVersion, msg: `meeting-service ${packageVersion} starting` },
      'the first line names the version',
    );
    t.ok(
      records.some((r) => /^compat listening/.test(String(r.msg))),
      'the installed module runs',
    );
    // Stopped as SIGTERM stops it, before the refused starts open the same databases.
    await first.stop();

    for (const [what, file, known] of [
      ['the engine database', join(dataDir, databaseFileName), knownVersion('../../../src/store/migrations')],
      [
        'the meeting API database',
        join(dataDir, 'compat-api', compatDatabaseFileName),
        knownVersion('../../../src/compat/store/migrations'),
      ],
    ] as const) {
      await t.test(what, async (t) => {
        const before = schemaOf(file);
        t.equal(before.version, known, 'migrated to what the code knows');
        setSchemaVersion(file, known + 1);
        const refused = await runMeetctl(['serve'], env);
        t.equal(refused.code, 2, 'exit 2, as a configuration problem');
        const name = file.split('/').pop()!;
        t.match(
          refused.stderr,
          `${name} has schema version ${known + 1}, newer than this version of the service knows (up to ${known})`,
          'both schema versions named',
        );
        t.match(refused.stderr, `meeting-service ${packageVersion}`, 'and the release that refused');
        t.match(refused.stderr, /restore the copy of the data directory taken before the upgrade/, 'and the way back');
        t.match(
          refused.stdout,
          `"msg":"meeting-service ${packageVersion} starting"`,
          'the log says which release refused',
        );
        t.same(schemaOf(file), { ...before, version: known + 1 }, 'nothing was written to it');
        setSchemaVersion(file, known);
      });
    }

    const again = await inProcessDaemonFor(t, dataDir, env);
    t.ok(again.url, 'with the schema it knows the service starts again');
    await again.stop();
  },
);
