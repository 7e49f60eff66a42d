// Issue 6: the write-through read model over a real SQLite file (behind the asynchronous port,
// issue 34 point 2). Memory must always be what is committed: loaded at start, changed with every
// meeting write, and untouched by a write whose transaction rolled back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import type { AsyncCompatStore } from '../../../src/compat/confapi/async-store.js';
import { CachedCompatStore } from '../../../src/compat/confapi/cached-store.js';
import type { CompatMeeting } from '../../../src/compat/confapi/model.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { asyncSqliteCompatStore } from '../../../src/compat/store/async-sqlite.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';

function dataDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-cached-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const file = (dir: string): AsyncCompatStore => asyncSqliteCompatStore(new SqliteCompatStore(dir));
const cached = (dir: string): Promise<CachedCompatStore> => CachedCompatStore.load(file(dir));

/** What the open-meeting reads answer, for comparing memory with a fresh look at the file. */
async function openView(store: AsyncCompatStore, keys: readonly (readonly [string, string])[]) {
  const ids = (list: readonly (CompatMeeting | null)[]) => list.map((m) => m?.internalId ?? null);
  return {
    all: ids(await store.openMeetings()),
    byKey: ids(await Promise.all(keys.map(([tenant, id]) => store.openMeeting(tenant, id)))),
    latest: ids(await Promise.all(keys.map(([tenant, id]) => store.latestMeeting(tenant, id)))),
    owners: await Promise.all(
      [...new Set(keys.map(([, id]) => id))].map(async (id) => [...(await store.ownersOf(id))].sort()),
    ),
    rooms: ids(await Promise.all(keys.map(([tenant, id]) => store.openMeetingInRoom(`cf-${tenant}-${id}`)))),
    ofTenant: await Promise.all(
      [...new Set(keys.map(([tenant]) => tenant))].map(async (tenant) => ids(await store.openMeetingsOf(tenant))),
    ),
  };
}

t.test('memory answers what the file holds, through inserts, updates, ends and a restart', async (t) => {
  const dir = dataDir(t);
  const keys = [
    ['a', 'm1'],
    ['b', 'm1'],
    ['a', 'm2'],
  ] as const;
  const store = await cached(dir);
  const a1 = meeting('a', 'm1', 1000);
  const b1 = meeting('b', 'm1', 2000);
  const a2 = meeting('a', 'm2', 3000);
  await store.insertMeeting(a1);
  await store.insertMeeting(b1);
  await store.insertMeeting(a2);
  t.same(await store.ownersOf('m1'), ['a', 'b'], 'both owners of m1');
  t.same(store.ownersNow('m1'), ['a', 'b'], 'also at once, from memory');
  t.equal(
    await store.openMeeting('a', 'm1'),
    a1,
    'the object written is the object read (answers are kept by identity)',
  );

  const a1Joined = { ...a1, engineMeetingId: 'em-1', startTime: 1500 };
  await store.updateMeeting(a1Joined);
  t.equal(await store.openMeeting('a', 'm1'), a1Joined, 'an update replaces the record');
  t.same(
    (await store.openMeetings()).map((m) => m.internalId),
    [a1.internalId, b1.internalId, a2.internalId],
    'an update keeps create order',
  );
  t.same(
    (await store.openMeetingsOf('a')).map((m) => m.internalId),
    [a1.internalId, a2.internalId],
    "and the tenant's order",
  );

  const b1Ended = { ...b1, endTime: 4000, endReason: 'end' as const, forciblyEnded: true };
  await store.updateMeeting(b1Ended);
  t.equal(await store.openMeeting('b', 'm1'), null, 'an ended meeting leaves the open set');
  t.same(await store.ownersOf('m1'), ['a'], 'and the owners of its meetingID');
  t.equal(await store.openMeetingInRoom(b1.roomId), null, 'and its room');
  t.equal(store.openInRoom(b1.roomId), null, 'also at once');
  t.same(await store.latestMeeting('b', 'm1'), b1Ended, 'the latest meeting of that id is read from the file');
  t.same(await store.meeting(b1.internalId), b1Ended, 'so is the meeting by internal id');

  const fresh = file(dir);
  t.same(await openView(store, keys), await openView(fresh, keys), 'memory and the file agree');
  await fresh.close();
  await store.close();

  const restarted = await cached(dir);
  t.teardown(() => restarted.close());
  t.equal(restarted.openCount, 2, 'a new store loads the open meetings');
  t.same(await restarted.openMeeting('a', 'm1'), a1Joined, 'as last written');
  const check = file(dir);
  t.same(await openView(restarted, keys), await openView(check, keys), 'and answers as the file does');
  await check.close();
});

