// Issue 31 point 5 over HTTP, in-process: a pupil barred in this meeting knocks again from a fresh
// browser profile (no cookie, so no bar). His request is marked "barred as" in both lists a
// moderator reads, and Admit all (room page and rooms API) leaves him waiting and counts him as skipped.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { Browser, asSession, createRoom, moderator, waitingApi } from '../../helpers/waiting.js';

type Item = { request_id: string; name: string; barred_as?: string };

t.test('a name barred in this meeting marks a new request; admit all skips it', async (t) => {
  const d = await appFor(t);
  const room = 'class-7b';
  await createRoom(t, d, { room_id: room, name: '7b', waiting_room: 'all' });
  const mod = await moderator(d, room);
  const listed = async () => (await asSession.list(d, room, mod.session)).body as Item[];

  const first = new Browser(d, room);
  t.equal((await first.knock({ name: 'Jonas Groß' })).status, 202);
  const barredId = (await listed())[0]!.request_id;
  t.equal((await asSession.refuse(d, room, mod.session, { request_id: barredId, bar: true })).status, 200);
  t.equal((await first.knock({ name: 'Jonas Groß' })).status, 403, 'his own browser stays barred');

  const fresh = new Browser(d, room);
  t.equal((await fresh.knock({ name: ' jonas GROSS ' })).status, 202, 'a fresh profile may knock: no IP bans');
  const freshAccent = new Browser(d, room);
  t.equal((await freshAccent.knock({ name: 'JONAS GROß' })).status, 202);
  const other = new Browser(d, room);
  t.equal((await other.knock({ name: 'Lena' })).status, 202);

  const items = await listed();
  t.same(
    items.map((i) => [i.name, i.barred_as]),
    [
      ['jonas GROSS', 'Jonas Groß'],
      ['JONAS GROß', 'Jonas Groß'],
      ['Lena', undefined],
    ],
    'the room page list marks the same name, case (ß is SS) and spaces aside',
  );
  const api = (await waitingApi.list(d, room)).body as Item[];
  t.same(
    api.map((i) => i.barred_as ?? null),
    ['Jonas Groß', 'Jonas Groß', null],
    'so does the rooms API list',
  );
  t.same((await freshAccent.poll()).body, { status: 'waiting' }, 'marked, not barred: he waits');

  const all = await asSession.admit(d, room, mod.session, { all: true });
  t.equal(all.status, 200);
  t.same(all.body, { admitted: 1, skipped: 2 }, 'admit all says how many it skipped');
  t.same((await freshAccent.poll()).body, { status: 'waiting' }, 'the marked request is still waiting');
  t.same(
    (await listed()).map((i) => i.name),
    ['jonas GROSS', 'JONAS GROß'],
  );
  const viaApi = await waitingApi.admitAll(d, room);
  t.same(viaApi.body, { admitted: 0, skipped: 2 }, 'the rooms API answers the same way');
});
