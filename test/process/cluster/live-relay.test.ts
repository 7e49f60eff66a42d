// Issue 35 point 3 with real daemons: two `meetctl serve` nodes on one PostgreSQL and one
// nats-server. A moderator's live socket opened through node-b, which does not own class-7a, is
// relayed to node-a (its owner): her welcome says moderator, a knock on node-a reaches her page.
// node-a is killed (kill -9): node-b notices (nobody serves node-a's subjects any more) and closes
// her socket with a code her page retries; reconnecting through node-b reaches the room's new
// owner (node-b, which adopted it) with her role and the same waiting list. A frozen owner
// (SIGSTOP): the socket closes once the owner is silent past the bound, by when it is dead to every
// node, so her first reconnection finds the new owner; woken, the old owner names the new one.
import { startTwoNodes } from '../../helpers/cluster-nodes.js';
import { apiOf, stopDaemon } from '../../helpers/daemon.js';
import { connectLive, type LiveClient } from '../../helpers/live.js';
import { clusterTest } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { asSession, Browser, createRoom, moderator } from '../../helpers/waiting.js';
import { rooms } from '../../helpers/api.js';
import { ownerGoneCode } from '../../../src/http/live/relay-wire.js';

clusterTest(
  'a live socket through a non-owner is relayed, and comes back through the survivor after a kill -9',
  async (t) => {
    const { a, b } = await startTwoNodes(t);
    const token = a.adminToken || b.adminToken;
    const nodeA = { api: apiOf(a.url, token), adminToken: token };
    await createRoom(t, nodeA, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
    const mod = await moderator(nodeA, 'class-7a', 'Mona');

    const { client, welcome } = await connectLive(b, 'class-7a', mod.session);
    t.teardown(() => client.close());
    t.equal(welcome.self.role, 'moderator', 'through node-b: the owner’s welcome, with her role');
    t.same((await client.next('waiting_list')).requests, []);
    t.equal((await new Browser(nodeA, 'class-7a').knock({ name: 'Ada', note: 'first' })).status, 202);
    await client.next('waiting_changes', (m) => m.added.some((item) => item.name === 'Ada'));

    const killedAt = Date.now();
    t.equal(await stopDaemon(a, 'SIGKILL'), 'SIGKILL');
    const closed = await client.closed;
    t.comment(`the relayed socket closed ${Date.now() - killedAt} ms after the kill`);
    t.equal(closed.code, ownerGoneCode, 'closed with a code her page retries');

    let again: { client: LiveClient; welcome: typeof welcome } | null = null;
    await until(
      'her socket through node-b is back',
      async () => {
        again = await connectLive(b, 'class-7a', mod.session).catch(() => null);
        return again !== null;
      },
      15_000,
      200,
    );
    const back = again as unknown as { client: LiveClient; welcome: typeof welcome };
    t.teardown(() => back.client.close());
    t.comment(`back ${Date.now() - killedAt} ms after the kill`);
    t.equal(back.welcome.self.role, 'moderator', 'the new owner knows her as moderator');
    t.same(
      (await back.client.next('waiting_list')).requests.map((item) => [item.name, item.note]),
      [['Ada', 'first']],
      'the same waiting list',
    );
  },
);

clusterTest('a frozen owner (SIGSTOP): its relayed pages close and come back through the survivor', async (t) => {
  const { a, b } = await startTwoNodes(t);
  const token = a.adminToken || b.adminToken;
  const nodeA = { api: apiOf(a.url, token), adminToken: token };
  await createRoom(t, nodeA, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(nodeA, 'class-7a', 'Mona');
  const { client } = await connectLive(b, 'class-7a', mod.session);
  t.teardown(() => client.close());
  await client.next('waiting_list');

  const frozenAt = Date.now();
  a.child.kill('SIGSTOP');
  t.teardown(() => a.child.kill('SIGCONT'));
  const closed = await client.closed;
  t.comment(`the relayed socket closed ${Date.now() - frozenAt} ms after the freeze`);
  t.equal(closed.code, ownerGoneCode, 'closed with a code her page retries');

  // Her page's first retry: it must find the new owner, since a refused reconnection ends the page.
  const back = await connectLive(b, 'class-7a', mod.session);
  t.teardown(() => back.client.close());
  t.equal(back.welcome.self.role, 'moderator', 'at once through node-b: the new owner knows her as moderator');

  a.child.kill('SIGCONT');
  await until(
    'the woken node names node-b',
    // A keep-alive connection the woken node closed while it was frozen may fail once: asked again.
    async () => (await rooms.get(nodeA, 'class-7a').catch(() => null))?.body.owner_node === 'node-b',
    30_000,
    200,
  );
  // It forwards the room's requests to the new owner now, rather than serving them from memory.
  const knock = await new Browser(nodeA, 'class-7a').knock({ name: 'Eve' });
  t.equal(knock.status, 202, 'a knock through the woken node is accepted');
  t.same(
    (await asSession.list({ api: apiOf(b.url, token), adminToken: token }, 'class-7a', mod.session)).body.map(
      (i: { name: string }) => i.name,
    ),
    ['Eve'],
    'by node-b, the owner',
  );
  t.pass('the woken owner found its lease gone and serves the room no more');
});
