// Issue 34 stage 3, point 1: `meetctl serve` with SERVICE_DATABASE_URL=postgres://… serves from
// PostgreSQL (a throwaway cluster): both schemas migrated at start, the rooms API, a knock and its
// admission, the meeting API's create/join/getMeetingInfo answer as on SQLite, the signing key is
// the database's, /readyz counts the store, and the data directory holds no SQLite file.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import postgres from 'postgres';
import { dataDirFor } from '../../helpers/api.js';
import { assertSuccess, compatDaemonFor, ConfapiClient } from '../../helpers/compat.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';
import { asSession, Browser, createRoom, moderator, names } from '../../helpers/waiting.js';

const secret = 'postgres-serve-secret-0c4e1a';

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

postgresTest('the daemon serves the engine and the meeting API from PostgreSQL, no SQLite file made', async (t) => {
  const db = await freshDatabase(t);
  const dataDir = dataDirFor(t);
  const daemon = await compatDaemonFor(t, {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_DATABASE_URL: db.url,
    COMPAT_API_SHARED_SECRET: secret,
  });
  const sql = postgres(db.options);
  t.teardown(() => sql.end());
  t.ok(
    daemon.lines.some((line) => line.includes('"msg":"serving from PostgreSQL"')),
    'the daemon says which store it serves from',
  );

  // The rooms API, a knock and its admission.
  const room = 'pg-room';
  await createRoom(t, daemon, { room_id: room, name: 'On PostgreSQL', waiting_room: 'all' });
  const got = await daemon.api(`/api/rooms/${room}`);
  t.equal(got.status, 200, 'the room reads back');
  t.match(await got.json(), { room_id: room, name: 'On PostgreSQL', waiting_room: 'all' });
  const mod = await moderator(daemon, room, 'Mo Postgres');
  const ann = new Browser(daemon, room);
  t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks');
  t.same((await ann.poll()).body, { status: 'waiting' }, 'and waits');
  const list = await asSession.list(daemon, room, mod.session);
  t.same(names(list), ['Ann'], 'the moderator sees her');
  const requestId = (list.body as { request_id: string }[])[0]!.request_id;
  t.same((await asSession.admit(daemon, room, mod.session, { request_id: requestId })).body, { admitted: 1 });
  t.match((await ann.poll()).body, { status: 'admitted', session: String }, 'Ann enters');
  const [row] = await sql<
    { state: string }[]
  >`SELECT state FROM meet_engine.waiting_requests WHERE request_id = ${requestId}`;
  t.equal(row?.state, 'admitted', 'the admission is a row of meet_engine');

  // The meeting API on its PostgreSQL store.
  const api = new ConfapiClient(daemon.compatUrl, secret);
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'pg-meeting'],
      ['name', 'A meeting on PostgreSQL'],
    ]),
    'create',
  );
  const joined = await api.get('join', [
    ['meetingID', 'pg-meeting'],
    ['fullName', 'Bea'],
    ['role', 'MODERATOR'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, 'join');
  t.match(String(joined.xml.url), /\/room\/cf-[0-9a-f]{32}\?t=/, 'join answers a link to the meeting room');
  const info = await api.get('getMeetingInfo', [['meetingID', 'pg-meeting']]);
  assertSuccess(t, info, 'getMeetingInfo');
  t.equal(info.xml.meetingName, 'A meeting on PostgreSQL');
  const meetings = await sql`SELECT meeting_id FROM meet_compat.compat_meetings`;
  t.same(
    meetings.map((m) => m.meeting_id),
    ['pg-meeting'],
    'the meeting is a row of meet_compat',
  );

  // Both schemas migrated, the signing key in the database, readiness counting the store.
  for (const schema of ['meet_engine', 'meet_compat']) {
    const [{ n } = { n: 0 }] = await sql.unsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${schema}.schema_migrations`,
    );
    t.ok(n > 0, `${schema} is migrated`);
  }
  const keys = await sql`SELECT id FROM meet_engine.signing_key`;
  t.equal(keys.length, 1, 'one signing key, in PostgreSQL');
  const ready = await fetch(`${daemon.url}/readyz`);
  t.equal(ready.status, 200);
  t.match(await ready.json(), { status: 'ready', checks: { database: 'ok' } }, '/readyz includes the store');

  const files = filesUnder(dataDir);
  t.same(
    files.filter((f) => /\.(sqlite|db)(-wal|-shm|-journal)?$|sqlite/.test(f)),
    [],
    `no SQLite file in the data directory (${files.join(', ')})`,
  );
  t.notOk(files.includes('signing-key'), 'nor a signing key file');
});
