// Issue 35 (point 2): a free room is claimed by its rendezvous successor only, and a non-owner's
// answer tells nothing of a room. Two engines (node-a, node-b) on one PostgreSQL database, each with
// its room ownership over the leases, in this process on one fake clock. Asked first, node-b does
// not claim node-a's room: it names node-a and writes no lease. Abuse: through node-b, an existing
// unlisted room, an id that names no room and a sub-group made through node-b get the same status,
// code and bytes (no id, no name, no count); only the id's successor reads whether the room exists
// and answers 404. A sub-group made through node-b is in node-a's families once node-a gains its
// main room (room-families.ts `reload`); one made through node-a is found by node-b on its first
// request for it (`mainRoomOf`), which names node-a though the group's own successor is node-b;
// one deleted through node-a is read again by node-b before it names a node (no ping-pong).
import postgres from 'postgres';
import type { Test } from 'tap';
import { successorOf } from '../../../src/engine/cluster/rendezvous.js';
import { call, rooms, type ApiResult, type Server } from '../../helpers/api.js';
import { clusterEngine } from '../../helpers/cluster-engines.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { postgresTest } from '../../helpers/postgres.js';
import { postgresStore } from '../../helpers/service-stores.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

const nodes = ['node-a', 'node-b'];

async function twoNodes(t: Test) {
  const store = await postgresStore(t);
  const clock = new FakeClock();
  const node = (nodeId: string) => clusterEngine(t, { store, clock, nodeId, alive: () => nodes });
  const a = await node('node-a');
  const b = await node('node-b');
  // One database, one first admin token: node-a issued it.
  const asAdmin = (d: Server): Server => ({
    ...d,
    api: (path, init = {}) => d.api(path, { ...init, token: init.token === undefined ? a.adminToken : init.token }),
  });
  const sql = postgres({ ...store.database!.options, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  const leases = async () =>
    (
      await sql<{ room_id: string; owner_node: string }[]>`
        SELECT room_id, owner_node FROM meet_engine.room_leases ORDER BY room_id`
    ).map((row) => `${row.room_id} ${row.owner_node}`);
  return { a: asAdmin(a), b: asAdmin(b), services: { a: a.services, b: b.services }, leases };
}

/** Everything of an answer an outsider sees but the node that sent it. */
const seen = (result: ApiResult) => ({
  status: result.status,
  type: result.headers.get('content-type'),
  text: result.text,
});

postgresTest('only a room’s successor claims it; a non-owner answers every room id alike', async (t) => {
  const { a, b, services, leases } = await twoNodes(t);
  for (const id of ['lesson-2', 'hidden-room', 'no-such-room'])
    t.equal(successorOf(id, nodes), 'node-a', `the fixture: ${id} is node-a's`);
  for (const id of ['lesson-2-g1', 'lesson-2-g2', 'ghost-2'])
    t.equal(successorOf(id, nodes), 'node-b', `the fixture: ${id} is node-b's`);

  await createRoom(t, a, { room_id: 'lesson-2', name: 'Lesson 2 of 7b', waiting_room: 'all' });
  // A sub-group made through node-b, before node-a serves its main room.
  /** A sub-group of lesson-2 made through `node`. */
  const group = (node: typeof a, room_id: string, name: string) =>
    call(node, '/api/rooms', { method: 'POST', json: { room_id, name, parent_room_id: 'lesson-2' } });
  t.equal((await group(b, 'lesson-2-g1', 'Group of 12')).status, 201);
  await services.a.rooms.create({ room_id: 'hidden-room', name: 'Secret council' }, { entry: 'token', unlisted: true });

  const asked = await new Browser(b, 'lesson-2').knock({ name: 'Ada' });
  t.equal(asked.status, 421, 'asked first, node-b does not claim node-a’s room');
  t.match(asked.body, { error: { code: 'room_elsewhere', owner_node: 'node-a' } });
  t.same(await leases(), [], 'no lease written');
  t.equal(services.a.families.roomOf('lesson-2-g1'), null, 'node-a has not read the group made through node-b yet');

  t.equal((await new Browser(a, 'lesson-2').knock({ name: 'Ada' })).status, 202, 'node-a, its successor, serves it');
  t.same(await leases(), ['lesson-2 node-a']);
  t.same(services.a.families.subgroupsOf('lesson-2'), ['lesson-2-g1'], 'gained: its family read anew');
  // Now the fence refuses node-b's writes of the family: its groups are made through node-a.
  const refused = await group(b, 'lesson-2-g2', 'Group 2');
  t.match([refused.status, refused.body?.error?.code], [421, 'lease_lost'], 'a group made through node-b: refused');
  t.equal((await group(a, 'lesson-2-g2', 'Group 2')).status, 201);
  t.equal(services.b.families.roomOf('lesson-2-g2'), null, 'node-b has not read the group made through node-a');

  // Through node-b: an unlisted room, no room, a sub-group, a free room, a held one.
  for (const [method, sub, json] of [
    ['POST', '/knock', { name: 'Eve' }],
    ['POST', '/start', { name: 'Eve' }],
    ['GET', '/waiting', undefined],
    ['GET', '/waiting-list', undefined],
  ] as const) {
    const answers = new Map<string, ReturnType<typeof seen>>();
    for (const id of ['hidden-room', 'no-such-room', 'lesson-2-g1', 'lesson-2-g2', 'lesson-2'])
      answers.set(id, seen(await new Browser(b, id).request(method, sub, json ? { json } : {})));
    const first = answers.get('hidden-room')!;
    t.equal(first.status, 421, `${method} ${sub}: 421`);
    t.match(JSON.parse(first.text), { error: { code: 'room_elsewhere', owner_node: 'node-a' } });
    for (const [id, answer] of answers) t.same(answer, first, `${method} ${sub} ${id}: the same bytes`);
    t.notMatch(first.text, /hidden|Secret|council|lesson|Lesson|no-such|Group|\d/, 'no id, no name, no count');
  }
  t.same(await leases(), ['lesson-2 node-a'], 'nothing claimed through node-b, nothing for no room');
  // lesson-2-g2's own successor is node-b: node-b named node-a because it read the group's parent.
  t.equal(services.b.families.roomOf('lesson-2-g2'), null, 'and keeps nothing of a family it does not serve');

  // Only the successor of an id reads whether it names a room.
  t.equal((await new Browser(a, 'no-such-room').knock({ name: 'Eve' })).status, 404, 'no room: its successor says so');
  t.equal((await new Browser(b, 'ghost-2').knock({ name: 'Eve' })).status, 404, 'on node-b for an id of its own');
  const ghost = await new Browser(a, 'ghost-2').knock({ name: 'Eve' });
  t.match([ghost.status, ghost.body?.error?.owner_node], [421, 'node-b'], 'and node-a names node-b for it');
  const odd = 'x'.repeat(65);
  t.equal(
    (await new Browser(b, odd).knock({ name: 'Eve' })).status,
    (await new Browser(a, odd).knock({ name: 'Eve' })).status,
    'an id that is none: the route’s answer on both',
  );
  t.same(await leases(), ['lesson-2 node-a'], 'no lease for an id that names no room');

  // A group deleted through its owner: node-b, which kept it, reads it again before it names a
  // node, so the two nodes do not send a page back and forth (each naming the other).
  t.equal((await rooms.delete(a, 'lesson-2-g1')).status, 204);
  const gone = await new Browser(b, 'lesson-2-g1').knock({ name: 'Eve' });
  t.equal(gone.status, 404, 'node-b, the deleted id’s successor, says 404');
  const viaA = await new Browser(a, 'lesson-2-g1').knock({ name: 'Eve' });
  t.match([viaA.status, viaA.body?.error?.owner_node], [421, 'node-b'], 'node-a names node-b for it');
});
