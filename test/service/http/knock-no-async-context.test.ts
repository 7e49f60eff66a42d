// Issue 34 point 7: on Node 20 an AsyncLocalStorage that ran once makes every promise of the
// process run async_hooks' hooks, the largest part of what a knock cost above the tree before the
// asynchronous stores. On SQLite the knock's path finds its room turn, its group commit's
// transaction and the unit of work without one (KeyedQueue.runAlone, the group's and
// AsyncTransactions.inSteps' synchronous steps): a daemon that knocks, lists, admits, bars and
// answers polls, and sweeps with nothing due (the engine built in-process as `meetctl serve` builds it) never runs a storage.
import t from 'tap';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tap } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';
import { Browser, createRoom, waitingApi } from '../../helpers/waiting.js';

/** Every AsyncLocalStorage.run and enterWith of the process while `counting`, with where it came from. */
function spyOnStorages(t: Tap): { counting: boolean; calls: string[] } {
  const spy = { counting: false, calls: [] as string[] };
  const proto = AsyncLocalStorage.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['run', 'enterWith']) {
    const real = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      if (spy.counting) spy.calls.push(`${name} ${new Error().stack?.split('\n')[2]?.trim() ?? ''}`);
      return real.apply(this, args);
    };
    t.teardown(() => void (proto[name] = real));
  }
  return spy;
}

type Item = { request_id: string; name: string };

t.test('knocks, a list, an admission, a bar and polls run no AsyncLocalStorage on SQLite', async (t) => {
  const spy = spyOnStorages(t);
  spy.counting = true;
  const d = await appFor(t);
  // As a serving daemon: what a start settles (statistics, moderator succession), then the sweep.
  d.services.startSweeping((err) => t.error(err));
  const rooms = ['nine-a', 'nine-b'];
  for (const room_id of rooms) await createRoom(t, d, { room_id, name: room_id, waiting_room: 'all' });

  // Knocks at once in two rooms share group commits; the first of each room starts its meeting.
  const browsers = rooms.flatMap((room) =>
    ['Ada', 'Ben', 'Cem'].map((name) => ({ room, name, b: new Browser(d, room) })),
  );
  const knocked = await Promise.all(browsers.map(({ name, b }) => b.knock({ name })));
  t.same(
    knocked.map((r) => r.status),
    browsers.map(() => 202),
    'every knock is waiting',
  );
  for (const { b } of browsers) t.same((await b.poll()).body, { status: 'waiting' });

  const listed = (await waitingApi.list(d, 'nine-a')).body as Item[];
  t.same(
    listed.map((i) => i.name),
    ['Ada', 'Ben', 'Cem'],
  );
  const [ada, ben] = listed;
  t.equal((await waitingApi.admit(d, 'nine-a', ada!.request_id)).status, 200, 'Ada admitted');
  t.equal((await waitingApi.refuse(d, 'nine-a', ben!.request_id, true)).status, 200, 'Ben barred');
  t.match((await browsers[0]!.b.poll()).body, { status: 'admitted' }, 'her poll says admitted');
  t.match((await browsers[1]!.b.poll()).body, { status: 'barred' }, 'his says barred');
  t.same(
    ((await waitingApi.list(d, 'nine-a')).body as Item[]).map((i) => i.name),
    ['Cem'],
  );
  // The daemon's sweep with nothing due (the timer's work each second).
  await d.services.waiting.sweep();
  t.same(spy.calls, [], 'no AsyncLocalStorage ran');
});
