// Issue 35 point 3: a non-owner forwards a room's HTTP request to its owner over the signed node
// channel and answers what the owner answers. Two engines (node-a, node-b) on one PostgreSQL
// database and one in-memory bus, on one fake clock. Through node-b alone a person knocks, polls
// and is admitted in node-a's room (node-b holds nothing of it). No answer from the owner: the
// ownership is asked once more, then 503 owner_unreachable with Retry-After; once the owner is
// dead, node-b claims the room and serves it itself. Abuse: a forwarded request that reaches a
// non-owner is answered 421 (never forwarded twice); a replayed genuine forward and one signed
// with another key get no answer and change nothing.
import { randomBytes } from 'node:crypto';
import { BusUnanswered } from '../../../src/engine/cluster/bus.js';
import { channelKey, NodeChannel } from '../../../src/engine/cluster/node-channel.js';
import { successorOf } from '../../../src/engine/cluster/rendezvous.js';
import { decodeAnswer, encodeRequest } from '../../../src/http/room/forward-message.js';
import { RoomForwarder } from '../../../src/http/room/room-forwarder.js';
import { assertError } from '../../helpers/api.js';
import { forwardingNodes } from '../../helpers/cluster-engines.js';
import { postgresTest } from '../../helpers/postgres.js';
import { admittedSession, asSession, Browser, createRoom, moderator, waitingApi } from '../../helpers/waiting.js';

postgresTest('through a non-owner a person knocks, polls and is admitted as on the owner', async (t) => {
  const nodes = await forwardingNodes(t);
  const { a, b } = nodes;
  t.equal(successorOf('lesson-2', ['node-a', 'node-b']), 'node-a', 'the fixture: lesson-2 is node-a’s');
  await createRoom(t, a, { room_id: 'lesson-2', name: 'Lesson 2 of 7b', waiting_room: 'all' });

  const ada = new Browser(b, 'lesson-2');
  const knocked = await ada.knock({ name: 'Ada', note: 'first' });
  t.equal(knocked.status, 202, 'her knock through node-b is accepted');
  t.ok(ada.cookie, 'with her waiting cookie');
  t.equal(await nodes.leaseOf('lesson-2'), 'node-a', 'by node-a, its successor, which claimed it');
  t.equal(b.services.meetings.current('lesson-2'), null, 'node-b holds nothing of the room');
  t.match(await ada.poll(), { status: 200, body: { status: 'waiting' } }, 'her poll through node-b: waiting');

  const mod = await moderator(b, 'lesson-2', 'Mona');
  const list = await asSession.list(b, 'lesson-2', mod.session);
  t.same(
    (list.body as { name: string; note: string }[]).map((i) => [i.name, i.note]),
    [['Ada', 'first']],
    'the moderator’s list through node-b',
  );
  const api = await waitingApi.list(b, 'lesson-2');
  t.equal(api.status, 200, 'the rooms API’s waiting list through node-b');
  const [item] = list.body as { request_id: string }[];
  t.equal((await asSession.admit(b, 'lesson-2', mod.session, { request_id: item!.request_id })).status, 200);
  const admitted = await ada.poll();
  t.equal(admitted.body?.status, 'admitted', 'let in through node-b');
  t.equal(admittedSession(admitted, 'Ada').role, 'participant');
  t.equal(b.services.meetings.current('lesson-2'), null, 'and node-b still holds nothing of it');
  t.equal(a.services.meetings.current('lesson-2')?.roomId, 'lesson-2', 'node-a runs the meeting');
});

postgresTest('no answer from the owner: asked once more, then 503; a dead owner’s successor serves', async (t) => {
  const nodes = await forwardingNodes(t);
  const { a, b, alive, clock, channels } = nodes;
  await createRoom(t, a, { room_id: 'lesson-2', name: 'Lesson 2 of 7b', waiting_room: 'all' });
  const ada = new Browser(a, 'lesson-2');
  t.equal((await ada.knock({ name: 'Ada' })).status, 202);
  const moved = new Browser(b, 'lesson-2');
  moved.setCookie(ada.cookie);

  // node-a is cut from the bus but alive in the registry and holding its lease.
  await channels.get('node-a')!.bus.close();
  const cut = await moved.poll();
  assertError(t, cut, 503, 'owner_unreachable');
  t.equal(cut.headers.get('retry-after'), '2', 'with Retry-After');
  t.match(cut.body.error.message, /did not answer \(no responders\)/, 'naming what happened');
  t.notMatch(cut.text, /node-a|lesson/, 'and nothing of the room or its node');

  // node-a dies: its lease runs out and it leaves the live nodes. Asked once more, node-b claims the room.
  alive.delete('node-a');
  clock.advance(7000);
  t.match(await moved.poll(), { status: 200, body: { status: 'waiting' } }, 'her poll through node-b: waiting');
  t.equal(await nodes.leaseOf('lesson-2'), 'node-b', 'node-b owns the room now');
});

