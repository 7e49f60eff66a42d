import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { SqliteRoomStore } from '../../../src/store/room-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitingRoomFixture as room } from '../../helpers/room-fixture.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { engineOn } from '../../../test/helpers/sqlite-engine.js';

const policy = { waitingRoom: 'optional', waitingRoomMode: null } as const;

async function services(db: Db, clock: FakeClock) {
  const rooms = new SqliteRoomStore(db);
  const stores = sqliteAsyncStores(db);
  const { meetings, waiting } = await engineOn(stores, clock, { policy });
  return { rooms, meetings, waiting };
}

function tempDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-waiting-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

type Tap = { teardown(fn: () => void): void };

const arrival = (name: string, extra: object = {}) => ({ roomId: 'r1', name, clientKey: '192.0.2.1', ...extra });

t.test('written through to SQLite: a reopened database rebuilds the same state', async (t) => {
  const dir = tempDir(t);
  const clock = new FakeClock();
  let db = openDatabase(dir);
  let s = await services(db, clock);
  s.rooms.insert(room('r1'));
  const joined = await s.waiting.start(arrival('Maria', { claims: { role: 'moderator', source: 'link' } }));
  const mod = joined.status === 'joined' ? joined.participant : null;
  const knock = async (name: string) => {
    const result = await s.waiting.knock(arrival(name, { note: `note of ${name}` }));
    if (result.status !== 'waiting') throw new Error('expected to wait');
    return result;
  };
  const admitted = await knock('Admitted');
  const barred = await knock('Barred');
  const waiting = await knock('<b>Waiting</b>');
  await s.waiting.admit('r1', admitted.requestId, { kind: 'participant', participantId: mod!.participantId });
  await s.waiting.refuse('r1', barred.requestId, true, { kind: 'api', name: 'moodle' });
  const admittedPoll = await s.waiting.poll('r1', admitted.secret);
  const timeline = await s.meetings.timeline('r1');
  const list = await s.waiting.list('r1', { kind: 'api', name: 'x' });
  // No close: what a kill -9 leaves behind is what was committed.
  const abandoned = db;
  db = openDatabase(dir);
  clock.advance(3000);
  s = await services(db, clock);

  t.same(await s.waiting.poll('r1', waiting.secret), { status: 'waiting' });
  t.same(await s.waiting.poll('r1', barred.secret), { status: 'barred' });
  t.same(await s.waiting.poll('r1', admitted.secret), admittedPoll);
  t.equal(admittedPoll?.status, 'admitted');
  await t.rejects(s.waiting.knock(arrival('Barred', { secret: barred.secret })), { code: 'barred' });
  t.same(await s.meetings.timeline('r1'), timeline, 'the timeline is whole');
  t.same(
    timeline.map((e) => e.kind),
    ['moderator_arrived', 'knock', 'knock', 'knock', 'admit', 'bar'],
  );
  t.same(
    await s.waiting.list('r1', { kind: 'participant', participantId: mod!.participantId }),
    list,
    'the moderator is still a moderator; the list is the same',
  );
  t.equal(list[0]?.name, '<b>Waiting</b>', 'plain text survives the round trip');
  t.equal(list[0]?.note, 'note of <b>Waiting</b>');
  const row = db.prepare('SELECT * FROM waiting_requests WHERE request_id = ?').get(waiting.requestId) as Record<
    string,
    unknown
  >;
  t.notOk(
    Object.values(row).some((v) => v === waiting.secret),
    'the secret is not stored',
  );
  t.equal((row.secret_hash as Buffer).length, 32, 'only its SHA-256');
  abandoned.close();
  db.close();
});

t.test('meeting end, attendance and cascades in SQLite', async (t) => {
  const dir = tempDir(t);
  const clock = new FakeClock();
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const s = await services(db, clock);
  s.rooms.insert(room('r1'));
  const joined = await s.waiting.start(arrival('Maria', { claims: { role: 'moderator', source: 'link' } }));
  const modId = joined.status === 'joined' ? joined.participant.participantId : '';
  const ann = await s.waiting.knock(arrival('Ann'));
  const bob = await s.waiting.knock(arrival('Bob'));
  const cy = await s.waiting.knock(arrival('Cy'));
  if (ann.status !== 'waiting' || bob.status !== 'waiting' || cy.status !== 'waiting')
    throw new Error('expected to wait');
  clock.advance(1000);
  await s.waiting.admit('r1', ann.requestId, { kind: 'participant', participantId: modId });
  await s.waiting.refuse('r1', bob.requestId, false, { kind: 'participant', participantId: modId });
  clock.advance(1000);
  t.ok(await s.meetings.end('r1', { kind: 'participant', participantId: modId }));
  t.equal(s.meetings.current('r1'), null);
  const attendance = await s.meetings.attendance('r1');
  t.same(
    attendance.participants.map((p) => [p.name, p.leftAt]),
    [
      ['Maria', '2030-01-01T09:00:02.000Z'],
      ['Ann', '2030-01-01T09:00:02.000Z'],
    ],
  );
  t.same(
    attendance.refused.map((r) => r.name),
    ['Bob'],
  );
  const state = db.prepare('SELECT state FROM waiting_requests WHERE request_id = ?').pluck().get(cy.requestId);
  t.equal(state, 'expired', 'nobody is left waiting in a closed meeting');
  t.equal((await s.meetings.list('r1')).length, 1);

  // A second meeting of the room may start; two open at once may not.
  await s.waiting.start(arrival('Maria', { claims: { role: 'moderator', source: 'link' } }));
  t.throws(
    () =>
      db
        .prepare(
          "INSERT INTO meetings (meeting_id, room_id, started_at) VALUES ('dup', 'r1', '2030-01-01T00:00:00.000Z')",
        )
        .run(),
    /UNIQUE/,
  );

  await s.meetings.end('r1');
  s.rooms.delete('r1');
  s.meetings.roomDeleted('r1');
  for (const table of ['meetings', 'participants', 'waiting_requests', 'timeline_entries']) {
    t.equal(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), 0, `${table} cascaded away with the room`);
  }
});

t.test('the tables are STRICT and checked', async (t) => {
  const dir = tempDir(t);
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const strict = db
    .prepare(
      "SELECT name FROM pragma_table_list WHERE strict = 1 AND name IN ('meetings', 'participants', 'waiting_requests', 'timeline_entries')",
    )
    .pluck()
    .all();
  t.same([...strict].sort(), ['meetings', 'participants', 'timeline_entries', 'waiting_requests']);
  new SqliteRoomStore(db).insert(room('r1'));
  db.prepare("INSERT INTO meetings (meeting_id, room_id, started_at) VALUES ('m', 'r1', 'x')").run();
  t.throws(
    () =>
      db
        .prepare(
          "INSERT INTO participants (participant_id, meeting_id, role, name, joined_at) VALUES ('p', 'm', 'admin', 'n', 'x')",
        )
        .run(),
    /CHECK/,
  );
  t.throws(
    () => db.prepare("INSERT INTO meetings (meeting_id, room_id, started_at) VALUES ('m2', 'no-room', 'x')").run(),
    /FOREIGN KEY/,
  );
});
