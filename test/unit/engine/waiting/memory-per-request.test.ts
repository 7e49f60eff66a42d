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
import { RoomQueue, type LiveRequest } from '../../../../src/engine/waiting/room-queue.js';
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
    const entry: LiveRequest = {
      request,
      expiresAtMs: now + 3_600_000,
      lastSeenMs: now,
      cookie: arrival.secret,
      clientSlot: slot,
    };
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
