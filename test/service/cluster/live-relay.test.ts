// Issue 35 point 3: a live socket that reaches a node other than its room's owner is relayed to
// the owner over the signed node channel. Two engines (node-a owns the room, node-b is the front)
// on one PostgreSQL database and one memory bus, each listening on 127.0.0.1, on one fake clock.
// A moderator connected through node-b is a moderator of the owner's hub: the waiting list and its
// changes reach her, her socket's gestures act there, chat crosses both ways. A token the owner
// refuses is refused identically through node-b. What a plain NATS client publishes (no key) and
// what another node says of connections not its own change nothing. When the owner dies or loses
// the room, the relayed socket closes with a code the page retries, and her reconnection through
// node-b reaches the room's new owner with her role.
import type { Test } from 'tap';
import type { RoomOwnership } from '../../../src/engine/cluster/ownership.js';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import {
  frame,
  inSubject,
  outSubject,
  ownerGoneCode,
  relayCheckMs,
  relaySilenceMs,
} from '../../../src/http/live/relay-wire.js';
import type { InProcess } from '../../helpers/app.js';
import { clusterEngine, type NodeOnBus } from '../../helpers/cluster-engines.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { connectLive, liveUrl, refusedUpgrade, type LiveClient } from '../../helpers/live.js';
import { MemoryBusNetwork } from '../../helpers/memory-bus.js';
import { postgresTest } from '../../helpers/postgres.js';
import { postgresStore } from '../../helpers/service-stores.js';
import { asSession, Browser, createRoom, knockAndAdmit, moderator, sleep } from '../../helpers/waiting.js';

type Node = InProcess & { readonly url: string };

async function cluster(t: Test, ids: readonly string[] = ['node-a', 'node-b']) {
  const store = await postgresStore(t);
  const clock = new FakeClock();
  const scheduler = new FakeScheduler(clock);
  const network = new MemoryBusNetwork();
  const alive = new Set(ids);
  const ownerships = new Map<string, RoomOwnership>();
  const channels = new Map<string, NodeOnBus>();
  const nodes: Node[] = [];
  for (const nodeId of ids) {
    const node = await clusterEngine(t, {
      store,
      clock,
      nodeId,
      alive: () => [...alive],
      ownerships,
      network,
      scheduler,
      channels,
      listen: true,
    });
    nodes.push(node as Node);
  }
  const [a, b] = nodes as [Node, Node];
  // One database, one first admin token: node-a issued it.
  const asAdmin: Node = {
    ...b,
    api: (path, init = {}) => b.api(path, { ...init, token: init.token === undefined ? a.adminToken : init.token }),
  };
  return { a, b: asAdmin, nodes, clock, scheduler, network, alive, ownerships, channels };
}

/** The connection ids node-b relays to node-a, as they cross the bus (an eavesdropper on NATS sees them). */
function connIdsOnWire(network: MemoryBusNetwork, owner: string): string[] {
  const ids = new Set<string>();
  for (const { subject, data } of network.wire) {
    if (subject !== inSubject(owner)) continue;
    const bytes = Buffer.from(data);
    const body = bytes.subarray(58 + bytes[57]!);
    ids.add(body.toString('latin1', 1, 33));
  }
  return [...ids];
}

/** Lets what is in flight settle (sockets on loopback, the store), then checks nothing of `type` came. */
async function nothingOf(t: Test, client: LiveClient, type: 'chat', what: string) {
  await sleep(300);
  t.same(client.pending(type), [], what);
}

