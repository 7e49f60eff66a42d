// Issue 29, point 10: no backup or restore. `meetctl backup --out DIR` is taken from a service
// started from the env file `meetctl install compat` wrote (as systemd starts it) while rooms are
// created and people knock; `meetctl restore` puts it into a new data directory and a second
// daemon starts on it: the rooms, an access token, the meeting-API meeting and the signing key
// (a link and a join issued before the backup still verify) are all there. That second daemon
// runs in this test's process (issue 30 point 1): what it reads is the restored directory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { compatDatabaseFileName } from '../../../src/compat/store/compat-store.js';
import { parseEnvFile } from '../../../src/ops/env-file.js';
import { databaseFileName } from '../../../src/store/database.js';
import { openSqlite } from '../../../src/platform/sqlite.js';
import { call, rooms, stopGracefully } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { ConfapiClient, assertSuccess, logMatch, roomAndToken, startWithToken } from '../../helpers/compat.js';
import { runMeetctl, startDaemon } from '../../helpers/daemon.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { Browser, linkToken } from '../../helpers/waiting.js';

const freePorts = { SERVICE_MEDIA: 'mesh', SERVICE_HTTP_ADDR: '127.0.0.1:0', COMPAT_HTTP_ADDR: '127.0.0.1:0' };

/** What SQLite itself says of a restored database: no damaged page, no row pointing at a missing one. */
function soundness(file: string, rooms = false): { integrity: unknown; foreignKeys: unknown[]; rooms: string[] } {
  const db = openSqlite(file, { readonly: true });
  try {
    return {
      integrity: db.prepare('PRAGMA integrity_check').pluck().get(),
      foreignKeys: db.prepare('PRAGMA foreign_key_check').all(),
      rooms: rooms ? (db.prepare('SELECT room_id FROM rooms').pluck().all() as string[]) : [],
    };
  } finally {
    db.close();
  }
}

