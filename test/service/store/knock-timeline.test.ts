import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { TimelineEntry } from '../../../src/engine/meetings/timeline.js';
import type { Room, RoomStore } from '../../../src/engine/rooms/room.js';
import { databaseFileName, openDatabase, type Db } from '../../../src/store/database.js';
import { migrate, readMigrations } from '../../../src/platform/migrate.js';
import { openSqlite, readPragma, setPragma } from '../../../src/platform/sqlite.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { MemoryStore } from '../../helpers/memory-store.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import type { Tap } from '../../helpers/api.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { engineOn } from '../../../test/helpers/sqlite-engine.js';
import { asyncOf } from '../../../test/helpers/async-of.js';
import { MemoryUnitOfWork } from '../../../test/helpers/memory-unit.js';
import { postgresTest } from '../../helpers/postgres.js';
import { postgresql } from '../../helpers/store-adapters.js';

/**
 * In SQLite a knock's timeline entry is derived from its request row (migration 006); the memory
 * store of the engine's tests keeps it as an entry of its own, as SQLite did before. The same
 * story told to both must read back as the same timeline, entry for entry and in the same order;
 * and told to the waiting room on PostgreSQL's adapter (issue 34 point 5), the same again.
 */

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;
const mod = (name: string) => ({
  roomId: '',
  name,
  clientKey: '192.0.2.1',
  claims: { role: 'moderator' as const, source: 'link' as const },
});

interface Stores {
  /** The rooms as a test sets them up (awaited: PostgreSQL's answer promises). */
  rooms: { insert(room: Room): unknown; delete(roomId: string): unknown };
  /** What the services take. */
  ports: Parameters<typeof engineOn>[0];
}

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-knock-timeline-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function sqliteStores(db: Db): Stores {
  return { rooms: new SqliteRoomStore(db), ports: sqliteAsyncStores(db) };
}

function memoryStores(): Stores {
  const store = new MemoryStore();
  const rooms = Object.assign(store, {
    insert: (r: Room) => store.rooms.set(r.roomId, r),
    delete: (roomId: string) => {
      // What the SQLite cascade does: the room's meetings and everything of theirs go.
      const gone = new Set([...store.meetings.values()].filter((m) => m.roomId === roomId).map((m) => m.meetingId));
      store.rooms.delete(roomId);
      store.timeline.splice(0, store.timeline.length, ...store.timeline.filter((e) => !gone.has(e.meetingId)));
      return true;
    },
  });
  return {
    rooms,
    ports: {
      rooms: asyncOf<Pick<RoomStore, 'get'>>(store),
      meetings: asyncOf(store),
      waitingRequests: asyncOf(store),
      unitOfWork: new MemoryUnitOfWork(store),
    },
  };
}

/**
 * Knocks alone and in groups, in the same millisecond and not, decisions between them, another
 * room whose entries are the newest of the table and which is then deleted (SQLite reuses those
 * seq numbers), a withdrawal, admit-all, disabling the waiting room, the end of the meeting.
 * Returns the timelines of both rooms' meetings with request ids replaced by their knock order.
 */
