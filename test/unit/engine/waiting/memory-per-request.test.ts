// Issue 36 point 2: what one waiting request costs the daemon's heap. Each of 10,000 knocks is
// held as the knock writer holds it (the request, its room queue's entries, its client's place
// and knock count), and the heap is measured after a full collection. Measured by this test:
// about 1,200 bytes a request before (a hidden class of its own per request, built by a spread,
// a Buffer per request for its secret's hash, and a second map entry by hash), about 630 after.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { OpenRequests } from '../../../../src/engine/waiting/open-requests.js';
import { newRequestId } from '../../../../src/engine/waiting/request-id.js';
import { hashSecret, newSecret } from '../../../../src/engine/waiting/request-secret.js';
import { liveRequest, RoomQueue } from '../../../../src/engine/waiting/room-queue.js';
import { newWaitingRequest } from '../../../../src/engine/waiting/waiting-request.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

t.test('10,000 waiting requests cost the heap at most 1,000 bytes each', async (t) => {
  const clock = new FakeClock();
  const requests = new OpenRequests(clock, {});
  const rooms = Array.from({ length: 100 }, (_, k) => new RoomQueue(`meeting-${k}`));
  const count = 10_000;
  // The strings a knock brings from outside (addresses, names, secrets) exist before it is held.
  const arrivals = Array.from({ length: count }, (_, i) => ({
    address: `10.0.${(i >>> 8) & 255}.${i & 255}`,
    name: `Pupil ${i}`,
    secret: newSecret(),
  }));
  const before = heapUsed();
  for (let i = 0; i < count; i++) {
    const queue = rooms[i % rooms.length]!;
    const roomId = `room-${i % rooms.length}`;
    const arrival = arrivals[i]!;
    const slot = requests.checkClient(roomId, arrival.address);
    const pending = requests.hold(roomId, slot);
    const now = clock.now().getTime();
    const request = newWaitingRequest({
      requestId: newRequestId(now),
      meetingId: queue.meetingId,
      secretHash: hashSecret(arrival.secret),
      name: arrival.name,
      note: '',
      nowMs: now,
      timeoutMs: 3_600_000,
    });
    requests.settled(roomId, pending, false);
    const entry = liveRequest({
      request,
      expiresAtMs: now + 3_600_000,
      lastSeenMs: now,
      cookie: arrival.secret,
      clientSlot: slot,
    });
    queue.add(entry);
    clock.advance(1);
  }
  const perRequest = (heapUsed() - before) / count;
  t.comment(`${perRequest.toFixed(0)} bytes of heap per waiting request`);
  t.equal(
    rooms.reduce((sum, queue) => sum + queue.waiting.size, 0),
    count,
    'every request is waiting',
  );
  t.ok(rooms[7]!.bySecret(arrivals[7]!.secret), 'a request is found by its cookie');
  t.ok(perRequest <= 1_000, `at most 1,000 bytes each (${perRequest.toFixed(0)})`);
});

t.test('the places per client address are kept per room, keyed by the address itself', async (t) => {
  // Issue 36 point 2: each knock's place and knock count were kept under one key joining room and
  // address, two more strings per waiting person (about 60 bytes of heap a knock, 0.6 MiB per
  // 10,000); now a map and a knock limiter per room, keyed by the address the knock came with.
  const clock = new FakeClock();
  const requests = new OpenRequests(clock, { maxOpenPerClient: 2 });
  const internals = requests as unknown as {
    clientSlots: Map<string, Map<string, number>>;
    knockLimiters: Map<string, unknown>;
  };
  const a = requests.checkClient('room-1', '10.0.0.1');
  requests.settled('room-1', requests.hold('room-1', a), false);
  const b = requests.checkClient('room-1', '10.0.0.1');
  requests.hold('room-1', b);
  const c = requests.checkClient('room-2', '10.0.0.1', '2001:db8:0:100::/56');
  requests.hold('room-2', c);
  t.same(a, { roomId: 'room-1', client: '10.0.0.1', network: null }, 'the slot names its room and address');
  t.same(
    [...internals.clientSlots].map(([room, held]) => [room, [...held]]),
    [
      ['room-1', [['10.0.0.1', 2]]],
      [
        'room-2',
        [
          ['10.0.0.1', 1],
          ['2001:db8:0:100::/56', 1],
        ],
      ],
    ],
    'counted per room under the address (and the IPv6 network)',
  );
  t.same([...internals.knockLimiters.keys()], ['room-1', 'room-2'], 'a knock limiter per room that had knocks');
  t.throws(() => requests.checkClient('room-1', '10.0.0.1'), { code: 'too_many_waiting' }, 'at its cap in room-1');
  requests.checkClient('room-2', '10.0.0.1');
  requests.checkClient('room-1', '10.0.0.2');
  requests.releaseSlot(a);
  requests.releaseSlot(b);
  requests.releaseSlot(c);
  t.equal(internals.clientSlots.size, 0, 'a room whose places are all free is forgotten');
  requests.checkClient('room-1', '10.0.0.1');
  clock.advance(60_000);
  requests.prune();
  t.equal(internals.knockLimiters.size, 0, 'and so is its knock limiter once its window passed');
});
