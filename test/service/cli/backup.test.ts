// Issue 29, point 10: what `meetctl backup` writes (0700 directory, 0600 files, a manifest with
// sizes, SHA-256 and schema versions; the licence key when it is a file) and what `meetctl
// restore` refuses before writing anything: a non-empty data directory without --force (exit
// 1), a damaged or unfinished backup (exit 1), one of a newer schema (exit 2, as serve does), a
// manifest aiming outside its targets. Config files go back only into an explicit --config-dir.
// The backup of a running daemon under writes, restored and run: test/process/daemon/backup-restore.test.ts.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { engineSchemaVersion } from '../../../src/store/database.js';
import type { Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { snapshot } from '../../helpers/tree.js';
import { world, type World } from '../../helpers/install-world.js';
import { testAuthority, testServerKey } from '../../helpers/licence.js';

interface Entry {
  path: string;
  role: string;
  bytes: number;
  sha256: string;
  mode: string;
}
interface Manifest {
  product_version: string;
  created_at: string;
  schemas: Record<string, number>;
  files: Entry[];
}

const mode = (path: string) => statSync(path).mode & 0o777;
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;

/** An installed machine whose data directory has its database (a token made), with the licence key as a file; and a backup of it. */
async function backedUp(t: Tap): Promise<{ w: World; env: Record<string, string>; out: string; token: string }> {
  const w = world(t);
  t.equal((await w.install(['--key', await testServerKey(), '--no-open-rooms'])).code, 0);
  const made = await runCli(['token', 'create', '--name', 'ops', '--init', '--data-dir', w.data]);
  t.equal(made.code, 0, made.stderr);
  const keyFile = join(w.keys, 'licence.pub');
  writeFileSync(keyFile, testAuthority().publicKeyPem);
  const env = { SERVICE_CONFIG_DIR: w.etc, SERVICE_LICENSE_PUBLIC_KEY: `@${keyFile}` };
  const out = join(w.root, 'backups', 'first');
  const result = await runCli(['backup', '--out', out], env);
  t.equal(result.code, 0, result.stderr);
  return { w, env, out, token: made.stdout.trim() };
}

t.test('backup: a private directory, every file described by the manifest', async (t) => {
  const { w, out, token } = await backedUp(t);
  t.equal(mode(out), 0o700, 'the directory is 0700');
  const manifest = manifestOf(out);
  t.match(manifest, { product_version: /^\d+\.\d+\.\d+/, created_at: /^\d{4}-\d\d-\d\dT/ });
  t.same(manifest.schemas, { 'data/meet.sqlite': engineSchemaVersion() }, 'the schema version of the database');
  t.same(
    manifest.files.map((f) => f.path).sort(),
    [
      'config/licence.pub',
      'config/meet.env',
      'config/room-defaults.toml',
      'data/meet.sqlite',
      'data/modules/compat.json',
      'data/signing-key',
    ],
    'database, keys, installation record, env file, room-defaults.toml, the licence key file',
  );
  for (const file of [...manifest.files.map((f) => f.path), 'manifest.json'])
    t.equal(mode(join(out, file)), 0o600, `${file} is 0600`);
  for (const entry of manifest.files) {
    const bytes = readFileSync(join(out, entry.path));
    t.equal(entry.bytes, bytes.length, `${entry.path}: its size`);
    t.equal(entry.sha256, createHash('sha256').update(bytes).digest('hex'), `${entry.path}: its SHA-256`);
  }
  t.equal(manifest.files.find((f) => f.path === 'config/meet.env')?.mode, '600', "the env file's own mode is recorded");
  t.equal(
    readFileSync(join(out, 'data', 'signing-key'), 'utf8'),
    readFileSync(join(w.data, 'signing-key'), 'utf8'),
    'the signing key itself',
  );
  const again = await runCli(['backup', '--out', out], { SERVICE_CONFIG_DIR: w.etc });
  t.equal(again.code, 1, 'a non-empty --out is refused (two backups never mix)');
  t.match(again.stderr, `${out} is not empty`);
  t.notOk(`${again.stdout}${again.stderr}`.includes(token), 'no secret printed');
  const nowhere = await runCli(['backup', '--out', join(w.root, 'none'), '--data-dir', join(w.root, 'no-data')], {
    SERVICE_CONFIG_DIR: w.etc,
  });
  t.equal(nowhere.code, 1, 'a data directory without a database is refused');
  t.match(nowhere.stderr, /meet\.sqlite does not exist/);
  t.notOk(existsSync(join(w.root, 'none')), 'and no directory made');
  const noEnv = await runCli(['backup', '--out', join(w.root, 'none'), '--env-file', join(w.etc, 'other.env')]);
  t.equal(noEnv.code, 2, 'an --env-file that does not exist is refused');
  t.match(noEnv.stderr, `--env-file ${join(w.etc, 'other.env')} cannot be read (it does not exist)`);
});

t.test(
  'restore: into an empty directory; config files only with --config-dir; a non-empty one only with --force',
  async (t) => {
    const { w, out } = await backedUp(t);
    const data = join(w.root, 'new-data');
    const restored = await runCli(['restore', '--from', out, '--data-dir', data]);
    t.equal(restored.code, 0, restored.stderr);
    t.same(readdirSync(data).sort(), ['meet.sqlite', 'modules', 'signing-key'], 'the data directory as it was');
    t.equal(mode(data), 0o700, 'the data directory is 0700');
    for (const file of ['meet.sqlite', 'signing-key', 'modules/compat.json'])
      t.equal(mode(join(data, file)), 0o600, `${file} is 0600`);
    t.equal(
      readFileSync(join(data, 'meet.sqlite')).compare(readFileSync(join(out, 'data', 'meet.sqlite'))),
      0,
      'the database as backed up',
    );
    t.match(
      restored.stderr,
      'not restored (pass --config-dir to put them back): meet.env, room-defaults.toml, licence.pub',
      'the config files are named, not written',
    );

    const before = snapshot(data);
    const refused = await runCli(['restore', '--from', out, '--data-dir', data]);
    t.equal(refused.code, 1, 'a non-empty data directory is refused');
    t.match(refused.stderr, `${data} is not empty; nothing was restored`);
    t.match(refused.stderr, /--force/);
    t.same(snapshot(data), before, 'nothing written');

    writeFileSync(join(data, 'meet.sqlite-wal'), 'a WAL of the database being replaced');
    writeFileSync(join(data, 'signing-key'), 'another key\n');
    const forced = await runCli(['restore', '--from', out, '--data-dir', data, '--force']);
    t.equal(forced.code, 0, forced.stderr);
    t.equal(
      readFileSync(join(data, 'signing-key'), 'utf8'),
      readFileSync(join(out, 'data', 'signing-key'), 'utf8'),
      '--force puts the backed-up key back',
    );
    t.notOk(
      existsSync(join(data, 'meet.sqlite-wal')),
      "and removes the replaced database's WAL, which SQLite would replay onto it",
    );

    const etc = join(w.root, 'new-etc');
    const withConfig = await runCli([
      'restore',
      '--from',
      out,
      '--data-dir',
      join(w.root, 'third'),
      '--config-dir',
      etc,
    ]);
    t.equal(withConfig.code, 0, withConfig.stderr);
    t.same(
      readdirSync(etc).sort(),
      ['licence.pub', 'meet.env', 'room-defaults.toml'],
      'the config files under their names',
    );
    t.equal(
      readFileSync(join(etc, 'meet.env'), 'utf8'),
      readFileSync(join(w.etc, 'meet.env'), 'utf8'),
      'the env file as it was',
    );
    t.equal(mode(join(etc, 'meet.env')), 0o600, 'with its mode');
    const overConfig = await runCli([
      'restore',
      '--from',
      out,
      '--data-dir',
      join(w.root, 'fourth'),
      '--config-dir',
      etc,
    ]);
    t.equal(overConfig.code, 1, 'an existing config file is not replaced without --force');
    t.match(overConfig.stderr, `${join(etc, 'meet.env')} exists`);
    t.notOk(existsSync(join(w.root, 'fourth')), 'and nothing written');
  },
);

/** A copy of the backup `out`, changed by `change`, in a new directory. */
function damaged(w: World, out: string, name: string, change: (dir: string) => void): string {
  const dir = join(w.root, 'backups', name);
  cpSync(out, dir, { recursive: true });
  change(dir);
  return dir;
}

function rewriteManifest(dir: string, edit: (m: Manifest) => void): void {
  const manifest = manifestOf(dir);
  edit(manifest);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

t.test('restore refuses a damaged, unfinished, newer or misaimed backup before writing anything', async (t) => {
  const { w, out } = await backedUp(t);
  const cases: [string, string, number, RegExp][] = [
    [
      'a changed byte',
      // The first character changed for another: a random key may begin with any one (1 run in 64 began with X).
      damaged(w, out, 'flipped', (dir) => {
        const key = readFileSync(join(dir, 'data', 'signing-key'), 'utf8');
        writeFileSync(join(dir, 'data', 'signing-key'), (key.startsWith('X') ? 'Y' : 'X') + key.slice(1));
      }),
      1,
      /the backup is damaged: data\/signing-key differs from manifest\.json/,
    ],
    [
      'a missing file',
      damaged(w, out, 'missing', (dir) => rmSync(join(dir, 'data', 'signing-key'))),
      1,
      /the backup is damaged: data\/signing-key is missing/,
    ],
    [
      'an empty manifest',
      damaged(w, out, 'unfinished', (dir) => writeFileSync(join(dir, 'manifest.json'), '')),
      1,
      /damaged: manifest\.json is not JSON/,
    ],
    [
      'a path outside its place',
      damaged(w, out, 'escaping', (dir) =>
        rewriteManifest(dir, (m) => (m.files[0]!.path = 'data/../../../etc/passwd')),
      ),
      1,
      /lists an entry it should not/,
    ],
    [
      'a newer schema',
      damaged(w, out, 'newer', (dir) => {
        const file = join(dir, 'data', 'meet.sqlite');
        const bytes = readFileSync(file);
        bytes.writeUInt32BE(engineSchemaVersion() + 1, 60);
        writeFileSync(file, bytes);
        // As a newer release's backup would be: consistent, with its own manifest.
        rewriteManifest(dir, (m) => {
          const entry = m.files.find((f) => f.path === 'data/meet.sqlite')!;
          entry.sha256 = createHash('sha256').update(bytes).digest('hex');
        });
      }),
      2,
      new RegExp(
        `data/meet\\.sqlite has schema version ${engineSchemaVersion() + 1}, newer than this version of the service knows \\(up to ${engineSchemaVersion()}\\)`,
      ),
    ],
  ];
  for (const [what, from, code, message] of cases) {
    const data = join(w.root, `restore-${what.replace(/\W+/g, '-')}`);
    const etc = `${data}-etc`;
    const result = await runCli(['restore', '--from', from, '--data-dir', data, '--config-dir', etc]);
    t.equal(result.code, code, `${what}: exit ${code}`);
    t.match(result.stderr, message, `${what}: says what is wrong`);
    t.match(result.stderr, /nothing was restored/, `${what}: and that nothing was restored`);
    t.notOk(existsSync(data) || existsSync(etc), `${what}: nothing written`);
  }
  mkdirSync(join(w.root, 'empty-backup'));
  const none = await runCli(['restore', '--from', join(w.root, 'empty-backup'), '--data-dir', join(w.root, 'x')]);
  t.equal(none.code, 1, 'a directory without a manifest is refused');
  t.match(
    none.stderr,
    /manifest\.json cannot be read \(ENOENT\): not a backup made by meetctl backup, or one that did not finish/,
  );
  const usage = await runCli(['restore', '--from', out]);
  t.equal(usage.code, 64, '--data-dir is required');
  t.match(usage.stderr, /--data-dir/);
});

t.test('backup on a PostgreSQL installation: refused, naming pg_dump, nothing written', async (t) => {
  const w = world(t);
  const out = join(w.root, 'backups', 'pg');
  const result = await runCli(['backup', '--out', out, '--data-dir', w.data], {
    SERVICE_DATABASE_URL: 'postgres://meet@db.example.org:5433/meetdb',
  });
  t.equal(result.code, 1, 'refused');
  t.match(result.stderr, /keeps its state in PostgreSQL .*db\.example\.org:5433\/meetdb/);
  t.match(result.stderr, /pg_dump -Fc -n meet_engine -n meet_compat meetdb/, 'the hint names the tool and the schemas');
  t.notOk(existsSync(out), 'no backup directory made');
});
