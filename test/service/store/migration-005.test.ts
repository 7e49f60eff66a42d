import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { databaseFileName, describeSchema, openDatabase, type Db } from '../../../src/store/database.js';
import { migrate, readMigrations } from '../../../src/platform/migrate.js';
import { openSqlite, readPragma, setPragma } from '../../../src/platform/sqlite.js';
import type { Tap } from '../../helpers/api.js';

const migrationsDir = fileURLToPath(new URL('../../../src/store/migrations', import.meta.url));

/** A data directory whose database stopped at schema 4, as the daemon left it (same pragmas). */
function databaseAt4(t: Tap): { dir: string; db: Db } {
  const dir = mkdtempSync(join(tmpdir(), 'meet-migration-005-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openSqlite(join(dir, databaseFileName));
  setPragma(db, 'journal_mode', 'WAL');
  setPragma(db, 'synchronous', 'FULL');
  setPragma(db, 'foreign_keys', 'ON');
  t.same(
    migrate(
      db,
      readMigrations(migrationsDir).filter((m) => m.version <= 4),
    ),
    [1, 2, 3, 4],
  );
  return { dir, db };
}

const at = '2030-01-01T00:00:00.000Z';
const hash = (n: number) => Buffer.alloc(32, n);

function fill(db: Db): void {
  const room = db.prepare(
    `INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at) VALUES (?, ?, 'all', 'approval', 600, ?, ?)`,
  );
  const meeting = db.prepare('INSERT INTO meetings (meeting_id, room_id, started_at, ended_at) VALUES (?, ?, ?, ?)');
  const request = db.prepare(
    `INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const entry = db.prepare(
    `INSERT INTO timeline_entries (meeting_id, at, kind, subject_request_id, subject_name) VALUES (?, ?, 'knock', ?, ?)`,
  );
  db.transaction(() => {
    room.run('r1', 'Room 1', at, at);
    room.run('r2', 'Room 2', at, at);
    meeting.run('m-old', 'r1', at, '2030-01-01T01:00:00.000Z');
    meeting.run('m1', 'r1', '2030-01-01T02:00:00.000Z', null);
    meeting.run('m2', 'r2', at, null);
    const states = ['waiting', 'admitted', 'refused', 'barred', 'expired', 'withdrawn', 'window_closed'];
    // Random-looking ids inserted out of order: the rowids, not the ids, carry the order.
    for (let i = 0; i < 40; i++) {
      const id = `req-${String((i * 17) % 40).padStart(2, '0')}`;
      const state = states[i % states.length]!;
      const meetingId = ['m-old', 'm1', 'm2'][i % 3]!;
      const decided = state === 'waiting' ? null : at;
      request.run(
        id,
        meetingId,
        hash(i),
        `Name ${i}`,
        i % 2 ? `note ${i}` : '',
        state,
        at,
        at,
        decided,
        state === 'admitted' ? `p${i}` : null,
      );
      entry.run(meetingId, at, id, `Name ${i}`);
    }
  })();
}

// The columns of schema 4 (later migrations may add some).
const everyRequest = (db: Db) =>
  db
    .prepare(
      'SELECT rowid, request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id FROM waiting_requests ORDER BY rowid',
    )
    .all();

t.test('migration 005 keeps every row of a schema-4 database, with its rowid, and drops only the UNIQUE', async (t) => {
  const { dir, db: old } = databaseAt4(t);
  fill(old);
  const before = everyRequest(old);
  const timelineBefore = old.prepare('SELECT * FROM timeline_entries ORDER BY seq').all();
  t.throws(
    () =>
      old
        .prepare(`INSERT INTO waiting_requests VALUES ('dup', 'm1', ?, 'x', '', 'waiting', ?, ?, NULL, NULL)`)
        .run(hash(0), at, at),
    /UNIQUE/,
    'schema 4 refuses a second request with the same secret hash',
  );
  old.close();

  const db = openDatabase(dir);
  t.teardown(() => db.close());
  t.ok((readPragma(db, 'user_version') as number) >= 5, 'migrated past 005');
  t.same(everyRequest(db), before, 'every request, every column, same rowids, same order');
  // The columns schema 4 had: later migrations add their own (017: skipped).
  const columns = Object.keys(timelineBefore[0] as object).join(', ');
  t.same(
    db.prepare(`SELECT ${columns} FROM timeline_entries ORDER BY seq`).all(),
    timelineBefore,
    'the timeline is untouched',
  );
  t.same(db.prepare('PRAGMA foreign_key_check').all(), [], 'no foreign key is broken');
  t.same(db.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);

  const schema = describeSchema(db).join('\n');
  t.notMatch(schema, /waiting_requests_new/, 'no trace of the rebuild');
  t.notMatch(schema, /secret_hash BLOB NOT NULL UNIQUE/);
  t.match(
    schema,
    /index waiting_requests_by_meeting: CREATE INDEX waiting_requests_by_meeting ON waiting_requests \(meeting_id, state\)/,
  );
  const indexes = (db.prepare("SELECT name FROM pragma_index_list('waiting_requests')").all() as { name: string }[])
    .map((i) => i.name)
    .sort();
  t.same(
    indexes,
    ['sqlite_autoindex_waiting_requests_1', 'waiting_requests_by_meeting'],
    'the primary key and the meeting index, nothing on secret_hash',
  );

  // The same secret hash twice is now accepted (nothing searches by it; 256-bit secrets do not collide).
  db.prepare(
    `INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id) VALUES ('dup', 'm1', ?, 'x', '', 'waiting', ?, ?, NULL, NULL)`,
  ).run(hash(0), at, at);
  // The primary key and the foreign key still hold.
  t.throws(
    () =>
      db
        .prepare(
          `INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id) VALUES ('dup', 'm1', ?, 'x', '', 'waiting', ?, ?, NULL, NULL)`,
        )
        .run(hash(99), at, at),
    /UNIQUE|PRIMARY/,
  );
  t.throws(
    () =>
      db
        .prepare(
          `INSERT INTO waiting_requests (request_id, meeting_id, secret_hash, name, note, state, knocked_at, expires_at, decided_at, participant_id) VALUES ('orphan', 'no-such-meeting', ?, 'x', '', 'waiting', ?, ?, NULL, NULL)`,
        )
        .run(hash(98), at, at),
    /FOREIGN KEY/,
    'a request of an unknown meeting is refused',
  );
  t.throws(
    () => db.prepare(`UPDATE waiting_requests SET state = 'lost' WHERE request_id = 'dup'`).run(),
    /CHECK/,
    'the state CHECK survived',
  );
  // Deleting a room still takes its meetings' requests with it.
  const inRoom1 = (
    db.prepare("SELECT count(*) AS n FROM waiting_requests WHERE meeting_id IN ('m-old', 'm1')").get() as { n: number }
  ).n;
  t.ok(inRoom1 > 0);
  db.prepare("DELETE FROM rooms WHERE room_id = 'r1'").run();
  t.equal(
    (
      db.prepare("SELECT count(*) AS n FROM waiting_requests WHERE meeting_id IN ('m-old', 'm1')").get() as {
        n: number;
      }
    ).n,
    0,
    'cascade from the room',
  );
  t.equal(
    (db.prepare('SELECT count(*) AS n FROM waiting_requests').get() as { n: number }).n,
    before.length + 1 - inRoom1,
    "room 2's requests stay",
  );
});

t.test('after the rebuild, reads by meeting and by id still use their indexes', async (t) => {
  const { dir, db: old } = databaseAt4(t);
  old.close();
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const plan = (sql: string) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
  t.match(
    plan("SELECT * FROM waiting_requests WHERE meeting_id = 'm' AND state IN ('refused', 'barred')"),
    /waiting_requests_by_meeting/,
  );
  t.match(plan("SELECT * FROM waiting_requests WHERE request_id = 'x'"), /sqlite_autoindex_waiting_requests_1/);
});
