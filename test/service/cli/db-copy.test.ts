// Issue 34 point 6: `meetctl db copy --from sqlite: --to postgres://…`. A populated installation
// (rooms, a bar, a waiting request, a meeting with its timeline, a meeting-API meeting, the signing
// key file) reads back the same through the PostgreSQL stores, the key never printed; a non-empty
// target is refused and left as it was; a running service is refused; a password in the URL is
// refused before any connection; a key file without a key is refused; an unreachable target is
// the machine's problem (69).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { plainMeeting } from '../../../src/compat/confapi/model.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';
import { loadOrCreateSigningKey, postgresSigningKey } from '../../../src/daemon/signing-key.js';
import type { TimelineEntry } from '../../../src/engine/meetings/timeline.js';
import { newWaitingRequest, type WaitingRequest } from '../../../src/engine/waiting/waiting-request.js';
import { openPostgres } from '../../../src/platform/postgres.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { openDatabase } from '../../../src/store/database.js';
import { engineSchema } from '../../../src/store/postgres/schema.js';
import { postgresStores } from '../../../src/store/postgres/stores.js';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/net.js';
import { freshDatabase, postgresTest, type PostgresDatabase } from '../../helpers/postgres.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');
const iso = (ms: number) => new Date(t0 + ms).toISOString();

const knock = (requestId: string, atMs: number): WaitingRequest =>
  newWaitingRequest({
    requestId,
    meetingId: 'm-1',
    secretHash: createHash('sha256').update(requestId).digest('base64url'),
    name: `Zoë ${requestId}`,
    note: `note of ${requestId}`,
    avatarUrl: null,
    nowMs: t0 + atMs,
    timeoutMs: 600_000,
  });

const entry = (kind: TimelineEntry['kind'], atMs: number, r: WaitingRequest): TimelineEntry => ({
  meetingId: 'm-1',
  at: iso(atMs),
  kind,
  actor: { kind: 'api', participantId: null, name: 'lms' },
  subject: { requestId: r.requestId, participantId: r.participantId, name: r.name },
  count: null,
});