postgresTest('a moderator connected through a non-owner is served by the owner', async (t) => {
  const { a, b, ownerships } = await cluster(t);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  t.equal(ownerships.get('node-a')?.epochOf('class-7a'), 1, 'node-a serves the room');
  t.equal(ownerships.get('node-b')?.epochOf('class-7a'), undefined, 'node-b does not');

  const { client: live, welcome } = await connectLive(b, 'class-7a', mod.session);
  t.equal(welcome.self.role, 'moderator', 'her welcome through node-b: the owner’s, with her role');
  t.equal(welcome.room_name, 'Class 7a');
  t.same((await live.next('waiting_list')).requests, [], 'the waiting list is pushed through node-b');

  const ada = new Browser(a, 'class-7a');
  t.equal((await ada.knock({ name: 'Ada', note: 'camera broken' })).status, 202);
  const added = await live.next('waiting_changes', (m) => m.added.some((item) => item.name === 'Ada'));
  const adaId = added.added.find((item) => item.name === 'Ada')!.request_id;
  const bob = new Browser(a, 'class-7a');
  t.equal((await bob.knock({ name: 'Bob' })).status, 202);
  await live.next('waiting_changes', (m) => m.added.some((item) => item.name === 'Bob'));

  t.equal((await asSession.admit(a, 'class-7a', mod.session, { request_id: adaId })).status, 200);
  t.same((await live.next('waiting_changes', (m) => m.removed.includes(adaId))).outcomes, { [adaId]: 'admitted' });
  // Her socket's gesture through node-b: the waiting room off admits Bob on the owner.
  live.send({ type: 'waiting_room', enabled: false });
  await live.next('waiting_room', (m) => !m.enabled);
  t.equal((await bob.poll()).body.status, 'admitted', 'Bob is let in by her gesture through node-b');

  const adaPoll = await ada.poll();
  t.equal(adaPoll.body.status, 'admitted');
  const { client: adaLive } = await connectLive(a, 'class-7a', adaPoll.body.session as string);
  const joined = await live.next('participant_joined', (m) => m.participant.name === 'Ada');
  t.ok(joined, 'Ada joining on node-a is told through node-b');
  adaLive.send({ type: 'chat', text: 'hello from node-a' });
  t.equal((await live.next('chat', (m) => m.message.from.name === 'Ada')).message.text, 'hello from node-a');
  live.send({ type: 'chat', text: 'hello from node-b' });
  t.equal((await adaLive.next('chat', (m) => m.message.from.name === 'Mona')).message.text, 'hello from node-b');
  // Frames of one connection keep their order.
  for (let i = 0; i < 5; i += 1) live.send({ type: 'chat', text: `line ${i}` });
  const lines = await adaLive.until(() => {
    const got = adaLive.all('chat').filter((m) => m.message.text.startsWith('line '));
    return got.length === 5 ? got.map((m) => m.message.text) : undefined;
  }, 'five lines');
  t.same(
    lines,
    Array.from({ length: 5 }, (_, i) => `line ${i}`),
    'in the order she sent them',
  );

  // She closes her socket on node-b: the owner sees her leave the room's sockets.
  await live.close();
  await adaLive.next('participant_left', (m) => m.participant_id === mod.participantId);
  await adaLive.close();
});

