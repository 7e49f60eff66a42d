// Issue 34 point 5, the harness itself: the in-process engine (appFor) and the engine with the
// meeting API (compatAppFor) run on either store as the daemon opens it, and a restart on the
// same data (close, then a new app on the same store and data directory) keeps what was
// acknowledged. On PostgreSQL the data directory holds no SQLite file: both stores come from
// the one bundle, the meeting API's included.
import { readdirSync } from 'node:fs';
import { appFor } from '../../helpers/app.js';
import { assertSuccess, ConfapiClient } from '../../helpers/compat.js';
import { compatAppFor } from '../../helpers/compat-app.js';
import { dataDirFor } from '../../helpers/api.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { Browser, asSession, createRoom, moderator, timeline } from '../../helpers/waiting.js';

type Item = { request_id: string; name: string };

const sqliteFiles = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /sqlite|-wal$|-shm$|\.db$/.test(f));

onEachServiceStore(
  'knocks, a bar, an admission and their timeline survive a restart of the in-process engine',
  async (t, store) => {
    const dataDir = dataDirFor(t);
    const first = await appFor(t, { store, dataDir });
    await createRoom(t, first, { room_id: 'kept', name: 'Kept', waiting_room: 'all' });
    const mod = await moderator(first, 'kept', 'Mo Restart');
    const ann = new Browser(first, 'kept');
    t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks');
    const jonas = new Browser(first, 'kept');
    t.equal((await jonas.knock({ name: 'Jonas' })).status, 202, 'Jonas knocks');
    const lena = new Browser(first, 'kept');
    t.equal((await lena.knock({ name: 'Lena' })).status, 202, 'Lena knocks');
    const idOf = async (name: string) =>
      ((await asSession.list(first, 'kept', mod.session)).body as Item[]).find((i) => i.name === name)!.request_id;
    const [jonasId, lenaId] = [await idOf('Jonas'), await idOf('Lena')];
    t.equal((await asSession.refuse(first, 'kept', mod.session, { request_id: jonasId, bar: true })).status, 200);
    t.equal((await asSession.admit(first, 'kept', mod.session, { request_id: lenaId })).status, 200);
    const before = await timeline(first, 'kept');
    t.same(
      before.map((e) => [e.kind, e.subject?.name ?? null]),
      [
        ['moderator_arrived', 'Mo Restart'],
        ['knock', 'Ann'],
        ['knock', 'Jonas'],
        ['knock', 'Lena'],
        ['bar', 'Jonas'],
        ['admit', 'Lena'],
      ],
      'the timeline of what happened',
    );
    await first.close();

    const again = await appFor(t, { store, dataDir });
    t.equal(again.store, store, 'the same store');
    const after = new Browser(again, 'kept');
    after.setCookie(ann.cookie);
    t.same((await after.poll()).body, { status: 'waiting' }, 'Ann still waits after the restart');
    const barred = new Browser(again, 'kept');
    barred.setCookie(jonas.cookie);
    t.equal((await barred.knock({ name: 'Jonas' })).status, 403, 'Jonas is still barred');
    const admitted = new Browser(again, 'kept');
    admitted.setCookie(lena.cookie);
    t.match((await admitted.poll()).body, { status: 'admitted' }, 'Lena is still admitted');
    // No new initial token on data that has one: the first app's is the one that works.
    const rooms = await again.api('/api/rooms/kept/waiting', { token: first.adminToken });
    t.same(
      ((await rooms.json()) as Item[]).map((i) => i.name),
      ['Ann'],
      'the rooms API lists her',
    );
    t.same(await timeline(again, 'kept', first.adminToken), before, 'the same timeline, in the same order');
    if (store.name === 'PostgreSQL') t.same(sqliteFiles(dataDir), [], 'no SQLite file in the data directory');
  },
);

onEachServiceStore(
  'the engine and the meeting API share the store; nothing of SQLite on PostgreSQL',
  async (t, store) => {
    const secret = 'in-process-stores-secret-0123';
    const app = await compatAppFor(t, { store, env: { COMPAT_API_SHARED_SECRET: secret } });
    const api = new ConfapiClient(app.compatUrl, secret);
    assertSuccess(t, await api.get('create', [['meetingID', 'shared']]), 'create');
    await app.close();
    const again = await compatAppFor(t, { store, dataDir: app.dataDir, env: { COMPAT_API_SHARED_SECRET: secret } });
    const running = await new ConfapiClient(again.compatUrl, secret).get('getMeetingInfo', [['meetingID', 'shared']]);
    assertSuccess(t, running, 'the meeting is still known after a restart');
    const files = sqliteFiles(app.dataDir);
    if (store.name === 'SQLite') t.ok(files.length > 0, `SQLite's files in the data directory (${files.join(', ')})`);
    else t.same(files, [], 'no SQLite file in the data directory: the meeting API stores in PostgreSQL too');
    t.equal(
      app.services.compatStore !== null,
      store.name === 'PostgreSQL',
      'the bundle holds the meeting API store on PostgreSQL',
    );
  },
);
