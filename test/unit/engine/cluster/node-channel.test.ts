// Issue 35: what one node tells another is believed only when signed with the cluster's key,
// bound to its subject (an answer to its request), fresh and new. The attacker here reaches NATS
// (SERVICE_NATS_URL carries no credentials): she reads the wire, sends her own bytes, replays,
// moves a message to another subject, alters a byte, forges a reply.
import t from 'tap';
import { BusUnanswered } from '../../../../src/engine/cluster/bus.js';
import { channelKey, freshForMs, NodeChannel, type NodeMessage } from '../../../../src/engine/cluster/node-channel.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { MemoryBusNetwork } from '../../../helpers/memory-bus.js';

const key = channelKey(new Uint8Array(32).fill(7));
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytes = (value: string) => new Uint8Array(Buffer.from(value, 'utf8'));

function cluster() {
  const clock = new FakeClock();
  const network = new MemoryBusNetwork();
  const refusals: string[] = [];
  const node = (id: string, nodeKey = key) =>
    new NodeChannel(network.bus(), nodeKey, id, clock, (reason, subject) =>
      refusals.push(`${id} ${reason} ${subject}`),
    );
  return { clock, network, refusals, node, raw: network.bus() };
}

t.test('a request reaches the serving node with its sender, and its answer comes back', async (t) => {
  const { node } = cluster();
  const a = node('node-a');
  const b = node('node-b');
  b.serve('meet.node.node-b.http', async (message) => bytes(`${message.from} asked ${text(message.body)}`));
  const answer = await a.request('meet.node.node-b.http', bytes('GET /room/x'), 1000);
  t.equal(answer.from, 'node-b');
  t.equal(text(answer.body), 'node-a asked GET /room/x');
  await t.rejects(a.request('meet.node.node-c.http', bytes('x'), 1000), BusUnanswered, 'nobody serves node-c');
});

t.test('published messages reach every subscriber with their sender', async (t) => {
  const { node } = cluster();
  const got: NodeMessage[] = [];
  node('node-b').subscribe('meet.room.r1', (message) => got.push(message));
  node('node-c').subscribe('meet.room.r1', (message) => got.push(message));
  node('node-a').publish('meet.room.r1', bytes('hello'));
  t.same(
    got.map((message) => `${message.from}:${text(message.body)}`),
    ['node-a:hello', 'node-a:hello'],
  );
});

t.test('a message signed with another key is dropped unread', async (t) => {
  const { node, refusals } = cluster();
  const got: string[] = [];
  node('node-b').subscribe('meet.room.r1', (message) => got.push(text(message.body)));
  node('intruder', channelKey(new Uint8Array(32).fill(8))).publish('meet.room.r1', bytes('admit me'));
  t.same(got, []);
  t.same(refusals, ['node-b forged meet.room.r1']);
});

t.test('a replayed message is dropped; a fresh one with the same body is not', async (t) => {
  const { node, network, raw, refusals } = cluster();
  const got: string[] = [];
  node('node-b').subscribe('meet.room.r1', (message) => got.push(text(message.body)));
  const a = node('node-a');
  a.publish('meet.room.r1', bytes('admit ada'));
  const captured = network.wire.at(-1)!.data;
  raw.publish('meet.room.r1', captured);
  a.publish('meet.room.r1', bytes('admit ada'));
  t.same(got, ['admit ada', 'admit ada']);
  t.same(refusals, ['node-b replayed meet.room.r1']);
});

t.test('a message replayed after its window is stale, and so is one from a clock far ahead', async (t) => {
  const { node, network, raw, clock, refusals } = cluster();
  const got: string[] = [];
  node('node-b').subscribe('meet.room.r1', (message) => got.push(text(message.body)));
  node('node-a').publish('meet.room.r1', bytes('one'));
  const captured = network.wire.at(-1)!.data;
  // Past the window the ids are forgotten, so the time alone must refuse it.
  clock.advance(3 * freshForMs);
  raw.publish('meet.room.r1', captured);
  const ahead = new NodeChannel(network.bus(), key, 'node-z', { now: () => new Date(clock.nowMs() + freshForMs + 1) });
  ahead.publish('meet.room.r1', bytes('from the future'));
  // Within the window of skew, a node's clock a little ahead is fine.
  const close = new NodeChannel(network.bus(), key, 'node-y', { now: () => new Date(clock.nowMs() + freshForMs - 1) });
  close.publish('meet.room.r1', bytes('slightly ahead'));
  t.same(got, ['one', 'slightly ahead']);
  t.same(refusals, ['node-b stale meet.room.r1', 'node-b stale meet.room.r1']);
});

