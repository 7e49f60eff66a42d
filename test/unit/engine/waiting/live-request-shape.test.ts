// Issue 36 point 2: a waiting request's memory entry (LiveRequest) keeps one hidden class through
// its life. Its marks (connection lost, leaving) were added when set and removed with `delete`:
// each mark set gave the entry a hidden class of its own and an out-of-object property array,
// which stayed after the mark was gone (the bench's poll daemon, whose keeper polls each request
// every 22.5 s, so that each is marked lost in turn, held one for 29,000 of 50,000 waiting), and a
// request read back after a restart got its cookie the same way. Asserted with V8's own checks.
import { setFlagsFromString } from 'node:v8';
import t from 'tap';
import type { OpenRequests } from '../../../../src/engine/waiting/open-requests.js';
import type { LiveRequest } from '../../../../src/engine/waiting/room-queue.js';
import { Fixture } from '../../../helpers/engine-fixture.js';

setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's own checks need its natives syntax
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- as above
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** The room's live entries, read from the service's memory (what a poll finds). */
function entries(f: Fixture, roomId: string): LiveRequest[] {
  const requests = (f.waiting as unknown as { requests: OpenRequests }).requests;
  const queue = requests.queueFor(f.meetings.current(roomId)!);
  return [...queue.waiting.values()];
}

t.test('a waiting request keeps one hidden class through lost, leaving, back and a restart', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoomTimeoutSecs: 3600 });
  await f.moderator();
  const ann = await f.knock('Ann', 'r1', { clientKey: '198.51.100.1' });
  const bob = await f.knock('Bob', 'r1', { clientKey: '198.51.100.2' });
  const cy = await f.knock('Cy', 'r1', { clientKey: '198.51.100.3' });
  const [annLive, bobLive, cyLive] = entries(f, 'r1');
  t.ok(annLive && bobLive && cyLive, 'three entries');
  t.ok(haveSameMap(annLive!, cyLive!), 'knocked entries share one hidden class');

  // Ann and Bob fall silent until moderators see them as lost; Cy keeps polling.
  for (let s = 0; s < 8; s++) {
    f.clock.advance(1000);
    await f.waiting.poll('r1', cy.secret);
    await f.waiting.sweep();
  }
  t.ok(annLive!.lostSinceMs !== undefined && bobLive!.lostSinceMs !== undefined, 'Ann and Bob are marked lost');
  t.ok(haveSameMap(annLive!, cyLive!), 'a lost mark changes no hidden class');
  // Ann's page then says it goes away (a beacon), and comes back: her poll clears both marks.
  t.ok(await f.waiting.leaving('r1', ann.secret));
  f.clock.advance(500);
  t.same(await f.waiting.poll('r1', ann.secret), { status: 'waiting' });
  t.same(await f.waiting.poll('r1', bob.secret), { status: 'waiting' });
  t.ok(annLive!.lostSinceMs === undefined && annLive!.leavingSinceMs === undefined, 'her marks are cleared');
  for (const [name, live] of [
    ['Ann', annLive!],
    ['Bob', bobLive!],
    ['Cy', cyLive!],
  ] as const) {
    t.ok(hasFastProperties(live), `${name}: fast properties, not a dictionary`);
    t.ok(haveSameMap(live, cyLive!), `${name}: the same hidden class as an entry never marked`);
  }

  // After a restart the entries are read back from the store; a poll proves the cookie.
  f.restart();
  for (const one of [ann, bob, cy]) t.same(await f.waiting.poll('r1', one.secret), { status: 'waiting' });
  const restored = entries(f, 'r1');
  t.equal(restored.length, 3, 'all three read back');
  for (const live of restored) {
    t.ok(hasFastProperties(live), `${live.request.name} after a restart: fast properties`);
    t.ok(haveSameMap(live, cyLive!), `${live.request.name} after a restart: the knock's hidden class`);
  }
});