postgresTest('a forwarded request is never forwarded again; forged and replayed ones get no answer', async (t) => {
  const nodes = await forwardingNodes(t);
  const { a, b, clock, network, channels } = nodes;
  await createRoom(t, a, { room_id: 'lesson-2', name: 'Lesson 2 of 7b', waiting_room: 'all' });
  t.equal((await new Browser(a, 'lesson-2').knock({ name: 'Ada' })).status, 202);
  const waitingNames = async () =>
    ((await waitingApi.list(a, 'lesson-2')).body as { name: string }[]).map((i) => i.name).sort();

  // A genuine forward (signed by node-a) of a room node-b does not own: 421, not sent back.
  const knockOf = (name: string) => ({
    method: 'POST',
    url: '/room/lesson-2/knock',
    headers: { 'content-type': 'application/json' },
    ip: '203.0.113.9',
    scheme: 'http' as const,
    host: 'meet.example.org',
    hops: 1,
    body: Buffer.from(JSON.stringify({ name })),
  });
  const toB = await channels
    .get('node-a')!
    .channel.request('meet.node.node-b.http', encodeRequest(knockOf('Hop')), 2000);
  const hop = decodeAnswer(toB.body);
  t.equal(hop.status, 421, 'node-b answers 421');
  t.match(JSON.parse(Buffer.from(hop.body).toString()), { error: { code: 'room_elsewhere', owner_node: 'node-a' } });
  t.same(await waitingNames(), ['Ada'], 'nothing knocked');
  // A live socket's upgrade is not forwarded as a request: the live relay opens it on the owner,
  // which refuses one without a session as it would itself (401), naming no node.
  const upgradeThrough = (node: typeof a) =>
    node.app.inject({
      method: 'GET',
      url: '/room/lesson-2/live',
      headers: {
        connection: 'upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
  const upgrade = await upgradeThrough(b);
  const direct = await upgradeThrough(a);
  t.same([upgrade.statusCode, upgrade.body], [401, direct.body], 'an upgrade through node-b: the owner’s 401');

  // Signed with another key: no answer, nothing knocked, counted as forged.
  const intruder = new NodeChannel(network.bus(), channelKey(randomBytes(32)), 'node-b', clock);
  await t.rejects(
    intruder.request('meet.node.node-a.http', encodeRequest(knockOf('Forger')), 300),
    BusUnanswered,
    'a forward signed with another key: no answer',
  );
  t.equal(channels.get('node-a')!.channel.refused.forged, 1);

  // A genuine forward seen on the wire and sent again: no answer, no second knock.
  const eve = new Browser(b, 'lesson-2');
  t.equal((await eve.knock({ name: 'Eve' })).status, 202, 'Eve knocks through node-b');
  const sent = network.wire.filter((m) => m.subject === 'meet.node.node-a.http').at(-1)!;
  await t.rejects(
    network.bus().request('meet.node.node-a.http', sent.data, 300),
    BusUnanswered,
    'the same forward again: no answer',
  );
  t.equal(channels.get('node-a')!.channel.refused.replayed, 1, 'refused as replayed');
  t.same(await waitingNames(), ['Ada', 'Eve'], 'Eve knocked once');
});

postgresTest('an answer too large for one NATS message is a 500, not a lost one', async (t) => {
  const nodes = await forwardingNodes(t);
  const { a, clock, network, channels } = nodes;
  await createRoom(t, a, { room_id: 'lesson-2', name: 'Lesson 2 of 7b', waiting_room: 'all' });
  // node-a's listener behind a second subject whose answers may carry 40 bytes at most.
  const signing = channels.get('node-a')!.key;
  const small = new RoomForwarder(new NodeChannel(network.bus(), signing, 'node-small', clock), {
    bodyLimit: 64 * 1024,
    maxAnswerBytes: 40,
  });
  small.serve(a.app);
  const asker = new NodeChannel(network.bus(), signing, 'node-b', clock);
  const poll = {
    method: 'GET',
    url: '/room/lesson-2/waiting',
    headers: {},
    ip: '203.0.113.9',
    scheme: 'http' as const,
    host: 'meet.example.org',
    hops: 1,
    body: new Uint8Array(0),
  };
  const answer = decodeAnswer((await asker.request('meet.node.node-small.http', encodeRequest(poll), 2000)).body);
  t.equal(answer.status, 500);
  t.match(JSON.parse(Buffer.from(answer.body).toString()), { error: { code: 'internal_error', message: /too large/ } });
});
