// Issue 35 (points 2 and 3): a free room is claimed by its rendezvous successor only, and through a
// non-owner a room answers exactly what its owner answers. Two engines (node-a, node-b) on one
// PostgreSQL database, forwarding to each other over one in-memory bus, in this process on one fake
// clock. Asked first, node-b does not claim node-a's room: it forwards the knock to node-a, which
// claims and serves it. Abuse (the leak forwarding closes): through node-b, an existing unlisted
// room, an id that names no room and sub-groups get the bytes node-a answers for them (no node
// named: before forwarding, node-b answered 421 naming the family's owner, which for a sub-group
// is not the id's own successor); a missing id is a 404 from its successor, forwarded. A sub-group
// made through node-b is in node-a's families once node-a gains its main room (room-families.ts
// `reload`); one made through node-a is found by node-b on its first request for it
// (`mainRoomOf`); one deleted through node-a is read again by node-b before it forwards (no
// ping-pong between two nodes each naming the other).
import postgres from 'postgres';
import type { Test } from 'tap';
import { successorOf } from '../../../src/engine/cluster/rendezvous.js';
import { call, rooms, type ApiResult } from '../../helpers/api.js';
import { forwardingNodes } from '../../helpers/cluster-engines.js';
import { postgresTest } from '../../helpers/postgres.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

const nodes = ['node-a', 'node-b'];

async function twoNodes(t: Test) {
  const nodes = await forwardingNodes(t);
  const sql = postgres({ ...nodes.store.database!.options, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  const leases = async () =>
    (
      await sql<{ room_id: string; owner_node: string }[]>`
        SELECT room_id, owner_node FROM meet_engine.room_leases ORDER BY room_id`
    ).map((row) => `${row.room_id} ${row.owner_node}`);
  return { a: nodes.a, b: nodes.b, services: { a: nodes.a.services, b: nodes.b.services }, leases };
}

/** Everything of an answer an outsider sees but the node that sent it. */
const seen = (result: ApiResult) => ({
  status: result.status,
  type: result.headers.get('content-type'),
  text: result.text,
});

postgresTest(
  'only a room’s successor claims it; through a non-owner every room id answers as on its owner',
  async (t) => {
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
    await services.a.rooms.create(
      { room_id: 'hidden-room', name: 'Secret council' },
      { entry: 'token', unlisted: true },
    );

    t.equal(services.a.families.roomOf('lesson-2-g1'), null, 'node-a has not read the group made through node-b yet');
    const asked = await new Browser(b, 'lesson-2').knock({ name: 'Ada' });
    t.equal(asked.status, 202, 'asked first, node-b forwards the knock to node-a, its successor');
    t.same(await leases(), ['lesson-2 node-a'], 'which claimed it; node-b claimed nothing');
    t.equal(services.b.meetings.current('lesson-2'), null, 'node-b holds nothing of it');
    t.same(services.a.families.subgroupsOf('lesson-2'), ['lesson-2-g1'], 'gained: its family read anew');
    // Now the fence refuses node-b's writes of the family: its groups are made through node-a.
    const refused = await group(b, 'lesson-2-g2', 'Group 2');
    t.match([refused.status, refused.body?.error?.code], [421, 'lease_lost'], 'a group made through node-b: refused');
    t.equal((await group(a, 'lesson-2-g2', 'Group 2')).status, 201);
    t.equal(services.b.families.roomOf('lesson-2-g2'), null, 'node-b has not read the group made through node-a');

    // Through node-b: an unlisted room, no room, two sub-groups, the held room: node-a's answers.
    for (const [method, sub, json] of [
      ['POST', '/knock', { name: 'Eve' }],
      ['POST', '/start', { name: 'Eve' }],
      ['GET', '/waiting', undefined],
      ['GET', '/waiting-list', undefined],
    ] as const) {
      for (const id of ['hidden-room', 'no-such-room', 'lesson-2-g1', 'lesson-2-g2', 'lesson-2']) {
        const viaB = seen(await new Browser(b, id).request(method, sub, json ? { json } : {}));
        const onA = seen(await new Browser(a, id).request(method, sub, json ? { json } : {}));
        t.same(viaB, onA, `${method} ${sub} ${id}: node-a's answer (${onA.status})`);
        t.notMatch(viaB.text, /node-|room_elsewhere/, 'no node named');
      }
    }
    t.same(await leases(), ['lesson-2 node-a', 'hidden-room node-a'].sort(), 'nothing claimed for no room');
    t.equal(services.b.families.roomOf('lesson-2-g2'), null, 'node-b keeps nothing of a family it does not serve');

    // A missing id is a 404 from its successor, wherever it was asked.
    t.equal((await new Browser(b, 'ghost-2').knock({ name: 'Eve' })).status, 404, 'on node-b for an id of its own');
    const ghost = await new Browser(a, 'ghost-2').knock({ name: 'Eve' });
    t.same(seen(ghost), seen(await new Browser(b, 'ghost-2').knock({ name: 'Eve' })), 'through node-a: node-b’s 404');
    const odd = 'x'.repeat(65);
    t.equal(
      (await new Browser(b, odd).knock({ name: 'Eve' })).status,
      (await new Browser(a, odd).knock({ name: 'Eve' })).status,
      'an id that is none: the route’s answer on both',
    );
    t.same(await leases(), ['hidden-room node-a', 'lesson-2 node-a'], 'no lease for an id that names no room');

    // A group deleted through its owner: node-b, which kept it, reads it again before it forwards,
    // so the two nodes do not send a request back and forth.
    t.equal((await rooms.delete(a, 'lesson-2-g1')).status, 204);
    const gone = await new Browser(b, 'lesson-2-g1').knock({ name: 'Eve' });
    t.equal(gone.status, 404, 'node-b, the deleted id’s successor, says 404');
    t.same(seen(await new Browser(a, 'lesson-2-g1').knock({ name: 'Eve' })), seen(gone), 'and node-a forwards to it');
  },
);
