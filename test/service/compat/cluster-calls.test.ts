// Issue 35 point 3 (the meeting API) with two nodes in this process: node-a and node-b, each the
// engine and the compat module on one PostgreSQL database, joined by a memory bus through the signed
// channel, on one fake clock. A meeting created through one node is known at once to the other's
// calls (getMeetings is a query, not a node's memory); getMeetingInfo through a node that does not
// serve the room shows the owner's live counts; end, join and sendChatMessage through it are run by
// the owner and answered as the owner answers them. An owner that does not answer: getMeetingInfo
// answers from the last snapshot, end fails with the stable meetingElsewhere. Abuse: a message on
// the owner's subject from a client without the cluster's key, or under another key, changes
// nothing; a call with a bad checksum is refused by the node it reached before anything crosses.
import type { Test } from 'tap';
import { NodeChannel, channelKey } from '../../../src/engine/cluster/node-channel.js';
import { successorOf } from '../../../src/engine/cluster/rendezvous.js';
import { compatAppFor, type CompatApp } from '../../helpers/compat-app.js';
import {
  assertFailed,
  assertSuccess,
  attendeesOf,
  ConfapiClient,
  roomAndToken,
  startWithToken,
} from '../../helpers/compat.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { MemoryBusNetwork } from '../../helpers/memory-bus.js';
import { postgresTest } from '../../helpers/postgres.js';
import { postgresStore } from '../../helpers/service-stores.js';

const secret = 'cluster-calls-secret-7e21c9';
const nodes = ['node-a', 'node-b'] as const;

async function twoNodes(t: Test) {
  const store = await postgresStore(t);
  const clock = new FakeClock();
  const network = new MemoryBusNetwork();
  const node = (nodeId: string) =>
    compatAppFor(t, {
      store,
      env: { COMPAT_API_SHARED_SECRET: secret },
      cluster: { nodeId, bus: network.bus(), clock, alive: () => nodes },
    });
  const a = await node('node-a');
  const b = await node('node-b');
  const byId: Record<string, CompatApp> = { 'node-a': a, 'node-b': b };
  const api = (d: CompatApp) => new ConfapiClient(d.compatUrl, secret, 'sha256');
  return { a, b, byId, network, clock, api };
}

const compatMessages = (network: MemoryBusNetwork) =>
  network.wire.filter((m) => m.subject.startsWith('meet.node.') && m.subject.includes('.compat')).length;

