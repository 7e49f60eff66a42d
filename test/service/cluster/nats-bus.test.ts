// Issue 35 point 3: the ClusterBus on a real nats-server (test-started, free port): requests and
// answers, publish and subscribe between two connections, and each way a request goes unanswered
// (nobody serves it, a handler that fails or hangs, NATS away); the signed channel over it refuses
// what a client of the same NATS sends without the cluster's key.
import { connect } from 'nats';
import pino from 'pino';
import type { Test } from 'tap';
import { BusUnanswered, type ClusterBus } from '../../../src/engine/cluster/bus.js';
import { channelKey, NodeChannel } from '../../../src/engine/cluster/node-channel.js';
import { connectBus } from '../../../src/daemon/nats-bus.js';
import { memoryLog } from '../../helpers/memory-log.js';
import { clusterTest, startNats, type NatsServer } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const bytes = (value: string) => new Uint8Array(Buffer.from(value, 'utf8'));
const systemClock = { now: () => new Date() };

async function busOn(t: Test, nats: NatsServer, nodeId: string): Promise<ClusterBus> {
  const log = memoryLog();
  const bus = await connectBus(
    { host: '127.0.0.1', port: nats.port, url: nats.url },
    nodeId,
    pino({ level: 'info' }, log.sink),
  );
  t.teardown(() => bus.close());
  return bus;
}

clusterTest('requests, answers and messages cross two connections; what goes unanswered says why', async (t) => {
  const nats = await startNats(t);
  const a = await busOn(t, nats, 'node-a');
  const b = await busOn(t, nats, 'node-b');
  b.serve('meet.node.node-b.http', async (data) => bytes(`b read ${text(data)}`));
  b.serve('meet.node.node-b.fails', async () => {
    throw new Error('the owner could not answer');
  });
  b.serve('meet.node.node-b.hangs', () => new Promise<Uint8Array>(() => undefined));
  // Over nats-server's max_payload (1 MB by default): not sent, and the serving process lives on.
  b.serve('meet.node.node-b.huge', async () => new Uint8Array(2 * 1024 * 1024));
  const got: string[] = [];
  const sub = b.subscribe('meet.room.r1', (data) => got.push(text(data)));
  // A subscription is live once the server has it.
  await b.flush();
  t.equal(text(await a.request('meet.node.node-b.http', bytes('GET /room/r1'), 2000)), 'b read GET /room/r1');
  a.publish('meet.room.r1', bytes('one'));
  await until('the message arrives', async () => got.length === 1);
  t.same(got, ['one']);
  sub.close();
  await b.flush();
  a.publish('meet.room.r1', bytes('after close'));
  await a.request('meet.node.node-b.http', bytes('flush'), 2000);
  t.same(got, ['one'], 'nothing after close');

  const reasonOf = async (subject: string, timeoutMs = 300) =>
    a.request(subject, bytes('x'), timeoutMs).then(
      () => 'answered',
      (err: unknown) => (err instanceof BusUnanswered ? err.reason : String(err)),
    );
  t.equal(await reasonOf('meet.node.node-z.http'), 'no_responders', 'nobody serves it');
  t.equal(await reasonOf('meet.node.node-b.fails'), 'timeout', 'a failing handler answers nothing');
  t.equal(await reasonOf('meet.node.node-b.hangs'), 'timeout');
  t.equal(await reasonOf('meet.node.node-b.huge'), 'timeout', 'an answer too large for NATS is not sent');
  t.equal(text(await a.request('meet.node.node-b.http', bytes('after'), 2000)), 'b read after', 'b serves on');

  await nats.kill();
  await until('the bus sees NATS away', async () => !a.connected());
  t.equal(await reasonOf('meet.node.node-b.http', 5000), 'disconnected', 'at once, not after the timeout');
  t.doesNotThrow(() => a.publish('meet.room.r1', bytes('lost')), 'a publish while away is dropped, not thrown');
  await nats.restart();
  await until('both reconnect', async () => a.connected() && b.connected(), 15_000);
  await until('the served subject is back', async () => (await reasonOf('meet.node.node-b.http', 1000)) === 'answered');

  // A stop while NATS is away does not wait for it (draining would, without end).
  await nats.kill();
  await until('the bus sees NATS away again', async () => !b.connected());
  await b.close();
  t.pass('closed while NATS is away');
});

clusterTest('the signed channel over NATS: nodes understand each other, a keyless client is refused', async (t) => {
  const nats = await startNats(t);
  const key = channelKey(new Uint8Array(32).fill(3));
  const refused: string[] = [];
  const a = new NodeChannel(await busOn(t, nats, 'node-a'), key, 'node-a', systemClock);
  const b = new NodeChannel(await busOn(t, nats, 'node-b'), key, 'node-b', systemClock, (reason) =>
    refused.push(reason),
  );
  const heard: string[] = [];
  b.subscribe('meet.room.r1', (message) => heard.push(`${message.from}:${text(message.body)}`));
  b.serve('meet.node.node-b.http', async (message) => bytes(`hello ${message.from}`));
  await b.flush();
  t.same(text((await a.request('meet.node.node-b.http', bytes('hi'), 2000)).body), 'hello node-a');

  // Anyone who reaches NATS, with the plain client and no key.
  const intruder = await connect({ servers: nats.url });
  t.teardown(() => intruder.close());
  intruder.publish('meet.room.r1', bytes('{"admit":"everyone"}'));
  const answered = await intruder.request('meet.node.node-b.http', bytes('GET /'), { timeout: 300 }).then(
    () => true,
    () => false,
  );
  t.equal(answered, false, 'a request without the key gets no answer');
  a.publish('meet.room.r1', bytes('genuine'));
  await until('the genuine message arrives', async () => heard.length > 0);
  t.same(heard, ['node-a:genuine']);
  t.same(refused, ['malformed', 'malformed']);
});