t.test('a message moved to another subject, or from a publish to a request, is forged', async (t) => {
  const { node, network, raw, refusals } = cluster();
  const got: string[] = [];
  const b = node('node-b');
  b.subscribe('meet.room.r2', (message) => got.push(text(message.body)));
  b.serve('meet.node.node-b.http', async (message) => {
    got.push(text(message.body));
    return bytes('ok');
  });
  node('node-a').publish('meet.room.r1', bytes('for r1'));
  const captured = network.wire.at(-1)!.data;
  raw.publish('meet.room.r2', captured);
  await t.rejects(raw.request('meet.node.node-b.http', captured, 50), BusUnanswered, 'unanswered');
  t.same(got, []);
  t.same(refusals, ['node-b forged meet.room.r2', 'node-b forged meet.node.node-b.http']);
});

t.test('any altered byte (body, sender, time, id) is forged; short or unknown layouts are malformed', async (t) => {
  const { node, network, raw, refusals } = cluster();
  const got: string[] = [];
  node('node-b').subscribe('meet.room.r1', (message) => got.push(text(message.body)));
  node('node-a').publish('meet.room.r1', bytes('body'));
  const original = network.wire.at(-1)!.data;
  // 33..40 time, 41..56 id, 57 the id's length, 58.. the node id, then the body.
  for (const at of [34, 45, 58, original.length - 1]) {
    const altered = new Uint8Array(original);
    altered[at] = altered[at]! ^ 1;
    raw.publish('meet.room.r1', altered);
  }
  raw.publish('meet.room.r1', new Uint8Array(10));
  const otherVersion = new Uint8Array(original);
  otherVersion[32] = 2;
  raw.publish('meet.room.r1', otherVersion);
  const longId = new Uint8Array(original);
  longId[57] = 200;
  raw.publish('meet.room.r1', longId);
  raw.publish('meet.room.r1', new Uint8Array(0));
  t.same(got, ['body'], 'only the genuine one');
  t.same(
    refusals.map((line) => line.split(' ')[1]),
    ['forged', 'forged', 'forged', 'forged', 'malformed', 'malformed', 'malformed', 'malformed'],
  );
});

t.test(
  'an answer must be signed for its own request: a replayed request is not served, another answer is refused',
  async (t) => {
    const { node, network, raw, refusals } = cluster();
    const a = node('node-a');
    node('node-b').serve('meet.node.node-b.http', async () => bytes('the owner says 200'));
    t.equal(text((await a.request('meet.node.node-b.http', bytes('first'), 1000)).body), 'the owner says 200');
    const [request, answer] = network.wire.slice(-2).map((sent) => sent.data);
    await t.rejects(
      raw.request('meet.node.node-b.http', request!, 50),
      BusUnanswered,
      'the replayed request times out',
    );
    t.same(refusals, ['node-b replayed meet.node.node-b.http']);
    // An intruder answering another request with the owner's genuine answer to the first one.
    raw.serve('meet.node.node-d.http', async () => answer!);
    await t.rejects(a.request('meet.node.node-d.http', bytes('second'), 1000), /refused: forged/);
    raw.serve('meet.node.node-e.http', async () => new Uint8Array(64));
    await t.rejects(a.request('meet.node.node-e.http', bytes('third'), 1000), /refused: malformed/);
    node('node-f', channelKey(new Uint8Array(32).fill(9))).serve('meet.node.node-f.http', async () => bytes('x'));
    await t.rejects(a.request('meet.node.node-f.http', bytes('fourth'), 1000), BusUnanswered, 'its key refuses ours');
    t.same(refusals.slice(1), [
      'node-a forged meet.node.node-d.http',
      'node-a malformed meet.node.node-e.http',
      'node-f forged meet.node.node-f.http',
    ]);
  },
);

t.test('a node id outside 1 to 64 bytes cannot sign', async (t) => {
  const { network, clock } = cluster();
  t.throws(() => new NodeChannel(network.bus(), key, '', clock), RangeError);
  t.throws(() => new NodeChannel(network.bus(), key, 'n'.repeat(65), clock), RangeError);
});