async function story(stores: Stores, clock: FakeClock): Promise<TimelineEntry[][]> {
  const { meetings, waiting } = await engineOn(stores.ports, clock, { policy });
  const ids: string[] = [];
  const knock = async (roomId: string, name: string) => {
    const result = await waiting.knock({ roomId, name, clientKey: `198.51.100.${ids.length}` });
    if (result.status !== 'waiting') throw new Error('expected to wait');
    ids.push(result.requestId);
    return result;
  };
  const group = async (roomId: string, names: string[]) => Promise.all(names.map((name) => knock(roomId, name)));
  for (const roomId of ['r1', 'r2', 'r3']) await stores.rooms.insert(room(roomId));

  await knock('r1', 'Early'); // starts the meeting: no entry before it
  const joined = await waiting.start({ ...mod('Maria'), roomId: 'r1' });
  if (joined.status !== 'joined') throw new Error('the moderator should join');
  const maria = { kind: 'participant' as const, participantId: joined.participant.participantId };
  const [ann, bob] = await group('r1', ['Ann', 'Bob']);
  clock.advance(1);
  const cy = await knock('r1', 'Cy');
  await waiting.admit('r1', ann!.requestId, maria);
  await waiting.refuse('r1', bob!.requestId, false, maria);
  await group('r1', ['Dee', 'Eve', 'Fay']);
  clock.advance(250);
  await waiting.refuse('r1', cy.requestId, true, maria);

  // Room 2 writes the newest entries of the table, then room 1 knocks, then room 2 is deleted.
  await knock('r2', 'Xavier');
  const joined2 = await waiting.start({ ...mod('Rex'), roomId: 'r2' });
  if (joined2.status !== 'joined') throw new Error('the moderator should join');
  await waiting.admitAll('r2', { kind: 'participant', participantId: joined2.participant.participantId });
  await knock('r3', 'Yolanda');
  const gus = await knock('r1', 'Gus');
  await stores.rooms.delete('r2');
  waiting.roomDeleted('r2');
  meetings.roomDeleted('r2');
  // The seq numbers room 2 used are free again: the next entries of room 1 must still come after Gus.
  await waiting.admit('r1', gus.requestId, maria);
  const hal = await knock('r1', 'Hal');
  t.ok(await waiting.withdraw('r1', hal.secret));
  clock.advance(1000);
  await group('r1', ['Ida', 'Jo']);
  await waiting.admitAll('r1', maria);
  await knock('r1', 'Kim');
  await waiting.disableWaitingRoom('r1', { kind: 'api', name: 'moodle' });
  await meetings.end('r1', maria);
  await knock('r3', 'Zed');

  // Ids are random: each is replaced by its order of first appearance (request ids by knock order).
  const seen = new Map<string, string>();
  const label = (id: string | null, prefix: string) => {
    if (id === null) return null;
    if (prefix === '#') return `#${ids.indexOf(id)}`;
    if (!seen.has(id)) seen.set(id, `${prefix}${seen.size}`);
    return seen.get(id)!;
  };
  const renamed = (e: TimelineEntry): TimelineEntry => ({
    ...e,
    meetingId: label(e.meetingId, 'm')!,
    actor: e.actor && { ...e.actor, participantId: label(e.actor.participantId, 'p') },
    subject: e.subject && {
      ...e.subject,
      requestId: label(e.subject.requestId, '#'),
      participantId: label(e.subject.participantId, 'p'),
    },
  });
  const rooms: TimelineEntry[][] = [];
  for (const roomId of ['r1', 'r3']) {
    const entries: TimelineEntry[] = [];
    for (const m of await meetings.list(roomId))
      entries.push(...(await meetings.timeline(roomId, m.meetingId)).map(renamed));
    rooms.push(entries);
  }
  return rooms;
}

t.test('the timeline of knocks kept in request rows reads as if each had its own entry', async (t) => {
  const db = openDatabase(tempDir(t));
  t.teardown(() => db.close());
  const fromSqlite = await story(sqliteStores(db), new FakeClock());
  const expected = await story(memoryStores(), new FakeClock());

  t.same(fromSqlite, expected, 'SQLite, knocks derived = separate entries, in the same order');
  const [r1, r3] = expected as [TimelineEntry[], TimelineEntry[]];
  // What the story is about, spelled out (so that both being wrong the same way would show).
  t.same(
    r1.map((e) => `${e.kind}${e.subject ? ` ${e.subject.name}` : ''}`),
    [
      'knock Early',
      'moderator_arrived Maria',
      'knock Ann',
      'knock Bob',
      'knock Cy',
      'admit Ann',
      'refuse Bob',
      'knock Dee',
      'knock Eve',
      'knock Fay',
      'bar Cy',
      'knock Gus',
      'admit Gus',
      'knock Hal',
      'withdraw Hal',
      'knock Ida',
      'knock Jo',
      'admit_all',
      'knock Kim',
      'waiting_room_disabled',
      'admit_all',
      'meeting_ended',
    ],
  );
  t.same(
    r3.map((e) => `${e.kind} ${e.subject?.name}`),
    ['knock Yolanda', 'knock Zed'].slice(0, r3.length),
  );
  const knockOf = (name: string) => fromSqlite[0]!.find((e) => e.kind === 'knock' && e.subject?.name === name)!;
  t.same(knockOf('Ann'), {
    meetingId: 'm0',
    at: '2030-01-01T09:00:00.000Z',
    kind: 'knock',
    actor: null,
    subject: { requestId: '#1', participantId: null, name: 'Ann' },
    count: null,
  });
  t.equal(knockOf('Ida').at, '2030-01-01T09:00:01.251Z');

  t.equal(
    db.prepare("SELECT count(*) FROM timeline_entries WHERE kind = 'knock'").pluck().get(),
    0,
    'no knock has a row of its own',
  );
  const knocks = db.prepare('SELECT count(*) FROM waiting_requests WHERE knock_after_seq IS NOT NULL').pluck().get();
  t.equal(knocks, 14, 'the knocks of rooms 1 and 3 (room 2 went with its room)');
});