postgresTest('a session the owner refuses is refused identically through a non-owner', async (t) => {
  const { a, b } = await cluster(t);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  await createRoom(t, a, { room_id: 'class-7b', name: 'Class 7b', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  // class-7b is served by whichever node is its successor.
  const other = await moderator(a, 'class-7b', 'Otto').catch(() => moderator(b, 'class-7b', 'Otto'));
  const { session: cy } = await knockAndAdmit(a, 'class-7a', mod, 'Cy');
  t.equal(
    (await asSession.leave(a, 'class-7a', cy.session)).status < 300,
    true,
    'Cy left: her session no longer holds',
  );
  for (const [what, session] of [
    ['no session', null],
    ['a forged token', 'eyJhbGciOiJIUzI1NiJ9.eyJyb29tIjoiY2xhc3MtN2EifQ.c2lnbmF0dXJl'],
    ['a session of another room', other.session],
    ['a session whose participant left', cy.session],
  ] as const) {
    const direct = await refusedUpgrade(liveUrl(a, 'class-7a', session));
    const relayed = await refusedUpgrade(liveUrl(b, 'class-7a', session));
    t.equal(direct.status, 401, `${what}: the owner refuses`);
    t.same(relayed, direct, `${what}: node-b answers the same status, type and body`);
  }
});

postgresTest('forged relay messages, and another node speaking for a connection, change nothing', async (t) => {
  const { a, b, network, nodes, channels } = await cluster(t, ['node-a', 'node-b', 'node-c']);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  const { session: cy } = await knockAndAdmit(a, 'class-7a', mod, 'Cy');
  const { client: live } = await connectLive(b, 'class-7a', mod.session);
  const { client: cyLive } = await connectLive(a, 'class-7a', cy.session);
  live.send({ type: 'chat', text: 'genuine' });
  await cyLive.next('chat', (m) => m.message.text === 'genuine');
  await live.next('chat', (m) => m.message.text === 'genuine');
  const [conn] = connIdsOnWire(network, 'node-a');
  t.ok(conn, 'her connection id crosses the bus in the clear');

  // A plain NATS client without the key: a copied frame again, the same frame altered, a frame of its own, an open.
  const intruder = network.bus();
  const genuine = network.wire.filter((m) => m.subject === inSubject('node-a')).at(-1)!.data;
  intruder.publish(inSubject('node-a'), genuine);
  const altered = Buffer.from(Buffer.from(genuine).toString('latin1').replace('genuine', 'forged!'), 'latin1');
  intruder.publish(inSubject('node-a'), altered);
  const unsigned = frame('f', conn!, Buffer.from(JSON.stringify({ type: 'chat', text: 'unsigned' })));
  intruder.publish(inSubject('node-a'), unsigned);
  intruder.publish(outSubject('node-b'), frame('m', conn!, Buffer.from(JSON.stringify({ type: 'chat', message: {} }))));
  await t.rejects(
    intruder.request(`meet.node.node-a.live.open`, Buffer.from('{}'), 200),
    'an unsigned open gets no answer',
  );
  await nothingOf(t, cyLive, 'chat', 'no forged chat reached the room');
  t.same(live.pending('chat'), [], 'nothing forged reached her page');
  const refused = (node: string) => Object.values(channels.get(node)!.channel.refused).reduce((n, m) => n + m, 0);
  t.equal(channels.get('node-a')!.channel.refused.replayed, 1, 'node-a refused the copied frame');
  t.ok(refused('node-a') >= 4, 'node-a refused the copy, the forgeries and the open');
  t.ok(refused('node-b') >= 1, 'node-b refused the unsigned message to her page');

  // node-c holds the key but not her connection: its frames and messages for it go nowhere.
  const c = channels.get('node-c')!.channel;
  t.ok(nodes[2], 'node-c runs');
  c.publish(inSubject('node-a'), frame('f', conn!, Buffer.from(JSON.stringify({ type: 'chat', text: 'injected' }))));
  c.publish(inSubject('node-a'), frame('x', conn!));
  c.publish(
    outSubject('node-b'),
    frame('m', conn!, Buffer.from(JSON.stringify({ type: 'chat', message: { text: 'injected' } }))),
  );
  c.publish(outSubject('node-b'), frame('c', conn!));
  await nothingOf(t, cyLive, 'chat', 'node-c cannot speak for her connection');
  t.same(live.pending('chat'), [], 'node-c cannot speak to her page');
  live.send({ type: 'chat', text: 'still here' });
  t.ok(await cyLive.next('chat', (m) => m.message.text === 'still here'), 'her connection still works');
  t.ok(await live.next('chat', (m) => m.message.text === 'still here'), 'both ways');
  await live.close();
  await cyLive.close();
});

postgresTest('when the owner dies, relayed pages close and reconnect to the new owner with their role', async (t) => {
  const { a, b, clock, scheduler, alive, ownerships, channels } = await cluster(t);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  const { client: live } = await connectLive(b, 'class-7a', mod.session);
  await live.next('waiting_list');

  // node-a is killed: gone from NATS (nobody serves its subjects) and from the live nodes.
  await channels.get('node-a')!.bus.close();
  alive.delete('node-a');
  scheduler.advance(relayCheckMs);
  const closed = await live.closed;
  t.equal(closed.code, ownerGoneCode, 'her socket closes with a code her page retries');

  clock.advance(aliveWithinMs + 1);
  const { client: again, welcome } = await connectLive(b, 'class-7a', mod.session);
  t.equal(welcome.self.role, 'moderator', 'through node-b again: the new owner knows her as moderator');
  t.equal(ownerships.get('node-b')?.epochOf('class-7a'), 2, 'node-b owns the room now');
  await again.close();
});

postgresTest('an owner that loses the room, or stops hearing the front, drops its relayed sockets', async (t) => {
  const { a, b, scheduler, ownerships, channels } = await cluster(t);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  const { session: cy } = await knockAndAdmit(a, 'class-7a', mod, 'Cy');
  const { client: live } = await connectLive(b, 'class-7a', mod.session);
  await live.next('waiting_list');

  // A frozen owner that wakes finds its lease gone: the room is lost, its relayed sockets close.
  ownerships.get('node-a')!.lost('class-7a');
  scheduler.advance(0);
  t.equal((await live.closed).code, ownerGoneCode, 'the lost room’s relayed socket closes');

  // node-a takes its room again (its own lease); Cy comes through node-b, Mona straight to node-a.
  const { client: cyLive } = await connectLive(b, 'class-7a', cy.session);
  const { client: modLive } = await connectLive(a, 'class-7a', mod.session);
  t.ok(modLive, 'Mona is on node-a');
  // node-b is cut from NATS (frozen, or its link down): neither side hears the other.
  channels.get('node-b')!.bus.down = true;
  for (let i = 0; i * relayCheckMs <= relaySilenceMs; i += 1) {
    scheduler.advance(relayCheckMs);
    await sleep(20);
  }
  t.ok(
    await modLive.next('participant_left', (m) => m.participant_id === cy.participantId),
    'the owner ends the silent front’s connection: Cy leaves the room’s sockets',
  );
  t.equal(
    (await cyLive.closed).code,
    ownerGoneCode,
    'the front closes her page once its owner is silent past the bound',
  );
  await modLive.close();
});
