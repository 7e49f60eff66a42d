// Issue 28 point 3, the shape: access codes are hashed in fair turns (rooms take turns, clients
// inside a room take turns, one hash per room at a time) behind bounded lines. A key derivation
// the test releases by hand stands in for scrypt, so the order of hashes is what is asserted.
import { scryptSync } from 'node:crypto';
import t from 'tap';
import { AccessCodeChecker, hashAccessCode, type DeriveKey } from '../../../../src/engine/rooms/access-code.js';
import { Fixture, arrive } from '../../../helpers/engine-fixture.js';

const right = 'open-sesame';

/** A derivation that waits to be released; only the right code derives the real key. */
function heldDerive() {
  const started: { code: string; release: () => void }[] = [];
  const derive: DeriveKey = (code, salt, length, cost) =>
    new Promise((resolve) =>
      started.push({
        code,
        release: () => resolve(code === right ? scryptSync(code, salt, length, cost) : Buffer.alloc(length)),
      }),
    );
  let released = 0;
  return {
    derive,
    started,
    /** How many hashes are running (started, not released). */
    running: () => started.length - released,
    /** Ends the oldest running hash and lets the promises that follow settle. */
    async releaseNext(): Promise<string> {
      const next = started[released++];
      if (!next) throw new Error('no hash is running');
      next.release();
      await settle();
      return next.code;
    },
  };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Codes sent at once: `clients` clients of `roomId`, `each` wrong guesses apiece. */
function flood(f: Fixture, roomId: string, clients: number, each: number): Promise<unknown>[] {
  return Array.from({ length: clients * each }, (_, i) =>
    f.waiting
      .start(arrive(roomId, 'Mallory', { accessCode: `guess-${i}`, clientKey: `2001:db8:${i % clients}::/64` }))
      .catch((err: { code: string }) => err.code),
  );
}

t.test("a flooded room holds up another room's right code by one hash at most", async (t) => {
  const hashes = heldDerive();
  const f = new Fixture({ waiting: { deriveKey: hashes.derive } });
  f.room({ roomId: 'a', accessCode: right });
  f.room({ roomId: 'b', accessCode: right });
  const guesses = flood(f, 'a', 15, 10);
  await settle();
  t.equal(hashes.running(), 1, 'one hash at a time');
  await hashes.releaseNext();
  const inB = f.waiting.start(arrive('b', 'Ann', { accessCode: right, clientKey: '198.51.100.9' }));
  await settle();
  t.equal(await hashes.releaseNext(), 'guess-1', 'the hash already running ends first');
  t.equal(await hashes.releaseNext(), right, "room b's code is next, ahead of 148 guesses in room a");
  t.equal((await inB).status, 'knock', 'and it is right');
  while (hashes.running() > 0) await hashes.releaseNext();
  const codes = await Promise.all(guesses);
  t.equal(codes.filter((c) => c === 'access_code_invalid').length, 150, 'every guess was still checked');
});

t.test(
  'inside a room, clients take turns: a flooding client delays another by one hash per client waiting',
  async (t) => {
    const hashes = heldDerive();
    const f = new Fixture({ waiting: { deriveKey: hashes.derive } });
    f.room({ roomId: 'a', accessCode: right });
    const guesses = flood(f, 'a', 1, 10);
    await settle();
    const pupil = f.waiting.start(arrive('a', 'Pupil', { accessCode: right, clientKey: '198.51.100.10' }));
    await settle();
    t.equal(await hashes.releaseNext(), 'guess-0');
    t.equal(await hashes.releaseNext(), right, "the pupil's code comes before the guesser's other nine");
    t.equal((await pupil).status, 'knock');
    while (hashes.running() > 0) await hashes.releaseNext();
    await Promise.all(guesses);
  },
);

t.test('with two hashes at once, a room still runs one at a time and another room takes the second', async (t) => {
  const hashes = heldDerive();
  const f = new Fixture({ waiting: { deriveKey: hashes.derive, codeHashConcurrency: 2 } });
  f.room({ roomId: 'a', accessCode: right });
  f.room({ roomId: 'b', accessCode: right });
  const guesses = flood(f, 'a', 5, 2);
  await settle();
  t.equal(hashes.running(), 1, 'room a: one hash, however many wait');
  const inB = f.waiting.start(arrive('b', 'Ann', { accessCode: right, clientKey: '198.51.100.9' }));
  await settle();
  t.equal(hashes.running(), 2, 'room b runs beside it at once');
  t.equal(hashes.started[1]!.code, right);
  while (hashes.running() > 0) await hashes.releaseNext();
  t.equal((await inB).status, 'knock');
  await Promise.all(guesses);
});

t.test("a room's line is bounded; codes refused unchecked are no guesses", async (t) => {
  const hashes = heldDerive();
  const f = new Fixture({ waiting: { deriveKey: hashes.derive, codeChecksPerRoom: 20 } });
  f.room({ roomId: 'a', accessCode: right });
  const guesses = flood(f, 'a', 3, 10);
  await settle();
  while (hashes.running() > 0) await hashes.releaseNext();
  const codes = (await Promise.all(guesses)) as string[];
  t.equal(codes.filter((c) => c === 'waiting_room_full').length, 10, "beyond 20 in the room's line: waiting_room_full");
  t.equal(codes.filter((c) => c === 'access_code_invalid').length, 20, 'the 20 in line were checked');
  const again = f.waiting.start(arrive('a', 'Mallory', { accessCode: right, clientKey: '2001:db8:2::/64' }));
  await settle();
  await hashes.releaseNext();
  t.equal(
    (await again).status,
    'knock',
    'a client with 10 codes sent, some refused unchecked, is not at the limit of 10 wrong ones',
  );
});

t.test("a client's line is bounded: beyond it, too_many_knocks before any waiting", async (t) => {
  const hashes = heldDerive();
  const f = new Fixture({ waiting: { deriveKey: hashes.derive, codeChecksPerClient: 12 } });
  f.room({ roomId: 'a', accessCode: right });
  const guesses = flood(f, 'a', 1, 15);
  await settle();
  while (hashes.running() > 0) await hashes.releaseNext();
  const codes = (await Promise.all(guesses)) as string[];
  t.equal(codes.filter((c) => c === 'too_many_knocks').length, 3, "beyond the client's 12: too_many_knocks at once");
  t.equal(codes.filter((c) => c === 'access_code_invalid').length, 10, 'ten guesses checked');
  t.equal(codes.filter((c) => c === 'too_many_attempts').length, 2, 'the two that waited meet the limit of ten');
});

t.test('a code refused by a full line is told when to come back (429 with Retry-After)', async (t) => {
  const hashes = heldDerive();
  const checker = new AccessCodeChecker({ perRoom: 1 }, hashes.derive);
  const stored = hashAccessCode(right);
  const first = checker.matches(right, stored, 'a', 'one');
  await t.rejects(checker.matches('guess', stored, 'a', 'two'), { code: 'waiting_room_full', retryAfterSecs: 5 });
  await hashes.releaseNext();
  t.equal(await first, true);
});
