// Issue 31 points 4 and 5 over a real daemon's live socket and HTTP. Turning the waiting room off
// (room page, rooms API, live switch) admits everyone waiting but a request marked "barred earlier
// as …": it keeps waiting, and the answer counts it (`skipped`). And every removal the moderators'
// lists are told carries what became of the request (`outcomes`), so a second moderator's page can
// say "Admitted by another moderator" or "Left the waiting room" before her list closes up.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { connectLive } from '../../helpers/live.js';
import { asSession, Browser, createRoom, moderator, waitingApi } from '../../helpers/waiting.js';

type Item = { request_id: string; name: string; barred_as?: string };

onEachServiceStore(
  'turning the waiting room off skips marked requests; removals carry their outcome',
  async (t, store) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t), store.env);
    await createRoom(t, d, { room_id: 'lesson', name: 'Lesson', waiting_room: 'all' });
    const keller = await moderator(d, 'lesson', 'Ms Keller');
    const braun = await moderator(d, 'lesson', 'Mr Braun');
    const { client: live } = await connectLive(d, 'lesson', braun.session);
    await live.next('waiting_list');
    const idOf = async (name: string) =>
      ((await asSession.list(d, 'lesson', keller.session)).body as Item[]).find((i) => i.name === name)!.request_id;

    const jonas = new Browser(d, 'lesson');
    await jonas.knock({ name: 'Jonas' });
    const ann = new Browser(d, 'lesson');
    await ann.knock({ name: 'Ann' });
    const bob = new Browser(d, 'lesson');
    await bob.knock({ name: 'Bob' });
    const [jonasId, annId, bobId] = [await idOf('Jonas'), await idOf('Ann'), await idOf('Bob')];

    t.equal((await asSession.refuse(d, 'lesson', keller.session, { request_id: jonasId, bar: true })).status, 200);
    t.same(
      (await live.next('waiting_changes', (m) => m.removed.includes(jonasId))).outcomes,
      { [jonasId]: 'barred' },
      'the other moderator is told that Ms Keller barred him',
    );
    t.equal((await asSession.admit(d, 'lesson', keller.session, { request_id: annId })).status, 200);
    t.same((await live.next('waiting_changes', (m) => m.removed.includes(annId))).outcomes, { [annId]: 'admitted' });
    t.equal((await bob.withdraw()).status < 300, true, 'Bob leaves the waiting room');
    t.same((await live.next('waiting_changes', (m) => m.removed.includes(bobId))).outcomes, { [bobId]: 'left' });

    // Jonas again from a fresh profile (marked), and Lena.
    const fresh = new Browser(d, 'lesson');
    await fresh.knock({ name: 'JONAS' });
    const lena = new Browser(d, 'lesson');
    await lena.knock({ name: 'Lena' });
    const lenaId = await idOf('Lena');
    const off = await asSession.disable(d, 'lesson', keller.session);
    t.same([off.status, off.body], [200, { admitted: 1, skipped: 1 }], 'the room page answers how many it skipped');
    t.equal((await lena.poll()).body.status, 'admitted', 'Lena is in');
    t.same((await fresh.poll()).body, { status: 'waiting' }, 'the marked request keeps waiting');
    t.same(
      (await live.next('waiting_changes', (m) => m.removed.includes(lenaId))).outcomes,
      { [lenaId]: 'admitted' },
      'the switch removes Lena only',
    );
    t.same(
      ((await asSession.list(d, 'lesson', keller.session)).body as Item[]).map((i) => [i.name, i.barred_as]),
      [['JONAS', 'Jonas']],
      'he is still listed, marked, for a moderator to decide',
    );
    const again = await waitingApi.disable(d, 'lesson');
    t.same([again.status, again.body], [200, { admitted: 0, skipped: 1 }], 'the rooms API answers the same');
  },
);

// Issue 31 point 5: her arrival under until_moderator let everyone in but the marked; her page is told once how many.
onEachServiceStore(
  'a moderator arriving under until_moderator is told once how many marked requests still wait',
  async (t, store) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t), store.env);
    const room = 'class-7c';
    await createRoom(t, d, { room_id: room, name: '7c', waiting_room: 'all', waiting_room_mode: 'until_moderator' });
    const first = new Browser(d, room);
    await first.knock({ name: 'Jonas' });
    const barredId = ((await waitingApi.list(d, room)).body as Item[])[0]!.request_id;
    t.equal((await waitingApi.refuse(d, room, barredId, true)).status, 200, 'the platform bars him');
    for (const name of ['JONAS', 'jonas', 'Lena']) await new Browser(d, room).knock({ name });

    const keller = await moderator(d, room, 'Ms Keller');
    const { client: live } = await connectLive(d, room, keller.session);
    const list = await live.next('waiting_list');
    t.equal(list.skipped, 2, 'the first list she gets says her arrival left two marked requests waiting');
    t.same(
      list.requests.map((i) => i.barred_as),
      ['Jonas', 'Jonas'],
      'and lists them, marked',
    );
    live.socket.close();
    const { client: again } = await connectLive(d, room, keller.session);
    t.equal((await again.next('waiting_list')).skipped, undefined, 'said once: a reconnection does not say it again');
    again.socket.close();

    // With nobody marked, nothing is said.
    await createRoom(t, d, {
      room_id: 'open',
      name: 'Open',
      waiting_room: 'all',
      waiting_room_mode: 'until_moderator',
    });
    await new Browser(d, 'open').knock({ name: 'Ann' });
    const braun = await moderator(d, 'open', 'Mr Braun');
    const { client: other } = await connectLive(d, 'open', braun.session);
    t.equal((await other.next('waiting_list')).skipped, undefined);
    other.socket.close();
  },
);
