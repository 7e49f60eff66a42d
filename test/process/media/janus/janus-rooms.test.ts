import t from 'tap';
import { JanusRooms } from '../../../../src/media/janus/janus-rooms.js';
import { JanusSession } from '../../../../src/media/janus/janus-session.js';
import { VideoRoomHandle } from '../../../../src/media/janus/videoroom.js';
import { janusFor, janusMissing, testRoomOptions } from '../../../helpers/janus.js';

t.test("a meeting's room against a real Janus", { skip: janusMissing ?? false }, async (t) => {
  const { janus } = await janusFor(t, 43_900);
  const warnings: unknown[] = [];
  const rooms = new JanusRooms(testRoomOptions(janus, (obj) => warnings.push(obj)));
  t.teardown(() => rooms.close());
  const session = await JanusSession.create(janus.endpoint);
  t.teardown(() => session.destroy());
  const look = await VideoRoomHandle.attach(session, janus.roomAdminKey);

  // A meeting's first members join at once: each must get the room only once Janus has it.
  const asked = ['ann', 'bob', 'cid'].map(() => rooms.ensure('first'));
  const second = await asked[1]!;
  t.ok(await look.exists('m-first'), 'the second to ask hears of the room only once it exists');
  const specs = await Promise.all(asked);
  t.ok(
    specs.every((spec) => spec === second),
    'one room, one secret and pin for all',
  );
  t.same(
    [second.secret, second.pin],
    ['random-0000000000', 'random-0000000001'],
    'one secret and one pin drawn, by the first to ask',
  );
  const pin = second.pin;
  t.equal((await rooms.ensure('first')).pin, pin, 'asked again later: the same room');

  // Ended while still being made: destroyed once Janus has it, not left behind.
  const making = rooms.ensure('short');
  t.equal(
    rooms.spec('short')?.secret,
    'random-0000000002',
    'the next room draws next: the first room drew only twice, however many asked',
  );
  const destroyed = rooms.destroy('short');
  await making;
  await destroyed;
  t.notOk(await look.exists('m-short'), 'a room ended while being made does not stay in Janus');
  t.same(rooms.meetings, ['first']);

  // Refused by Janus (a wrong admin key): not remembered, so the next ask tries again.
  const refusing = new JanusRooms({
    ...testRoomOptions(janus, (obj) => warnings.push(obj)),
    adminKey: 'not-the-admin-key-0000',
  });
  t.teardown(() => refusing.close());
  const both = await Promise.allSettled([refusing.ensure('x'), refusing.ensure('x')]);
  t.same(
    both.map((r) => r.status),
    ['rejected', 'rejected'],
    'everyone waiting hears the refusal',
  );
  t.same(refusing.meetings, [], 'a refused room is forgotten');
  t.same(warnings, []);
});