t.test(
  'a backup taken while the service writes restores into a new data directory that a daemon runs on',
  async (t) => {
    const w = world(t);
    const installed = await w.install(['--key', await testServerKey(), '--no-open-rooms']);
    t.equal(installed.code, 0, installed.stderr);
    const added = await runCli(['tenant', 'add', 'moodle', '--config-dir', w.etc], w.env);
    t.equal(added.code, 0, added.stderr);
    const fromFile = w.envFile();
    const env = { ...w.env, ...fromFile, ...freePorts };
    const d1 = await startDaemon({ dataDir: fromFile.SERVICE_DATA_DIR!, env });
    t.teardown(() => stopGracefully(d1));
    const compat1 = (await logMatch(d1, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;

    // What must survive: a room with a moderator link, an access token, a meeting-API meeting and its join.
    t.equal((await rooms.create(d1, { room_id: 'kept', name: 'Kept room' })).status, 201);
    const link = await linkToken(d1, 'kept', { role: 'moderator' });
    const token = await runCli(['token', 'create', '--name', 'ops', '--data-dir', w.data], env);
    t.equal(token.code, 0, token.stderr);
    const opsToken = token.stdout.trim();
    const api1 = new ConfapiClient(compat1, fromFile.COMPAT_API_SHARED_SECRET!);
    const meeting = [
      ['meetingID', 'course-101'],
      ['name', 'Course 101'],
      ['moderatorPW', 'moderator-password-101'],
      ['attendeePW', 'attendee-password-101'],
    ] as const;
    assertSuccess(t, await api1.get('create', meeting), 'meeting-API create');
    const joined = await fetch(
      api1.url('join', [
        ['meetingID', 'course-101'],
        ['fullName', 'Ada Teacher'],
        ['password', 'moderator-password-101'],
      ]),
      {
        redirect: 'manual',
      },
    );
    t.equal(joined.status, 302, 'join redirects');
    const entry = roomAndToken(joined.headers.get('location')!);

    // Writes all through the backup: rooms made and knocked at, one after the other.
    const acknowledged: string[] = [];
    let writing = true;
    const writer: Promise<unknown> = (async () => {
      for (let i = 0; writing; i++) {
        const id = `busy-${i}`;
        const made = await rooms.create(d1, { room_id: id, name: `Busy ${i}`, waiting_room: 'all' });
        if (made.status !== 201) throw new Error(`room ${id}: ${made.status} ${made.text}`);
        acknowledged.push(id);
        const knock = await new Browser(d1, id, { forwardedFor: `10.9.${(i >> 8) & 255}.${i & 255}` }).knock({
          name: `Guest ${i}`,
        });
        if (knock.status !== 202) throw new Error(`knock ${id}: ${knock.status} ${knock.text}`);
      }
    })().catch((err: unknown) => err);
    while (acknowledged.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = [...acknowledged];
    const out = join(w.root, 'backup');
    // Its own process, as an operator runs it beside the service.
    const backup = await runMeetctl(['backup', '--out', out, '--env-file', join(w.etc, 'meet.env')], w.env);
    const during = acknowledged.length;
    writing = false;
    t.equal(await writer, undefined, 'every write was acknowledged');
    t.equal(backup.code, 0, backup.stderr);
    t.ok(
      acknowledged.length > before.length,
      `rooms were made while the backup ran (${before.length} before it, ${during} at its end)`,
    );
    for (const value of [fromFile.COMPAT_API_SHARED_SECRET!, fromFile.COMPAT_JITSI_APP_SECRET!, opsToken])
      t.notOk(`${backup.stdout}${backup.stderr}`.includes(value), 'no secret printed');
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      files: { path: string; role: string }[];
    };
    t.same(
      manifest.files.map((f) => f.role).sort(),
      [
        'compat-database',
        'engine-database',
        'env-file',
        'initial-admin-token',
        'installation',
        'room-defaults',
        'signing-key',
        'tenants-file',
      ],
      'both databases, the keys and records, the operator files',
    );

    const data2 = join(w.root, 'restored-data');
    const etc2 = join(w.root, 'restored-etc');
    const restored = await runCli(['restore', '--from', out, '--data-dir', data2, '--config-dir', etc2]);
    t.equal(restored.code, 0, restored.stderr);
    t.match(
      restored.stderr,
      `names SERVICE_DATA_DIR=${w.data}, but the data went to ${data2}`,
      'the env file naming the old place is pointed out',
    );

    const engine = soundness(join(data2, databaseFileName), true);
    t.equal(engine.integrity, 'ok', 'the engine database is whole');
    t.same(engine.foreignKeys, [], 'every knock and meeting points at its room');
    t.equal(
      soundness(join(data2, 'compat-api', compatDatabaseFileName)).integrity,
      'ok',
      'the meeting API database is whole',
    );
    for (const id of ['kept', ...before])
      t.ok(engine.rooms.includes(id), `${id}, acknowledged before the backup, is in it`);
    // The writer waits for each answer before the next room: a snapshot holds busy-0 … busy-k, no gap, at most one unanswered.
    const busy = engine.rooms.filter((id) => id.startsWith('busy-'));
    t.same(
      busy.sort(),
      Array.from({ length: busy.length }, (_, i) => `busy-${i}`).sort(),
      'one moment of the service: every room up to the last, none missing',
    );
    t.ok(busy.length <= during + 1, 'and nothing that was not made');

    const underService = await runCli(['restore', '--from', out, '--data-dir', w.data, '--force']);
    t.equal(underService.code, 1, 'not even --force restores under a running service');
    t.match(underService.stderr, /\.sqlite is open in a running service; nothing was restored/);
    t.equal((await rooms.create(d1, { room_id: 'after', name: 'After' })).status, 201, 'which goes on');

    await stopGracefully(d1);
    const env2 = {
      ...w.env,
      ...parseEnvFile(readFileSync(join(etc2, 'meet.env'), 'utf8')),
      SERVICE_DATA_DIR: data2,
      SERVICE_CONFIG_FILE: join(etc2, 'room-defaults.toml'),
      SERVICE_TENANTS_FILE: join(etc2, 'tenants.toml'),
      ...freePorts,
    };
    const d2 = await inProcessDaemonFor(t, data2, env2);
    const compat2 = (await logMatch(d2, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;

    t.equal(
      (await call(d2, '/api/rooms/kept', { token: opsToken })).status,
      200,
      'the access token made before the backup works',
    );
    t.equal((await call(d2, '/api/rooms/kept', { token: d1.adminToken })).status, 200, 'and the first admin token');
    const entered = await call(d2, '/room/kept/start', {
      method: 'POST',
      token: null,
      json: { name: 'Mod Erator', t: link },
    });
    t.equal(entered.status, 200, `the moderator link issued before verifies (signing key restored): ${entered.text}`);
    t.equal(entered.body?.status, 'joined');
    const info = await new ConfapiClient(compat2, fromFile.COMPAT_API_SHARED_SECRET!).get('getMeetingInfo', [
      ['meetingID', 'course-101'],
    ]);
    assertSuccess(t, info, 'the meeting-API meeting is there');
    t.equal(info.xml?.meetingName, 'Course 101');
    const started = await startWithToken(d2, entry.roomId, entry.token, 'Ada Teacher');
    t.equal(started.status, 200, 'the join issued before the backup still enters the meeting');
    const moodle = new ConfapiClient(
      compat2,
      parseEnvFile(readFileSync(join(etc2, 'meet.env'), 'utf8')).COMPAT_API_SHARED_SECRET!,
    );
    assertSuccess(t, await moodle.get('getMeetings'), 'the primary secret from the restored env file');
  },
);