t.test('a rolled-back write never reaches memory; a committed one does, after the commit', async (t) => {
  const dir = dataDir(t);
  const store = await cached(dir);
  t.teardown(() => store.close());
  const keys = [
    ['a', 'x'],
    ['a', 'y'],
  ] as const;
  const x = meeting('a', 'x', 1000);
  const y = meeting('a', 'y', 2000);
  await store.insertMeeting(x);
  await store.insertMeeting(y);
  const ended = (m: CompatMeeting): CompatMeeting => ({ ...m, endTime: 5000, endReason: 'end' });

  await t.rejects(
    store.transaction(async () => {
      await store.updateMeeting(ended(x));
      throw new Error('the callback could not be queued');
    }),
    /could not be queued/,
  );
  t.equal(await store.openMeeting('a', 'x'), x, 'the end rolled back: still open in memory');

  await t.rejects(
    store.insertMeeting(meeting('a', 'x', 1500)),
    /UNIQUE/,
    'a second open meeting of the id is refused by the file',
  );
  t.equal(await store.openMeeting('a', 'x'), x, 'and never reaches memory');

  await store.transaction(async () => {
    await store.updateMeeting(ended(x));
    t.equal(await store.openMeeting('a', 'x'), x, 'inside the transaction memory still shows what is committed');
    try {
      await store.transaction(async () => {
        await store.updateMeeting(ended(y));
        throw new Error('inner failure');
      });
    } catch {
      // the savepoint rolled back; the outer transaction goes on
    }
  });
  t.equal(await store.openMeeting('a', 'x'), null, 'the outer write is applied once committed');
  t.equal(await store.openMeeting('a', 'y'), y, 'the rolled-back savepoint is not');
  const check = file(dir);
  t.teardown(() => check.close());
  t.same(await openView(store, keys), await openView(check, keys), 'memory and the file agree');
});

t.test('a write outside a transaction, while another is open, is not held back with it', async (t) => {
  const store = await cached(dataDir(t));
  t.teardown(() => store.close());
  const x = meeting('a', 'x', 1000);
  const y = meeting('a', 'y', 2000);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const open = store.transaction(async () => {
    await store.insertMeeting(x);
    await gate;
  });
  const outside = store.insertMeeting(y);
  release();
  await Promise.all([open, outside]);
  t.equal(await store.openMeeting('a', 'x'), x, 'the transaction committed');
  t.equal(await store.openMeeting('a', 'y'), y, 'the write outside it reached memory too');
});

t.test('a record read from memory cannot be changed in place (its identity is its version)', async (t) => {
  const store = await cached(dataDir(t));
  t.teardown(() => store.close());
  await store.insertMeeting(meeting('a', 'frozen', 1000, { metadata: [['origin', 'Moodle']] }));
  const read = (await store.openMeeting('a', 'frozen'))!;
  t.throws(
    () => {
      (read as { name: string }).name = 'changed';
    },
    TypeError,
    'a field',
  );
  t.throws(
    () => {
      (read.metadata as [string, string][]).push(['x', 'y']);
    },
    TypeError,
    'the metadata list',
  );
  t.throws(
    () => {
      (read.settings.lockSettings as Record<string, boolean>).lockSettingsDisableMic = true;
    },
    TypeError,
    'a nested setting',
  );
  t.equal((await store.openMeeting('a', 'frozen'))!.name, 'frozen', 'unchanged');
});