function installation(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-dbcopy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

/** A stopped installation: two rooms, a meeting with a barred guest, a waiting one and their timeline, a meeting-API meeting. */
async function populate(dataDir: string) {
  const db = openDatabase(dataDir);
  const stores = sqliteAsyncStores(db);
  const rooms = [waitingRoomFixture('room-a'), waitingRoomFixture('room-b')];
  for (const room of rooms) await stores.rooms.insert(room);
  const meeting = {
    meetingId: 'm-1',
    roomId: 'room-a',
    startedAt: iso(0),
    endedAt: null,
    waitingDisabled: false,
    subject: 'Ünterricht',
  };
  await stores.meetings.insertMeeting(meeting);
  const barred: WaitingRequest = { ...knock('r-barred', 5), state: 'barred', decidedAt: iso(9) };
  const waiting = knock('r-waiting', 7);
  await stores.waitingRequests.insertKnock(knock('r-barred', 5));
  await stores.waitingRequests.updateRequest(barred);
  await stores.waitingRequests.insertKnock(waiting);
  const timeline = [entry('bar', 9, barred), entry('subject_changed', 10, waiting)];
  for (const e of timeline) await stores.meetings.appendTimeline(e);
  // What the SQLite stores read back: the copy must read back the same.
  const read = {
    pollable: await stores.waitingRequests.pollableRequests('m-1'),
    refused: await stores.waitingRequests.refusedRequests('m-1'),
    timeline: await stores.meetings.timelineOf('m-1'),
  };
  db.close();
  const compat = new SqliteCompatStore(join(dataDir, 'compat-api'));
  const compatMeeting = plainMeeting({
    internalId: 'int-1',
    tenantId: 'default',
    meetingId: 'course-7',
    roomId: 'room-b',
    name: 'Course 7',
    createTime: t0,
  });
  compat.insertMeeting(compatMeeting);
  compat.close();
  return { rooms, meeting, barred, waiting, read };
}

const env = (dataDir: string) => ({ SERVICE_DATA_DIR: dataDir });

function admin(t: Test, database: PostgresDatabase) {
  const sql = postgres({ ...database.options, onnotice: () => {} });
  t.teardown(() => sql.end());
  return sql;
}

postgresTest('a populated installation is copied and reads back the same through the PostgreSQL stores', async (t) => {
  const database = await freshDatabase(t);
  const dataDir = installation(t);
  const made = await populate(dataDir);
  const key = Buffer.from(loadOrCreateSigningKey(dataDir));
  const result = await runCli(['db', 'copy', '--from', 'sqlite:', '--to', database.url], env(dataDir));
  t.equal(result.code, 0, result.stderr);
  for (const form of ['base64url', 'base64', 'hex'] as const)
    t.notMatch(result.stdout + result.stderr, key.toString(form), `the key (${form}) is never printed`);
  t.match(result.stdout, 'meet_engine.signing_key: 1 rows\n');
  t.match(result.stdout, 'the signing key is in the database now, so tokens signed before the move still verify');
  t.match(result.stdout, 'meet_engine.rooms: 2 rows\n');
  t.match(result.stdout, 'meet_engine.waiting_requests: 2 rows\n');
  t.match(result.stdout, 'meet_compat.');
  t.match(result.stdout, /copied \d+ rows in \d+ tables into PostgreSQL/);

  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: null };
  const sql = openPostgres(target, { max: 2, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  t.same(await postgresSigningKey(sql).getOrCreate(), key, 'the key file became the row every node reads');
  const stores = postgresStores(sql);
  t.same(await stores.rooms.get('room-a'), made.rooms[0]);
  t.same(await stores.rooms.get('room-b'), made.rooms[1]);
  t.same(await stores.meetings.getMeeting('m-1'), made.meeting);
  const pollable = await stores.waitingRequests.pollableRequests('m-1');
  t.same(pollable, made.read.pollable, 'the waiting request and the bar, whole');
  t.same(
    pollable.map((r) => [r.requestId, r.state]),
    [
      ['r-barred', 'barred'],
      ['r-waiting', 'waiting'],
    ],
  );
  t.same(await stores.waitingRequests.refusedRequests('m-1'), made.read.refused);
  const timeline = await stores.meetings.timelineOf('m-1');
  t.same(timeline, made.read.timeline, 'the timeline, in order');
  t.equal(timeline.length, 4, 'two knocks (written with them) and the two entries');
  // A row written after the copy takes the next identity, past the copied ones.
  const later = entry('admit', 20, { ...made.waiting, state: 'admitted', participantId: 'p-1' });
  await stores.meetings.appendTimeline(later);
  t.same(await stores.meetings.timelineOf('m-1'), [...made.read.timeline, later]);

  const meetings = await admin(
    t,
    database,
  )`SELECT internal_id, meeting_id, name, record FROM meet_compat.compat_meetings`;
  t.same(
    meetings.map((m) => ({ ...m })),
    [{ internal_id: 'int-1', meeting_id: 'course-7', name: 'Course 7', record: 0 }],
    'the meeting-API meeting, as stored',
  );
  t.ok(existsSync(join(dataDir, 'meet.sqlite')), 'the SQLite files are left where they were');
});

postgresTest('a non-empty target is refused and left untouched; a running service is refused', async (t) => {
  const database = await freshDatabase(t);
  const dataDir = installation(t);
  await populate(dataDir);
  const first = await runCli(['db', 'copy', '--from', 'sqlite:', '--to', database.url], env(dataDir));
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, 'there was no signing key file: the first daemon on PostgreSQL makes the key');
  const sql = admin(t, database);
  t.same(await sql`SELECT id FROM meet_engine.signing_key`, [], 'no key copied where there was none');
  await sql`DELETE FROM meet_engine.timeline_entries WHERE kind = 'bar'`;
  const before = await sql`SELECT count(*)::int AS n FROM meet_engine.timeline_entries`;
  const again = await runCli(['db', 'copy', '--from', 'sqlite:', '--to', database.url], env(dataDir));
  t.equal(again.code, 1, 'refused');
  t.match(
    again.stderr,
    /meetctl: the target is not empty: meet_compat\.\w+ holds \d+ rows, .*meet_engine\.rooms holds 2 rows/,
  );
  t.match(again.stderr, 'hint: copy into a new, empty database');
  t.same(await sql`SELECT count(*)::int AS n FROM meet_engine.timeline_entries`, before, 'nothing was written');

  const fresh = await freshDatabase(t);
  const running = openDatabase(dataDir);
  t.teardown(() => running.close());
  const busy = await runCli(['db', 'copy', '--from', 'sqlite:', '--to', fresh.url], env(dataDir));
  t.equal(busy.code, 1, busy.stderr);
  t.match(busy.stderr, `${join(dataDir, 'meet.sqlite')} is open in a running service; nothing was copied`);
  t.match(busy.stderr, 'hint: stop the service first');
  const schemas = await admin(
    t,
    fresh,
  )`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'meet_%'`;
  t.same(schemas.length, 0, 'the target was not even migrated');
});

t.test('a password in --to is refused before any connection (exit 2); an unreachable target exits 69', async (t) => {
  const dataDir = installation(t);
  await populate(dataDir);
  const password = await runCli(
    ['db', 'copy', '--from', 'sqlite:', '--to', 'postgres://meet:hunter2-pw@127.0.0.1:1/meet'],
    env(dataDir),
  );
  t.equal(password.code, 2, password.stderr);
  t.match(password.stderr, '--to must not hold a password');
  t.notMatch(password.stderr, 'hunter2');

  const port = await freePort();
  const unreachable = await runCli(
    ['db', 'copy', '--from', 'sqlite:', '--to', `postgres://meet@127.0.0.1:${port}/meet?sslmode=disable`],
    env(dataDir),
  );
  t.equal(unreachable.code, 69, unreachable.stderr);
  t.match(unreachable.stderr, /meetctl: the database cannot be used: .*ECONNREFUSED/);

  writeFileSync(join(dataDir, 'signing-key'), 'c2hvcnQ\n');
  const short = await runCli(
    ['db', 'copy', '--from', 'sqlite:', '--to', `postgres://meet@127.0.0.1:${port}/meet?sslmode=disable`],
    env(dataDir),
  );
  t.equal(short.code, 1, short.stderr);
  t.match(short.stderr, `${join(dataDir, 'signing-key')} does not hold a signing key of 32 bytes or more`);

  const other = await runCli(
    ['db', 'copy', '--from', 'mysql://x', '--to', 'postgres://meet@127.0.0.1:1/meet'],
    env(dataDir),
  );
  t.equal(other.code, 64, 'only sqlite: is a source');
  t.match(other.stderr, '--from must be sqlite:');
});