postgresTest('PostgreSQL: the same story reads back as the same timeline, entry for entry', async (t) => {
  const ports = await postgresql(t);
  const fromPostgres = await story({ rooms: ports.rooms, ports }, new FakeClock());
  const expected = await story(memoryStores(), new FakeClock());
  t.same(fromPostgres, expected, 'PostgreSQL = the memory store, in the same order');
  t.equal(expected[0]?.length, 22, 'the whole story of room 1');
});

t.test('a database with knocks as timeline rows (schema 5) keeps them, in order, beside the new ones', async (t) => {
  const dir = tempDir(t);
  const old = openSqlite(join(dir, databaseFileName));
  setPragma(old, 'journal_mode', 'WAL');
  setPragma(old, 'foreign_keys', 'ON');
  migrate(
    old,
    readMigrations(fileURLToPath(new URL('../../../src/store/migrations', import.meta.url))).filter(
      (m) => m.version <= 5,
    ),
  );
  const at = (s: number) => `2030-01-01T08:00:0${s}.000Z`;
  old.exec(`
    INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at)
      VALUES ('r1', 'r1', 'all', 'approval', 600, '${at(0)}', '${at(0)}');
    INSERT INTO meetings (meeting_id, room_id, started_at) VALUES ('m1', 'r1', '${at(0)}');
    INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at)
      VALUES ('old-a', 'm1', x'01', 'Old A', '', 'refused', '${at(1)}', '2030-01-01T10:00:00.000Z', '${at(1)}'),
             ('old-b', 'm1', x'02', 'Old B', '', 'waiting', '${at(2)}', '2030-01-01T10:00:00.000Z', NULL);
    INSERT INTO timeline_entries (meeting_id, at, kind, subject_request_id, subject_name) VALUES ('m1', '${at(1)}', 'knock', 'old-a', 'Old A');
    INSERT INTO timeline_entries (meeting_id, at, kind, actor_kind, actor_name, subject_request_id, subject_name)
      VALUES ('m1', '${at(1)}', 'refuse', 'api', 'lms', 'old-a', 'Old A');
    INSERT INTO timeline_entries (meeting_id, at, kind, subject_request_id, subject_name) VALUES ('m1', '${at(2)}', 'knock', 'old-b', 'Old B');
  `);
  old.close();

  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const latest = Math.max(
    ...readMigrations(fileURLToPath(new URL('../../../src/store/migrations', import.meta.url))).map((m) => m.version),
  );
  t.equal(readPragma(db, 'user_version'), latest, 'brought up to the latest migration');
  t.same(db.prepare('SELECT request_id, knock_after_seq FROM waiting_requests').all(), [
    { request_id: 'old-a', knock_after_seq: null },
    { request_id: 'old-b', knock_after_seq: null },
  ]);
  const clock = new FakeClock();
  const stores = sqliteStores(db);
  const { meetings, waiting } = await engineOn(stores.ports, clock, { policy });
  const knock = async (name: string) => {
    const result = await waiting.knock({ roomId: 'r1', name, clientKey: '192.0.2.9' });
    if (result.status !== 'waiting') throw new Error('expected to wait');
    return result;
  };
  const newA = await knock('New A');
  await waiting.refuse('r1', newA.requestId, false, { kind: 'api', name: 'lms' });
  await knock('New B');
  t.same(
    (await meetings.timeline('r1')).map((e) => [
      e.kind,
      e.subject?.requestId === newA.requestId
        ? 'new-a'
        : e.subject?.requestId?.startsWith('old')
          ? e.subject.requestId
          : e.subject?.name,
      e.at,
    ]),
    [
      ['knock', 'old-a', at(1)],
      ['refuse', 'old-a', at(1)],
      ['knock', 'old-b', at(2)],
      ['knock', 'new-a', '2030-01-01T09:00:00.000Z'],
      ['refuse', 'new-a', '2030-01-01T09:00:00.000Z'],
      ['knock', 'New B', '2030-01-01T09:00:00.000Z'],
    ],
  );
});
