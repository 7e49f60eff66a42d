import t from 'tap';
import { JanusError, JanusSession, janusInfo, type JanusEvent } from '../../../../src/media/janus/janus-session.js';
import { VideoRoomHandle } from '../../../../src/media/janus/videoroom.js';
import { janusFor, janusMissing } from '../../../helpers/janus.js';
import { chromeSdp } from '../../../unit/media/sdp-samples.js';

const sendonly = chromeSdp([
  { kind: 'audio', direction: 'sendonly' },
  { kind: 'video', direction: 'sendonly' },
]);

t.test('the control client against a real Janus', { skip: janusMissing ?? false }, async (t) => {
  const { janus } = await janusFor(t, 42_000);
  const endpoint = janus.endpoint;
  t.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/janus$/, 'loopback only');
  const info = await janusInfo(endpoint);
  t.equal(info.version, '1.1.2');
  t.same(info.plugins, ['janus.plugin.videoroom'], 'the VideoRoom plugin and nothing else');

  await t.rejects(
    JanusSession.create({ ...endpoint, apiSecret: 'x'.repeat(32) }),
    { code: 403 },
    'a wrong API secret is refused',
  );

  const session = await JanusSession.create(endpoint);
  t.teardown(() => session.destroy());
  const control = await VideoRoomHandle.attach(session, janus.roomAdminKey);
  await t.rejects(
    (await VideoRoomHandle.attach(session, 'not-the-admin-key-0000')).createRoom({
      room: 'x',
      secret: 's'.repeat(16),
      pin: 'p'.repeat(16),
      publishers: 3,
    }),
    JanusError,
    'creating a room needs the admin key',
  );
  const room = { room: 'm-control', secret: 'secret-0123456789', pin: 'pin-0123456789ab', publishers: 3 };
  await control.createRoom(room);
  t.ok(await control.exists('m-control'));

  const annEvents: JanusEvent[] = [];
  const ann = await VideoRoomHandle.attach(session, '', (event) => annEvents.push(event));
  await t.rejects(
    ann.joinPublisher('m-control', 'wrong-pin', 'ann', 'Ann'),
    { code: 433 },
    'the pin is required to join',
  );
  const joined = await ann.joinPublisher('m-control', room.pin, 'ann', 'Ann');
  t.same(joined.publishers, [], 'ann is the first');
  const answer = await ann.publish({ type: 'offer', sdp: sendonly });
  t.equal(answer.type, 'answer');
  t.match(answer.sdp, /m=audio/);

  const bob = await VideoRoomHandle.attach(session, '');
  const bobJoined = await bob.joinPublisher('m-control', room.pin, 'bob', 'Bob');
  // Janus lists a publisher (and lets anyone subscribe to her) only once her PeerConnection is up;
  // on loopback there is no ICE, so these are the refusals a page meets before its media flows.
  t.same(bobJoined.publishers, [], 'ann is not listed before her media flows');
  const sub = await VideoRoomHandle.attach(session, '');
  await t.rejects(
    sub.subscribe('m-control', room.pin, ['ann']),
    { code: 428 },
    'no subscription to a feed that does not flow',
  );
  // Her offered streams exist once Janus answered: a lock can stop forwarding them from then on.
  await control.moderate('m-control', room.secret, 'ann', '0', true);
  await control.moderate('m-control', room.secret, 'ann', '0', false);
  await t.rejects(
    control.moderate('m-control', room.secret, 'ann', '9', true),
    { code: 428 },
    'moderate names a negotiated stream',
  );
  await t.rejects(
    control.moderate('m-control', 'wrong-secret-00000', 'ann', '0', true),
    { code: 433 },
    'moderate needs the room secret',
  );

  const participants = await control.participants('m-control');
  t.same(participants.map((p) => p.id).sort(), ['ann', 'bob']);
  await t.rejects(control.kick('m-control', 'wrong-secret-00000', 'ann'), { code: 433 }, 'kick needs the room secret');
  await control.kick('m-control', room.secret, 'ann');
  const kicked = () =>
    annEvents.some((e) => e.plugindata?.data['leaving'] === 'ok' && e.plugindata.data['reason'] === 'kicked');
  for (let i = 0; i < 50 && !kicked(); i++) await new Promise((r) => setTimeout(r, 100));
  t.ok(kicked(), 'the kicked publisher hears it');
  t.same(
    (await control.participants('m-control')).map((p) => p.id),
    ['bob'],
  );

  await t.rejects(control.destroyRoom('m-control', 'wrong-secret-00000'), { code: 433 });
  await control.destroyRoom('m-control', room.secret);
  t.notOk(await control.exists('m-control'), 'destroyed');
});
