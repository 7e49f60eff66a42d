// Issue 31 point 5 over HTTP, in-process: a pupil barred in this meeting knocks again from a fresh
// browser profile (no cookie, so no bar). His request is marked "barred as" in both lists a
// moderator reads, and Admit all (room page and rooms API) leaves him waiting and counts him as skipped.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { appFor } from '../../helpers/app.js';
import { Browser, asSession, createRoom, moderator, timeline, waitingApi } from '../../helpers/waiting.js';

type Item = { request_id: string; name: string; barred_as?: string };

onEachServiceStore('a name barred in this meeting marks a new request; admit all skips it', async (t, store) => {
  const d = await appFor(t, { store });
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

// Under until_moderator nobody decides: the moderator's arrival lets everyone in, and used to let the marked in too.
onEachServiceStore(
  'a moderator arriving under until_moderator leaves the marked requests waiting, counted',
  async (t, store) => {
    const d = await appFor(t, { store });
    const room = 'class-7c';
    await createRoom(t, d, { room_id: room, name: '7c', waiting_room: 'all', waiting_room_mode: 'until_moderator' });
    const first = new Browser(d, room);
    t.equal((await first.knock({ name: 'Jonas Groß' })).status, 202, 'no moderator yet: he waits');
    const barredId = ((await waitingApi.list(d, room)).body as Item[])[0]!.request_id;
    t.equal((await waitingApi.refuse(d, room, barredId, true)).status, 200, 'the platform bars him through the API');

    const fresh = new Browser(d, room);
    t.equal((await fresh.knock({ name: 'jonas gross' })).status, 202);
    const lena = new Browser(d, room);
    t.equal((await lena.knock({ name: 'Lena' })).status, 202);

    const mod = await moderator(d, room, 'Ms Keller');
    t.equal((await lena.poll()).body?.status, 'admitted', 'Lena enters with the moderator');
    t.same((await fresh.poll()).body, { status: 'waiting' }, 'the marked request keeps waiting');
    t.same(
      ((await asSession.list(d, room, mod.session)).body as Item[]).map((i) => [i.name, i.barred_as]),
      [['jonas gross', 'Jonas Groß']],
      'the moderator sees him marked and decides',
    );
    t.match(
      (await timeline(d, room)).filter((e) => e.kind === 'admit_all'),
      [{ actor: null, count: 1, skipped: 1 }],
      'the rooms API timeline counts the skipped one, as for Admit all',
    );
    t.same((await waitingApi.admitAll(d, room)).body, { admitted: 0, skipped: 1 }, 'Admit all skips him too');
    const entries = (await timeline(d, room)).filter((e) => e.kind === 'admit_all');
    t.match(entries.at(-1), { actor: { kind: 'api' }, count: 0, skipped: 1 }, 'and its entry says so the same way');
  },
);
