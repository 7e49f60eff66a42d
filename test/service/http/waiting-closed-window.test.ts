// SERVICE_WAITING_CLOSED_WINDOW_SECS: the grace of a waiting page that stopped polling (a network
// drop, a frozen phone tab, a loaded server's slow answers): 60 s by default (issue 31 point 3; it
// was 6 s, three of the page's 2 s polls). Two engines side by side, each built in-process as the
// daemon builds it, the same silence on a fake clock: within the grace the request keeps its place
// and the moderators' list marks it `connection_lost`; her next poll clears the mark; only a silence
// as long as the grace closes it. The last test proves, against the whole daemon (run.ts's start,
// in the test's process, on the system clock), that its own sweep timer closes a silent request
// without anyone calling. The fake-clock test runs on both stores (issue 34 point 5).
import { join } from 'node:path';
import t from 'tap';
import { databaseFileName } from '../../../src/store/database.js';
import { openSqlite } from '../../../src/platform/sqlite.js';
import { appFor, type InProcess } from '../../helpers/app.js';
import { dataDirFor, type Tap } from '../../helpers/api.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { onEachServiceStore, postgresStore } from '../../helpers/service-stores.js';
import { Browser, asSession, createRoom, moderator, names } from '../../helpers/waiting.js';

async function oneWaiting(t: Tap, engine: InProcess) {
  const room = 'silent-page';
  await createRoom(t, engine, { room_id: room, name: 'Silent page', waiting_room: 'all' });
  const mod = await moderator(engine, room, 'Mo Window');
  const ann = new Browser(engine, room);
  t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks');
  const bob = new Browser(engine, room);
  t.equal((await bob.knock({ name: 'Bob' })).status, 202, 'Bob knocks after her');
  const list = async () =>
    ((await asSession.list(engine, room, mod.session)).body as { name: string; connection_lost?: true }[]).map(
      (r) => `${r.name}${r.connection_lost ? ' (connection lost)' : ''}`,
    );
  return { ann, bob, list };
}

onEachServiceStore(
  'a waiting page silent for 59 s keeps its place, shown as connection lost; 61 s lose it',
  async (t, store) => {
    const clock = new FakeClock();
    // Two engines on one PostgreSQL database would share its rooms: the narrowed one gets its own.
    const other = store.name === 'PostgreSQL' ? await postgresStore(t) : store;
    const [byDefault, narrowed] = await Promise.all([
      appFor(t, { clock, store }),
      appFor(t, { clock, store: other, env: { SERVICE_WAITING_CLOSED_WINDOW_SECS: '10' } }),
    ]);
    const [a, b] = await Promise.all([oneWaiting(t, byDefault), oneWaiting(t, narrowed)]);
    /** Time passes, Bob's pages poll every 2 s, each daemon's one-second sweep runs; Ann's pages are silent. */
    const silence = async (ms: number) => {
      for (let passed = 0; passed < ms; passed += 1000) {
        clock.advance(1000);
        if (passed % 2000 === 1000) await Promise.all([a.bob.poll(), b.bob.poll()]);
        await byDefault.services.waiting.sweep();
        await narrowed.services.waiting.sweep();
      }
    };
    await silence(7000);
    t.same(
      await a.list(),
      ['Ann (connection lost)', 'Bob'],
      'default: after 7 s (the old limit was 6) Ann keeps her place',
    );
    t.same((await a.ann.poll()).body, { status: 'waiting' }, 'and her late poll answers waiting');
    t.same(await a.list(), ['Ann', 'Bob'], 'her connection is back, first in line');
    await silence(59_000);
    t.same(await a.list(), ['Ann (connection lost)', 'Bob'], 'default: 59 s of silence, still first in line');
    t.same(await b.list(), ['Bob'], 'grace of 10 s (the setting): Ann is gone');
    t.equal((await b.ann.poll()).status, 404, 'her request was closed');
    await silence(2000);
    t.same(await a.list(), ['Bob'], 'default: 61 s of silence after her last poll close it');
    t.equal((await a.ann.poll()).status, 404);
  },
);

// SQLite only: it watches the daemon's own sweep in the SQLite file, not through the API.
t.test('the daemon sweeps by itself: a silent request leaves the list once the window is over', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_CLOSED_WINDOW_SECS: '4' });
  await createRoom(t, d, { room_id: 'swept', name: 'Swept', waiting_room: 'all' });
  const mod = await moderator(d, 'swept', 'Mo Sweep');
  const ann = new Browser(d, 'swept');
  t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks and never polls');
  const knockedAt = Date.now();
  t.same(names(await asSession.list(d, 'swept', mod.session)), ['Ann'], 'listed at first');
  // Watched in the database, not through the API: the moderator's list and the poll settle
  // silent requests themselves, so only the daemon's own sweep closes it while nobody calls.
  const db = openSqlite(join(d.dataDir, databaseFileName), { readonly: true });
  t.teardown(() => db.close());
  const waiting = () =>
    db.prepare("SELECT count(*) FROM waiting_requests WHERE state = 'waiting'").pluck().get() as number;
  while (waiting() > 0 && Date.now() - knockedAt < 15_000) await new Promise((resolve) => setTimeout(resolve, 250));
  const after = Date.now() - knockedAt;
  t.equal(waiting(), 0, `closed by the sweep after ${after} ms, with no call to the daemon`);
  t.ok(after >= 3000, 'not before the window is (nearly) over');
  t.same(names(await asSession.list(d, 'swept', mod.session)), [], "gone from the moderator's list");
  t.equal((await ann.poll()).status, 404, 'her request was closed');
});
