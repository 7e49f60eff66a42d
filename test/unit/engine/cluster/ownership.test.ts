// Issue 35 stage 2: a node's rooms under a fake clock and the memory leases. A free room is claimed
// by its rendezvous successor only (on first use) and renewed on every beat; another node is told
// who owns it, or names the successor (for a missing room too); a live owner keeps its rooms when
// a node joins; when the owner dies, the
// successor by rendezvous takes the room on its own beat at the next epoch, and the old owner,
// waking up, finds the lease gone and drops the room; a clean stop releases every lease at once.
import t from 'tap';
import { leaseMs } from '../../../../src/engine/cluster/leases.js';
import { RoomOwnership } from '../../../../src/engine/cluster/ownership.js';
import { beatEveryMs } from '../../../../src/engine/cluster/nodes.js';
import { successorOf } from '../../../../src/engine/cluster/rendezvous.js';
import { FakeClock, FakeScheduler } from '../../../helpers/fake-clock.js';
import { MemoryLeaseStore } from '../../../helpers/memory-leases.js';

/** `open`: the rooms with an open meeting (a test may add to it). */
function world(rooms: string[], open: string[] = []) {
  const clock = new FakeClock();
  const scheduler = new FakeScheduler(clock);
  const alive = new Set<string>();
  const leases = new MemoryLeaseStore(
    (roomId) => rooms.includes(roomId),
    (nodeId) => alive.has(nodeId),
    () => open,
  );
  const node = (nodeId: string) => {
    alive.add(nodeId);
    const lost: string[] = [];
    const gained: string[] = [];
    const ownership = new RoomOwnership({
      leases,
      nodeId,
      clock,
      scheduler,
      aliveNodes: () => Promise.resolve([...alive]),
    });
    ownership.onLost((roomId) => lost.push(roomId));
    ownership.onGained((roomId) => void gained.push(roomId));
    ownership.start();
    return { ownership, lost, gained };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  const step = async (ms: number) => {
    for (let done = 0; done < ms; done += beatEveryMs) {
      scheduler.advance(Math.min(beatEveryMs, ms - done));
      await settle();
      scheduler.advance(0);
      await settle();
    }
  };
  return { clock, scheduler, alive, leases, node, step };
}

t.test('only the successor claims a free room; the others name it, a room or not, and write nothing', async (t) => {
  const { leases, node, step } = world(['room-1']);
  const a = node('web-a');
  const b = node('web-b');
  t.equal(successorOf('room-1', ['web-a', 'web-b']), 'web-b', 'the fixture: room-1 is web-b’s');
  t.same(await a.ownership.where('room-1'), { mine: false, owner: 'web-b' }, 'asked first, web-a does not claim it');
  t.equal(await leases.get('room-1'), null, 'no lease written');
  t.same(a.gained, []);
  t.same(await b.ownership.where('room-1'), { mine: true, epoch: 1 });
  t.same(b.gained, ['room-1']);
  t.same(await a.ownership.where('room-1'), { mine: false, owner: 'web-b' });
  t.equal(await a.ownership.ownerOf('room-1'), 'web-b');
  t.equal(b.ownership.epochOf('room-1'), 1);
  t.equal(a.ownership.epochOf('room-1'), undefined);
  await step(3 * leaseMs);
  t.same(await a.ownership.where('room-1'), { mine: false, owner: 'web-b' }, 'renewed: still held after 3 lease times');
  t.same((await leases.get('room-1'))?.epoch, 1);
  t.equal(successorOf('no-such-room', ['web-a', 'web-b']), 'web-b');
  t.same(
    await a.ownership.where('no-such-room'),
    { mine: false, owner: 'web-b' },
    'no room: the same answer as for a free room, its successor named',
  );
  t.same(await b.ownership.where('no-such-room'), { mine: false, owner: null }, 'the successor alone finds no room');
  t.equal(await leases.get('no-such-room'), null, 'and no lease');
});

t.test('a live owner keeps its room when a node joins; a room let go goes to its successor', async (t) => {
  const { leases, node, step } = world(['room-9']);
  t.equal(successorOf('room-9', ['web-a', 'web-b']), 'web-a', 'the fixture');
  t.equal(successorOf('room-9', ['web-a', 'web-b', 'web-c']), 'web-c', 'the fixture');
  const a = node('web-a');
  const b = node('web-b');
  t.same(await a.ownership.where('room-9'), { mine: true, epoch: 1 });
  const c = node('web-c');
  t.same(await c.ownership.where('room-9'), { mine: false, owner: 'web-a' }, 'the new successor names the owner');
  t.same(await b.ownership.where('room-9'), { mine: false, owner: 'web-a' });
  await step(2 * leaseMs);
  t.same(c.gained, [], 'nor takes it on its beats: no flapping');
  const kept = await leases.get('room-9');
  t.same([kept?.ownerNode, kept?.epoch], ['web-a', 1]);
  await a.ownership.stop();
  t.same(await b.ownership.where('room-9'), { mine: false, owner: 'web-c' }, 'released: named to its successor');
  t.same(await c.ownership.where('room-9'), { mine: true, epoch: 2 }, 'which claims it');
});

t.test('a dead owner: its successor takes the room on its beat, the old owner drops it', async (t) => {
  const { alive, leases, node, step } = world(['room-1', 'room-2', 'room-3']);
  const a = node('web-a');
  // Claimed while web-a is alone, kept when the others join.
  for (const room of ['room-1', 'room-2', 'room-3']) t.ok((await a.ownership.where(room)).mine);
  const b = node('web-b');
  const c = node('web-c');
  alive.delete('web-a');
  // Asked before the successor's beat: every node names the same successor.
  for (const room of ['room-1', 'room-2', 'room-3']) {
    const successor = successorOf(room, ['web-b', 'web-c']);
    const asked = successor === 'web-b' ? c : b;
    t.same(await asked.ownership.where(room), { mine: false, owner: successor }, `${room}: ${successor}`);
  }
  await step(beatEveryMs);
  for (const room of ['room-1', 'room-2', 'room-3']) {
    const lease = await leases.get(room);
    t.equal(lease?.ownerNode, successorOf(room, ['web-b', 'web-c']), `${room} taken by its successor`);
    t.equal(lease?.epoch, 2, 'at the next epoch');
  }
  t.same([...b.gained, ...c.gained].sort(), ['room-1', 'room-2', 'room-3']);
  // web-a was only frozen: its next beat finds every lease gone.
  alive.add('web-a');
  t.same(a.lost, [], 'not yet told');
  await step(beatEveryMs);
  t.same(a.lost.sort(), ['room-1', 'room-2', 'room-3'], 'the woken owner drops its rooms');
  t.same(a.ownership.heldRooms(), []);
});

t.test('a fenced write drops the room; a clean stop releases every lease at once', async (t) => {
  const { leases, node, scheduler } = world(['room-1', 'room-2']);
  const a = node('web-a');
  await a.ownership.where('room-1');
  await a.ownership.where('room-2');
  const b = node('web-b');
  a.ownership.lost('room-1');
  scheduler.advance(0);
  t.same(a.lost, ['room-1']);
  t.equal(a.ownership.epochOf('room-1'), undefined);
  await a.ownership.stop();
  t.same(await b.ownership.where('room-2'), { mine: true, epoch: 2 }, 'released: taken at once, next epoch');
  t.same((await leases.get('room-1'))?.ownerNode, 'web-a', 'a lost lease is not released by its old holder');
});

t.test(
  'a room gained is served only once adopted; a failed adoption lets it go and the next claim adopts',
  async (t) => {
    const { clock, scheduler, alive, leases } = world(['room-1']);
    alive.add('web-a');
    const ownership = new RoomOwnership({
      leases,
      nodeId: 'web-a',
      clock,
      scheduler,
      aliveNodes: () => Promise.resolve([...alive]),
    });
    let release: () => void = () => {};
    let fail = true;
    const adopted: string[] = [];
    ownership.onGained(async (roomId) => {
      if (fail) throw new Error('the store is away');
      await new Promise<void>((resolve) => (release = resolve));
      adopted.push(roomId);
    });
    await t.rejects(ownership.where('room-1'), /the store is away/, 'the request that claimed it fails');
    scheduler.advance(0);
    t.equal(ownership.epochOf('room-1'), undefined, 'not held half read');
    fail = false;
    const answered: string[] = [];
    const first = ownership.where('room-1').finally(() => answered.push('first'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Asked while the room is held (its lease won) but still being adopted.
    const second = ownership.where('room-1').finally(() => answered.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    t.same(answered, [], 'still adopting: neither request is answered');
    release();
    t.same(await Promise.all([first, second]), [
      { mine: true, epoch: 1 },
      { mine: true, epoch: 1 },
    ]);
    t.same(adopted, ['room-1'], 'adopted once');
  },
);

t.test('open meetings no lease names: claimed by their successor at start and when the nodes change', async (t) => {
  const rooms = Array.from({ length: 12 }, (_, i) => `room-${i}`);
  const open = rooms.slice(0, 8);
  const { leases, node, step } = world(rooms, open);
  const a = node('web-a');
  const b = node('web-b');
  await step(beatEveryMs);
  for (const roomId of open) {
    const successor = successorOf(roomId, ['web-a', 'web-b']);
    t.equal((await leases.get(roomId))?.ownerNode, successor, `${roomId}: claimed by ${successor} at start`);
    t.ok((successor === 'web-a' ? a : b).gained.includes(roomId), 'and adopted there');
  }
  t.same(await leases.unleased(null, 100), []);
  for (const roomId of rooms.slice(8)) t.equal(await leases.get(roomId), null, 'a room without a meeting: not claimed');

  // Meetings opened without a lease (by a node of an older release): seen when the nodes change.
  open.push(...rooms.slice(8));
  await step(beatEveryMs);
  t.same(await leases.unleased(null, 100), rooms.slice(8).sort(), 'the same nodes: no new scan');
  const c = node('web-c');
  await step(beatEveryMs);
  t.same(await leases.unleased(null, 100), [], 'a node joined: every one claimed');
  for (const roomId of rooms.slice(8)) {
    const successor = successorOf(roomId, ['web-a', 'web-b', 'web-c']);
    t.equal((await leases.get(roomId))?.ownerNode, successor, `${roomId}: by its successor ${successor}`);
  }
  t.ok(c.gained.length + a.gained.length + b.gained.length >= open.length);
});

t.test('a room lost while it is being adopted is dropped again once the adoption ends', async (t) => {
  const { clock, scheduler, alive, leases, node } = world(['room-1']);
  alive.add('web-a');
  const a = new RoomOwnership({
    leases,
    nodeId: 'web-a',
    clock,
    scheduler,
    aliveNodes: () => Promise.resolve([...alive]),
  });
  const events: string[] = [];
  let release: () => void = () => {};
  a.onGained(async () => {
    events.push('adopting');
    await new Promise<void>((resolve) => (release = resolve));
    events.push('adopted');
  });
  a.onLost(() => events.push('lost'));
  a.start();
  const claimed = a.where('room-1');
  await new Promise((resolve) => setTimeout(resolve, 5));
  // web-a hangs for the others while it reads: web-b takes the room, web-a's renewal is refused.
  alive.delete('web-a');
  const b = node('web-b');
  t.same(await b.ownership.where('room-1'), { mine: true, epoch: 2 });
  alive.add('web-a');
  scheduler.advance(beatEveryMs);
  await new Promise((resolve) => setTimeout(resolve, 5));
  scheduler.advance(0);
  t.same(events, ['adopting', 'lost'], 'dropped while still reading');
  release();
  t.same(await claimed, { mine: false, owner: null }, 'not served');
  scheduler.advance(0);
  t.same(events, ['adopting', 'lost', 'adopted', 'lost'], 'what the adoption read is dropped too');
  t.equal(a.epochOf('room-1'), undefined);
});

t.test('a frozen owner that wakes serves nothing from memory before its lease is confirmed', async (t) => {
  const { clock, alive, leases, node } = world(['room-1', 'room-2']);
  const a = node('web-a');
  t.same(await a.ownership.where('room-1'), { mine: true, epoch: 1 });
  t.same(await a.ownership.where('room-2'), { mine: true, epoch: 1 });
  const b = node('web-b');
  // web-a freezes: no beat of its runs, its lease runs out, web-b takes room-1 (its successor or
  // the only live node) when asked.
  alive.delete('web-a');
  clock.advance(leaseMs + 1);
  t.same(await b.ownership.where('room-1'), { mine: true, epoch: 2 });
  alive.add('web-a');
  t.equal(await a.ownership.ownerOf('room-1'), 'web-b', 'woken, before any beat: it names the new owner');
  // Woken, before any beat: room-1 is named to its new owner and dropped, not served as web-a's.
  t.same(await a.ownership.where('room-1'), { mine: false, owner: 'web-b' });
  t.equal(a.ownership.epochOf('room-1'), undefined);
  // room-2, which nobody took, is confirmed again (its lease renewed at its epoch) and served.
  t.same(await a.ownership.where('room-2'), { mine: true, epoch: 1 });
  t.ok((await leases.get('room-2'))!.expiresAt > clock.now(), 'renewed');
});
