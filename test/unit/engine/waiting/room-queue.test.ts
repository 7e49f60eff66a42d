import t from 'tap';
import { hashSecret, newSecret } from '../../../../src/engine/waiting/request-secret.js';
import { RoomQueue, type LiveRequest } from '../../../../src/engine/waiting/room-queue.js';
import type { WaitingRequest } from '../../../../src/engine/waiting/waiting-request.js';

function live(secret: string, requestId = 'q1'): LiveRequest {
  const request: WaitingRequest = {
    requestId,
    meetingId: 'm1',
    secretHash: hashSecret(secret),
    name: 'Ann',
    note: '',
    state: 'waiting',
    knockedAt: '2026-11-22T10:00:00.000Z',
    expiresAt: '2026-11-22T10:10:00.000Z',
    decidedAt: null,
    participantId: null,
    avatarUrl: null,
  };
  return { request, expiresAtMs: Date.parse(request.expiresAt), lastSeenMs: 0 };
}

t.test('a cookie is found by its hash, then remembered in memory for the next polls', async (t) => {
  const queue = new RoomQueue('m1');
  const secret = newSecret();
  const entry = live(secret);
  queue.add(entry);
  t.equal(entry.cookie, undefined, 'memory holds only the hash until the cookie proves itself');
  t.equal(queue.bySecret(secret), entry);
  t.equal(entry.cookie, secret);
  t.equal(queue.bySecret(secret), entry, 'found again');
});

t.test('a cookie that matches no hash finds nothing and is not remembered', async (t) => {
  const queue = new RoomQueue('m1');
  const secret = newSecret();
  queue.add(live(secret));
  const stranger = newSecret();
  t.equal(queue.bySecret(stranger), undefined);
  t.equal(queue.bySecret(stranger), undefined, 'still nothing on a second try');
  t.equal(
    queue.bySecret(secret.slice(0, 42) + (secret.endsWith('A') ? 'B' : 'A')),
    undefined,
    'one character off finds nothing',
  );
});

t.test('a removed request is gone for a remembered cookie too', async (t) => {
  const queue = new RoomQueue('m1');
  const secret = newSecret();
  const entry = live(secret);
  queue.add(entry);
  queue.bySecret(secret);
  queue.remove(entry);
  t.equal(queue.bySecret(secret), undefined, 'the remembered cookie does not outlive its request');
  t.equal(queue.bySecretHash(hashSecret(secret)), undefined);
});

t.test('a request replaced by a new knock of the same browser answers under the new cookie only', async (t) => {
  const queue = new RoomQueue('m1');
  const first = newSecret();
  const old = live(first, 'q1');
  queue.add(old);
  queue.bySecret(first);
  const second = newSecret();
  const fresh = live(second, 'q2');
  queue.remove(old);
  queue.add(fresh);
  t.equal(queue.bySecret(first), undefined);
  t.equal(queue.bySecret(second), fresh);
});

t.test(
  'a request added with its cookie (a knock that just made it) is found by it, and forgotten with it',
  async (t) => {
    const queue = new RoomQueue('m1');
    const secret = newSecret();
    const entry = { ...live(secret), cookie: secret };
    queue.add(entry);
    t.equal(queue.bySecret(secret), entry);
    queue.remove(entry);
    t.equal(queue.bySecret(secret), undefined);
  },
);
