// SERVICE_WAITING_CLOSED_WINDOW_SECS: how long a waiting page may stay silent before its request
// counts as a closed window (default 6 s, three of the page's 2 s polls). Two engines side by
// side, each built in-process as the daemon builds it, the same silence on a fake clock: the
// default one closes the request, the one set to 10 s keeps it, and still closes it once the
// longer silence has passed. The last test proves, against the whole daemon (run.ts's start, in
// the test's process, on the system clock), that its own sweep timer closes a silent request
// without anyone calling.
import { join } from 'node:path';
import t from 'tap';
import { databaseFileName } from '../../../src/store/database.js';
import { openSqlite } from '../../../src/platform/sqlite.js';
import { appFor, type InProcess } from '../../helpers/app.js';
import { dataDirFor, type Tap } from '../../helpers/api.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { Browser, asSession, createRoom, moderator, names } from '../../helpers/waiting.js';

async function oneWaiting(t: Tap, engine: InProcess) {
  const room = 'silent-page';
  await createRoom(t, engine, { room_id: room, name: 'Silent page', waiting_room: 'all' });
  const mod = await moderator(engine, room, 'Mo Window');
  const ann = new Browser(engine, room);
  t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks');
  return { ann, list: async () => names(await asSession.list(engine, room, mod.session)) };
}

t.test('a waiting page silent longer than the default 6 s but under the setting keeps its place', async (t) => {
  const clock = new FakeClock();
  const [byDefault, widened] = await Promise.all([
    appFor(t, { clock }),
    appFor(t, { clock, env: { SERVICE_WAITING_CLOSED_WINDOW_SECS: '10' } }),
  ]);
  const [a, b] = await Promise.all([oneWaiting(t, byDefault), oneWaiting(t, widened)]);
  /** Time passes; each daemon's one-second sweep has run meanwhile. */
  const silence = (ms: number) => {
    clock.advance(ms);
    byDefault.services.waiting.sweep();
    widened.services.waiting.sweep();
  };
  silence(7500);
  t.same(await a.list(), [], 'default: after 7.5 s without a poll the moderator no longer sees Ann');
  t.equal((await a.ann.poll()).status, 404, 'default: her request was closed');
  t.same(await b.list(), ['Ann'], 'closed window of 10 s: the moderator still sees Ann after 7.5 s');
  t.same((await b.ann.poll()).body, { status: 'waiting' }, 'and her late poll still answers waiting');
  silence(11_000);
  t.same(await b.list(), [], 'closed window of 10 s: 11 s of silence after her last poll close it');
  t.equal((await b.ann.poll()).status, 404);
});

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
