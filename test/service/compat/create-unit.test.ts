// Issue 30 point 4: `create` writes two databases, the meeting API's row and the engine's room.
// Since issue 34 the room is made inside the row's transaction (the store port's, see
// CompatMeetings.create): a failure of either write leaves neither, and a row left without its
// room (a process that died between them under an earlier version) is completed by the next
// start. Real SQLite files, real triggers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import t from 'tap';
import { startCompat } from '../../../src/compat/module.js';
import { SqliteCompatStore, compatDatabaseFileName } from '../../../src/compat/store/compat-store.js';
import { loadConfig } from '../../../src/config/load.js';
import { openServices } from '../../../src/daemon/services.js';
import { openStoreBundle } from '../../../src/daemon/store-bundle.js';
import { databaseFileName } from '../../../src/store/database.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { ConfapiClient, assertFailed, assertSuccess, type Pairs } from '../../helpers/compat.js';
import type { Tap } from '../../helpers/api.js';

const secret = 'create-unit-secret';

function configFor(t: Tap) {
  const dataDir = mkdtempSync(join(tmpdir(), 'meet-create-unit-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return loadConfig({
    env: { SERVICE_DATA_DIR: dataDir, COMPAT_HTTP_ADDR: '127.0.0.1:0', COMPAT_API_SHARED_SECRET: secret },
    configFile: null,
  });
}

/** Makes every INSERT into `table` of the database file fail from now on, as a full disk would. */
function refuseInserts(file: string, table: string): void {
  const db = new Database(file);
  db.exec(
    `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
  );
  db.close();
}

async function start(t: Tap, config: ReturnType<typeof configFor>) {
  const services = await openServices(config, await openStoreBundle(config));
  const compat = await startCompat(config, services, pino({ level: 'silent' }));
  t.teardown(async () => {
    await compat?.stop();
    await services.close();
  });
  if (!compat) throw new Error('the compat module did not start');
  return { services, api: new ConfapiClient(compat.url, secret) };
}

const create: Pairs = [
  ['meetingID', 'half'],
  ['name', 'Half made'],
];

/** Every engine room, listed or not. */
async function roomIds(services: Awaited<ReturnType<typeof openServices>>): Promise<string[]> {
  return (await services.rooms.list({ limit: '200' })).rooms.map((r) => r.roomId);
}

t.test("the meeting API's write fails: no engine room is left behind", async (t) => {
  const config = configFor(t);
  new SqliteCompatStore(config.compatApiDataDir).close();
  refuseInserts(join(config.compatApiDataDir, compatDatabaseFileName), 'compat_meetings');
  const { services, api } = await start(t, config);

  assertFailed(t, await api.get('create', create), 'internalError', 'create with a full meeting-API database');
  t.same(await roomIds(services), [], 'no room was left in the engine');
  assertFailed(t, await api.get('getMeetingInfo', [['meetingID', 'half']]), 'notFound', 'no meeting either');
});

t.test(
  "the engine's write fails: no meeting is left behind, and a retry creates it once the disk is back",
  async (t) => {
    const config = configFor(t);
    await (await openServices(config, await openStoreBundle(config))).close();
    const engineFile = join(config.dataDir, databaseFileName);
    refuseInserts(engineFile, 'rooms');
    const { services, api } = await start(t, config);

    assertFailed(t, await api.get('create', create), 'internalError', 'create with a full engine database');
    assertFailed(
      t,
      await api.get('getMeetingInfo', [['meetingID', 'half']]),
      'notFound',
      'no half-created meeting answers',
    );
    const store = new SqliteCompatStore(config.compatApiDataDir);
    t.same(store.openMeetings(), [], 'no row in the meeting-API database');
    store.close();

    const db = new Database(engineFile);
    db.exec('DROP TRIGGER refuse_rooms');
    db.close();
    const created = await api.get('create', create);
    assertSuccess(t, created, 'the retry');
    t.equal(created.xml?.messageKey, '', 'a new meeting, not a duplicate of a half-made one');
    t.equal((await roomIds(services)).length, 1, 'one room for it');
  },
);

t.test(
  'a process that died between the two writes leaves a row without its room: the next start makes the room',
  async (t) => {
    const config = configFor(t);
    await (await openServices(config, await openStoreBundle(config))).close();
    const store = new SqliteCompatStore(config.compatApiDataDir);
    const roomId = `cf-${'ab'.repeat(16)}`;
    store.insertMeeting(
      meeting('primary', 'half', Date.now(), { roomId, name: 'Half made', guestPolicy: 'ALWAYS_DENY' }),
    );
    store.close();

    const { services, api } = await start(t, config);
    t.match(
      await services.rooms.find(roomId),
      { name: 'Half made', entry: 'token', unlisted: true },
      'the room exists, as create would have made it',
    );
    const join = await api.get('join', [
      ['meetingID', 'half'],
      ['fullName', 'Ann'],
      ['role', 'MODERATOR'],
      ['redirect', 'false'],
    ]);
    assertSuccess(t, join, 'a join of the completed meeting');
  },
);