postgresTest('the meeting API on every node: one store, the owner runs its calls and gives its counts', async (t) => {
  const { a, b, byId, network, api } = await twoNodes(t);
  assertSuccess(
    t,
    await api(a).get('create', [
      ['meetingID', 'lesson'],
      ['name', 'Lesson'],
      ['moderatorPW', 'mp'],
    ]),
    'create through node-a',
  );
  // Two creates of one new meetingID at once, through both nodes: one meeting, both answer it.
  const twice = await Promise.all(
    [a, b].map((d) =>
      api(d).get('create', [
        ['meetingID', 'twice'],
        ['moderatorPW', 'tw'],
      ]),
    ),
  );
  for (const answer of twice) assertSuccess(t, answer, 'a create of one meetingID through each node at once');
  t.equal(twice[0]!.xml.internalMeetingID, twice[1]!.xml.internalMeetingID, 'one meeting');
  assertSuccess(
    t,
    await api(a).get('end', [
      ['meetingID', 'twice'],
      ['password', 'tw'],
    ]),
    'ended again',
  );

  // At once, no restart: node-b's calls read the store.
  const listed = await api(b).get('getMeetings');
  assertSuccess(t, listed, 'getMeetings through node-b');
  t.equal(listed.xml.meetings?.meeting?.meetingID, 'lesson', 'node-b lists the meeting made through node-a');
  const info = await api(b).get('getMeetingInfo', [['meetingID', 'lesson']]);
  assertSuccess(t, info, 'getMeetingInfo through node-b');
  t.equal(info.xml.meetingName, 'Lesson');
  t.equal((await api(b).get('isMeetingRunning', [['meetingID', 'lesson']])).xml.running, 'false');

  // Ada joins through node-b and enters on the room's owner (its successor: the first node asked names it).
  const joined = await api(b).get('join', [
    ['meetingID', 'lesson'],
    ['fullName', 'Ada'],
    ['password', 'mp'],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, joined, 'join through node-b');
  const { roomId, token } = roomAndToken(joined.xml.url);
  const ownerId = successorOf(roomId, nodes)!;
  const owner = byId[ownerId]!;
  const other = owner === a ? b : a;
  t.match((await startWithToken(owner, roomId, token, 'Ada')).body, { status: 'joined' }, 'Ada enters on the owner');
  t.equal((await owner.node!.ownership.where(roomId)).mine, true, `${ownerId} serves the room`);

  const seen = await api(other).get('getMeetingInfo', [['meetingID', 'lesson']]);
  assertSuccess(t, seen, 'getMeetingInfo through the other node');
  t.equal(seen.xml.running, 'true', "the other node shows the owner's live state");
  t.equal(seen.xml.participantCount, '1');
  t.equal(seen.xml.moderatorCount, '1');
  t.match(attendeesOf(seen.xml), [{ fullName: 'Ada', role: 'MODERATOR' }]);
  t.equal((await api(other).get('isMeetingRunning', [['meetingID', 'lesson']])).xml.running, 'true');
  const many = await api(other).get('getMeetings');
  t.equal(many.xml.meetings?.meeting?.participantCount, '1', 'getMeetings with the owner’s counts');

  // Abuse: whoever reaches NATS without the cluster's key, or with another key, ends nothing.
  const endMessage = Buffer.from(
    JSON.stringify({
      kind: 'call',
      call: 'end',
      tenantId: 'default',
      params: [['meetingID', 'lesson']],
      xmlBody: null,
    }),
  );
  const plain = network.bus();
  await t.rejects(plain.request(`meet.node.${ownerId}.compat`, endMessage, 300), 'a plain client gets no answer');
  const stranger = new NodeChannel(network.bus(), channelKey(new Uint8Array(32).fill(7)), 'node-x', new FakeClock());
  await t.rejects(stranger.request(`meet.node.${ownerId}.compat`, endMessage, 300), 'nor a node of another key');
  t.equal((await api(other).get('isMeetingRunning', [['meetingID', 'lesson']])).xml.running, 'true', 'still running');
  // A bad checksum is refused where it arrives: nothing crosses the bus.
  const before = compatMessages(network);
  const forged = api(other).with({ secret: 'not-the-secret' });
  assertFailed(t, await forged.get('end', [['meetingID', 'lesson']]), 'checksumError', 'end with a bad checksum');
  t.equal(compatMessages(network), before, 'no message sent for it');

  // A call only the owner can run, sent through the other node, is run there: the meeting ends.
  assertFailed(
    t,
    await api(other).get('end', [
      ['meetingID', 'lesson'],
      ['password', 'wrong'],
    ]),
    'invalidPassword',
    "the owner's refusal, rendered by the other node",
  );
  assertSuccess(
    t,
    await api(other).get('end', [
      ['meetingID', 'lesson'],
      ['password', 'mp'],
    ]),
    'end through the other node',
  );
  t.ok(compatMessages(network) > before, 'the call crossed to the owner');
  t.equal(owner.services.meetings.current(roomId), null, "the owner's engine meeting is over");
  const ended = await api(other).get('getMeetingInfo', [['meetingID', 'lesson']]);
  t.equal(ended.xml.running, 'false');
  t.equal(ended.xml.hasBeenForciblyEnded, 'true');
});

postgresTest('an owner that does not answer: the last snapshot, and a stable FAILED for its calls', async (t) => {
  const { a, b, byId, api } = await twoNodes(t);
  assertSuccess(t, await api(a).get('create', [['meetingID', 'quiet']]), 'create');
  const joined = await api(a).get('join', [
    ['meetingID', 'quiet'],
    ['fullName', 'Bo'],
    ['role', 'VIEWER'],
    ['redirect', 'false'],
  ]);
  const { roomId, token } = roomAndToken(joined.xml.url);
  const owner = byId[successorOf(roomId, nodes)!]!;
  const other = owner === a ? b : a;
  t.match((await startWithToken(owner, roomId, token, 'Bo')).body, { status: 'joined' });
  t.equal((await api(other).get('getMeetingInfo', [['meetingID', 'quiet']])).xml.participantCount, '1');

  // The owner's meeting API stops answering (its engine still holds the room).
  await owner.compat.stop();
  const info = await api(other).get('getMeetingInfo', [['meetingID', 'quiet']]);
  assertSuccess(t, info, 'getMeetingInfo with the owner silent');
  t.equal(info.xml.running, 'true', 'from the last snapshot');
  t.match(attendeesOf(info.xml), [{ fullName: 'Bo', role: 'VIEWER' }]);
  assertFailed(t, await api(other).get('end', [['meetingID', 'quiet']]), 'meetingElsewhere', 'end');
  assertFailed(
    t,
    await api(other).get('sendChatMessage', [
      ['meetingID', 'quiet'],
      ['message', 'hello'],
    ]),
    'meetingElsewhere',
    'sendChatMessage',
  );
});

postgresTest("a node's start leaves alone a room another node serves", async (t) => {
  const { a, byId, network, clock, api } = await twoNodes(t);
  assertSuccess(t, await api(a).get('create', [['meetingID', 'stuck']]), 'create');
  const joined = await api(a).get('join', [
    ['meetingID', 'stuck'],
    ['fullName', 'Cy'],
    ['role', 'VIEWER'],
    ['redirect', 'false'],
  ]);
  const { roomId, token } = roomAndToken(joined.xml.url);
  const owner = byId[successorOf(roomId, nodes)!]!;
  t.match((await startWithToken(owner, roomId, token, 'Cy')).body, { status: 'joined' });
  // Its owner died between closing the room and ending the meeting's record: a start's reconciling
  // would open the room again, and the fence refuses that write on any node but the owner.
  await owner.services.rooms.update(roomId, {}, { entry: 'closed', unlisted: true });
  const third = await compatAppFor(t, {
    store: owner.store,
    env: { COMPAT_API_SHARED_SECRET: secret },
    cluster: { nodeId: 'node-c', bus: network.bus(), clock, alive: () => [...nodes, 'node-c'] },
  });
  assertSuccess(t, await api(third).get('getMeetingInfo', [['meetingID', 'stuck']]), 'node-c started and answers');
  t.equal((await owner.services.rooms.find(roomId))?.entry, 'closed', 'the room as its owner left it');
});
