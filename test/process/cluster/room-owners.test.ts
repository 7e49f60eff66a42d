// Issue 35 stage 2 (point 2) with real daemons: two `meetctl serve` nodes on one PostgreSQL and
// one nats-server. A room is owned by the node that served it first: both nodes name that owner
// to an admin, and the other answers the room's addresses 421 room_elsewhere naming it and
// nothing else of the room. Abuse: an id that is no room's, an odd id, a client's X-Meet-Node.
// After a kill -9 of the owner the other node owns the room within seconds at a higher epoch
// (its lock went with the process), and the waiting requests knocked before are still in
// PostgreSQL, in their order.
import { startTwoNodes } from '../../helpers/cluster-nodes.js';
import { apiOf, stopDaemon } from '../../helpers/daemon.js';
import { clusterTest } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { Browser, createRoom, names, waitingApi } from '../../helpers/waiting.js';
import { call, rooms } from '../../helpers/api.js';
import postgres from 'postgres';

clusterTest('one owner per room: the other node answers 421 naming it, and takes over after a kill -9', async (t) => {
  const { a, b, db } = await startTwoNodes(t);
  const sql = postgres({ ...db.options, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  // One database, one first admin token: written into the data directory of whichever node issued it.
  const token = a.adminToken || b.adminToken;
  const nodeA = { api: apiOf(a.url, token), adminToken: token };
  const nodeB = { api: apiOf(b.url, token), adminToken: token };
  const leases = () => sql<{ room_id: string; owner_node: string; epoch: string }[]>`
    SELECT room_id, owner_node, epoch::text FROM meet_engine.room_leases ORDER BY room_id`;

  await createRoom(t, nodeA, { room_id: 'class-7b', name: 'Class 7b', waiting_room: 'all' });
  t.same(await leases(), [], 'making a room claims nothing');
  t.equal((await rooms.get(nodeB, 'class-7b')).body.owner_node, null, 'nobody serves it yet');

  const ada = new Browser(nodeA, 'class-7b');
  t.equal((await ada.knock({ name: 'Ada', note: 'first' })).status, 202, 'A serves the room it was asked first');
  for (const [node, id] of [
    [nodeA, 'A'],
    [nodeB, 'B'],
  ] as const)
    t.equal((await rooms.get(node, 'class-7b')).body.owner_node, 'node-a', `${id} names node-a the owner`);
  t.same(await leases(), [{ room_id: 'class-7b', owner_node: 'node-a', epoch: '1' }]);

  const elsewhere = await new Browser(nodeB, 'class-7b').knock({ name: 'Bea' });
  t.equal(elsewhere.status, 421);
  t.same(Object.keys(elsewhere.body.error).sort(), ['code', 'message', 'owner_node'], 'the owner, nothing else');
  t.match(elsewhere.body.error, { code: 'room_elsewhere', owner_node: 'node-a' });
  t.equal(elsewhere.headers.get('x-meet-node'), 'node-b');
  const polled = await new Browser(nodeB, 'class-7b').request('GET', '/waiting');
  t.equal(polled.status, 421, 'her poll through B too');
  const forged = await call(nodeB, '/room/class-7b/knock', {
    method: 'POST',
    token: null,
    headers: { 'x-meet-node': 'node-b' },
    json: { name: 'Forger' },
  });
  t.match([forged.status, forged.body.error.owner_node], [421, 'node-a'], "a client's X-Meet-Node changes nothing");
  t.equal((await waitingApi.list(nodeB, 'class-7b')).status, 421, 'the rooms API on the waiting room too');
  t.equal((await waitingApi.list(nodeB, 'class-7b', null)).status, 401, 'without a token: no owner named');
  t.equal((await new Browser(nodeB, 'no-such-room').knock({ name: 'Eve' })).status, 404, 'no room: the route answers');
  t.equal((await new Browser(nodeB, 'x'.repeat(65)).knock({ name: 'Eve' })).status, 404, 'no room id at all');
  t.equal(
    (await call(nodeB, '/room/..%2Fclass-7b/knock', { method: 'POST', token: null, json: { name: 'Eve' } })).status,
    404,
  );
  t.same(
    (await leases()).map((l) => l.room_id),
    ['class-7b'],
    'no lease for an id that names no room',
  );

  for (const name of ['Bob', 'Cy']) t.equal((await new Browser(nodeA, 'class-7b').knock({ name })).status, 202);
  t.same(names(await waitingApi.list(nodeA, 'class-7b')), ['Ada', 'Bob', 'Cy']);

  t.equal(await stopDaemon(a, 'SIGKILL'), 'SIGKILL');
  await until(
    'B owns the room',
    async () => (await rooms.get(nodeB, 'class-7b')).body.owner_node === 'node-b',
    20_000,
    200,
  );
  const [lease] = await leases();
  t.equal(lease?.owner_node, 'node-b');
  t.ok(Number(lease?.epoch) > 1, `a higher epoch (${lease?.epoch})`);
  const kept = await sql<{ name: string; state: string; note: string }[]>`
    SELECT w.name, w.state, w.note FROM meet_engine.waiting_requests w JOIN meet_engine.meetings m USING (meeting_id)
    WHERE m.room_id = 'class-7b' ORDER BY w.knocked_at COLLATE "C", w.ordinal`;
  t.same(
    kept.map((r) => [r.name, r.state]),
    [
      ['Ada', 'waiting'],
      ['Bob', 'waiting'],
      ['Cy', 'waiting'],
    ],
    'the waiting requests knocked before, in order',
  );
  t.equal(kept[0]?.note, 'first');
});
