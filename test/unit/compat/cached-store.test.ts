// Issue 6: the write-through read model over a real SQLite file. Memory must always be what
// is committed: loaded at start, changed with every meeting write, and untouched by a write
// whose transaction rolled back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { CachedCompatStore } from '../../../src/compat/confapi/cached-store.js';
import type { CompatMeeting, CompatStore } from '../../../src/compat/confapi/model.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';

function dataDir(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-cached-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What the open-meeting reads answer, for comparing memory with a fresh look at the file. */
function openView(store: CompatStore, keys: readonly (readonly [string, string])[]) {
  return {
    all: store.openMeetings().map((m) => m.internalId),
    byKey: keys.map(([tenant, id]) => store.openMeeting(tenant, id)?.internalId ?? null),
    latest: keys.map(([tenant, id]) => store.latestMeeting(tenant, id)?.internalId ?? null),
    owners: [...new Set(keys.map(([, id]) => id))].map((id) => [...store.ownersOf(id)].sort()),
    rooms: keys.map(([tenant, id]) => store.openMeetingInRoom(`cf-${tenant}-${id}`)?.internalId ?? null),
    ofTenant: [...new Set(keys.map(([tenant]) => tenant))].map((tenant) =>
      store.openMeetingsOf(tenant).map((m) => m.internalId),
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
  const store = new CachedCompatStore(new SqliteCompatStore(dir));
  const a1 = meeting('a', 'm1', 1000);
  const b1 = meeting('b', 'm1', 2000);
  const a2 = meeting('a', 'm2', 3000);
  store.insertMeeting(a1);
  store.insertMeeting(b1);
  store.insertMeeting(a2);
  t.same(store.ownersOf('m1'), ['a', 'b'], 'both owners of m1');
  t.equal(store.openMeeting('a', 'm1'), a1, 'the object written is the object read (answers are kept by identity)');

  const a1Joined = { ...a1, engineMeetingId: 'em-1', startTime: 1500 };
  store.updateMeeting(a1Joined);
  t.equal(store.openMeeting('a', 'm1'), a1Joined, 'an update replaces the record');
  t.same(
    store.openMeetings().map((m) => m.internalId),
    [a1.internalId, b1.internalId, a2.internalId],
    'an update keeps create order',
  );
  t.same(
    store.openMeetingsOf('a').map((m) => m.internalId),
    [a1.internalId, a2.internalId],
    "and the tenant's order",
  );

  const b1Ended = { ...b1, endTime: 4000, endReason: 'end' as const, forciblyEnded: true };
  store.updateMeeting(b1Ended);
  t.equal(store.openMeeting('b', 'm1'), null, 'an ended meeting leaves the open set');
  t.same(store.ownersOf('m1'), ['a'], 'and the owners of its meetingID');
  t.equal(store.openMeetingInRoom(b1.roomId), null, 'and its room');
  t.same(store.latestMeeting('b', 'm1'), b1Ended, 'the latest meeting of that id is read from the file');
  t.same(store.meeting(b1.internalId), b1Ended, 'so is the meeting by internal id');

  const fresh = new SqliteCompatStore(dir);
  t.same(openView(store, keys), openView(fresh, keys), 'memory and the file agree');
  fresh.close();
  store.close();

  const restarted = new CachedCompatStore(new SqliteCompatStore(dir));
  t.teardown(() => restarted.close());
  t.equal(restarted.openCount, 2, 'a new store loads the open meetings');
  t.same(restarted.openMeeting('a', 'm1'), a1Joined, 'as last written');
  const check = new SqliteCompatStore(dir);
  t.same(openView(restarted, keys), openView(check, keys), 'and answers as the file does');
  check.close();
});

t.test('a rolled-back write never reaches memory; a committed one does, after the commit', async (t) => {
  const dir = dataDir(t);
  const store = new CachedCompatStore(new SqliteCompatStore(dir));
  t.teardown(() => store.close());
  const keys = [
    ['a', 'x'],
    ['a', 'y'],
  ] as const;
  const x = meeting('a', 'x', 1000);
  const y = meeting('a', 'y', 2000);
  store.insertMeeting(x);
  store.insertMeeting(y);
  const ended = (m: CompatMeeting): CompatMeeting => ({ ...m, endTime: 5000, endReason: 'end' });

  t.throws(
    () =>
      store.transaction(() => {
        store.updateMeeting(ended(x));
        throw new Error('the callback could not be queued');
      }),
    /could not be queued/,
  );
  t.equal(store.openMeeting('a', 'x'), x, 'the end rolled back: still open in memory');

  t.throws(
    () => store.insertMeeting(meeting('a', 'x', 1500)),
    /UNIQUE/,
    'a second open meeting of the id is refused by the file',
  );
  t.equal(store.openMeeting('a', 'x'), x, 'and never reaches memory');

  store.transaction(() => {
    store.updateMeeting(ended(x));
    t.equal(store.openMeeting('a', 'x'), x, 'inside the transaction memory still shows what is committed');
    try {
      store.transaction(() => {
        store.updateMeeting(ended(y));
        throw new Error('inner failure');
      });
    } catch {
      // the savepoint rolled back; the outer transaction goes on
    }
  });
  t.equal(store.openMeeting('a', 'x'), null, 'the outer write is applied once committed');
  t.equal(store.openMeeting('a', 'y'), y, 'the rolled-back savepoint is not');
  const file = new SqliteCompatStore(dir);
  t.teardown(() => file.close());
  t.same(openView(store, keys), openView(file, keys), 'memory and the file agree');
});

t.test('a record read from memory cannot be changed in place (its identity is its version)', async (t) => {
  const store = new CachedCompatStore(new SqliteCompatStore(dataDir(t)));
  t.teardown(() => store.close());
  store.insertMeeting(meeting('a', 'frozen', 1000, { metadata: [['origin', 'Moodle']] }));
  const read = store.openMeeting('a', 'frozen')!;
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
  t.equal(store.openMeeting('a', 'frozen')!.name, 'frozen', 'unchanged');
});
