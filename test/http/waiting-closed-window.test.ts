// SERVICE_WAITING_CLOSED_WINDOW_SECS: how long a waiting page may stay silent before its request
// counts as a closed window (default 6 s, three of the page's 2 s polls). Two real daemons side
// by side, the same silence: the default one closes the request, the one set to 10 s keeps it,
// and still closes it once the longer silence has passed.
import t from 'tap';
import { daemonFor, type Tap } from '../helpers/api.js';
import { Browser, asSession, createRoom, moderator, names, sleep } from '../helpers/waiting.js';
import type { Daemon } from '../helpers/daemon.js';

async function oneWaiting(t: Tap, daemon: Daemon) {
  const room = 'silent-page';
  await createRoom(t, daemon, { room_id: room, name: 'Silent page', waiting_room: 'all' });
  const mod = await moderator(daemon, room, 'Mo Window');
  const ann = new Browser(daemon, room);
  t.equal((await ann.knock({ name: 'Ann' })).status, 202, 'Ann knocks');
  return { ann, list: async () => names(await asSession.list(daemon, room, mod.session)) };
}

t.test('a waiting page silent longer than the default 6 s but under the setting keeps its place', async (t) => {
  const [byDefault, widened] = await Promise.all([daemonFor(t), daemonFor(t, { env: { SERVICE_WAITING_CLOSED_WINDOW_SECS: '10' } })]);
  const [a, b] = await Promise.all([oneWaiting(t, byDefault), oneWaiting(t, widened)]);
  await sleep(7500);
  t.same(await a.list(), [], 'default: after 7.5 s without a poll the moderator no longer sees Ann');
  t.equal((await a.ann.poll()).status, 404, 'default: her request was closed');
  t.same(await b.list(), ['Ann'], 'closed window of 10 s: the moderator still sees Ann after 7.5 s');
  t.same((await b.ann.poll()).body, { status: 'waiting' }, 'and her late poll still answers waiting');
  await sleep(11_000);
  t.same(await b.list(), [], 'closed window of 10 s: 11 s of silence after her last poll close it');
  t.equal((await b.ann.poll()).status, 404);
});
