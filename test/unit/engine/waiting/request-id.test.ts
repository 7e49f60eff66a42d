import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { newRequestId } from '../../../../src/engine/waiting/request-id.js';
import { openDatabase } from '../../../../src/store/database.js';
import { SqliteRoomStore } from '../../../../src/store/room-store.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { Fixture } from '../../../helpers/engine-fixture.js';
import { waitingRoomFixture } from '../../../helpers/room-fixture.js';
import { sqliteAsyncStores } from '../../../../src/store/async-sqlite.js';
import { engineOn } from '../../../../test/helpers/sqlite-engine.js';

// SQLite compares TEXT keys bytewise, and so does this.
const bytewise = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

t.test('request ids sort as the times they were made at, whatever their random part', async (t) => {
  const times = [
    0,
    1,
    63,
    64,
    65,
    4095,
    4096,
    Date.parse('2001-09-09T01:46:40.000Z'),
    Date.parse('2030-01-01T09:00:00.000Z'),
    Date.parse('2030-01-01T09:00:00.001Z'),
    Date.parse('2030-01-01T09:00:01.000Z'),
    Date.parse('2100-01-01T00:00:00.000Z'),
    2 ** 48 - 1,
  ];
  // Several ids per millisecond, shuffled, so the random part gets every chance to break the order.
  const made = times.flatMap((ms) => Array.from({ length: 20 }, () => ({ ms, id: newRequestId(ms) })));
  const shuffled = [...made].sort(() => Math.random() - 0.5);
  const sorted = [...shuffled].sort((a, b) => bytewise(a.id, b.id));
  t.same(
    sorted.map((x) => x.ms),
    [...made].map((x) => x.ms).sort((a, b) => a - b),
    'sorting the ids sorts their times',
  );
  for (const { id } of made) t.match(id, /^[A-Za-z0-9_-]{30}$/);
  t.equal(new Set(made.map((x) => x.id)).size, made.length, 'no two are equal, even in the same millisecond');
  const sameMs = made.filter((x) => x.ms === times[8]).map((x) => x.id);
  t.equal(new Set(sameMs.map((id) => id.slice(0, 8))).size, 1, 'the same millisecond, the same prefix');
  t.equal(new Set(sameMs.map((id) => id.slice(8))).size, sameMs.length, 'a different random part each time');
});

t.test('knocks get ids in the order they knocked (engine, fake clock)', async (t) => {
  const f = new Fixture();
  f.room();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    ids.push((await f.knock(`Person ${i}`)).requestId);
    f.clock.advance(i % 3 === 0 ? 1 : 997);
  }
  t.same([...ids].sort(bytewise), ids, 'sorted bytewise = knock order');
});

t.test('in SQLite the primary-key order of requests is their knock order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-request-id-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const clock = new FakeClock();
  const rooms = new SqliteRoomStore(db);
  const stores = sqliteAsyncStores(db);
  t.teardown(() => stores.close());
  const { waiting } = await engineOn(stores, clock);
  for (const roomId of ['a', 'b']) rooms.insert(waitingRoomFixture(roomId));
  const knocked: string[] = [];
  for (let i = 0; i < 40; i++) {
    const result = await waiting.knock({ roomId: i % 2 ? 'a' : 'b', name: `P${i}`, clientKey: `192.0.2.${i}` });
    if (result.status !== 'waiting') throw new Error('expected to wait');
    knocked.push(result.requestId);
    clock.advance(i % 4 === 0 ? 0 : 3);
  }
  const byKey = (
    db.prepare('SELECT request_id FROM waiting_requests ORDER BY request_id').all() as { request_id: string }[]
  ).map((r) => r.request_id);
  const byKnock = (
    db.prepare('SELECT request_id FROM waiting_requests ORDER BY knocked_at, rowid').all() as { request_id: string }[]
  ).map((r) => r.request_id);
  t.same(byKnock, knocked, 'stored in knock order');
  // Within one millisecond the random part decides; across milliseconds the key order is the knock order.
  const ms = (id: string) => id.slice(0, 8);
  t.same(byKey.map(ms), knocked.map(ms), 'the primary key orders requests by knock time');
});
