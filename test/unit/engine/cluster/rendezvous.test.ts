// Issue 35 stage 2: the rendezvous choice of a room's owner. Every node computes the same owner
// from the same live nodes, whatever their order; a node leaving moves only its own rooms; three
// nodes share 1,000 rooms roughly evenly.
import t from 'tap';
import { successorOf } from '../../../../src/engine/cluster/rendezvous.js';

const rooms = Array.from({ length: 1000 }, (_, i) => `room-${i.toString(36)}-x`);
const nodes = ['web-a', 'web-b', 'web-c'];

t.test('deterministic, and the same for every order of the live nodes', async (t) => {
  t.equal(successorOf('abc-def-ghj', []), null, 'no live node, no owner');
  t.equal(successorOf('abc-def-ghj', ['web-a']), 'web-a');
  for (const room of rooms.slice(0, 200)) {
    const owner = successorOf(room, nodes);
    t.ok(owner !== null && nodes.includes(owner));
    // Each node sees the list in its own order (its own id first, as NodePresence.aliveNodes gives it).
    for (const view of [['web-b', 'web-a', 'web-c'], ['web-c', 'web-b', 'web-a'], [...nodes].reverse()])
      if (successorOf(room, view) !== owner) t.fail(`${room}: ${view.join(',')} disagrees`);
    if (successorOf(room, nodes) !== owner) t.fail(`${room}: not deterministic`);
  }
});

t.test('removing a node moves only its rooms; adding one takes rooms only to itself', async (t) => {
  const before = new Map(rooms.map((room) => [room, successorOf(room, nodes)]));
  const after = new Map(rooms.map((room) => [room, successorOf(room, ['web-a', 'web-c'])]));
  let moved = 0;
  for (const room of rooms) {
    if (before.get(room) === 'web-b') {
      moved += 1;
      t.not(after.get(room), 'web-b');
    } else if (after.get(room) !== before.get(room)) t.fail(`${room} moved from ${before.get(room)} without cause`);
  }
  t.ok(moved > 0, `${moved} rooms of web-b moved, no other room did`);
  const grown = new Map(rooms.map((room) => [room, successorOf(room, [...nodes, 'web-d'])]));
  for (const room of rooms)
    if (grown.get(room) !== before.get(room) && grown.get(room) !== 'web-d') t.fail(`${room} moved between old nodes`);
});

t.test('three nodes share 1,000 rooms within reason', async (t) => {
  const counts = new Map<string, number>();
  for (const room of rooms) counts.set(successorOf(room, nodes)!, (counts.get(successorOf(room, nodes)!) ?? 0) + 1);
  t.same([...counts.keys()].sort(), nodes);
  for (const [node, count] of counts) t.ok(count > 250 && count < 420, `${node} owns ${count} of 1,000`);
});
