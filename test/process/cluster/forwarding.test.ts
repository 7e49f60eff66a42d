// Issue 35 point 3 with real daemons: two `meetctl serve` nodes on one PostgreSQL and one
// nats-server; class-7a is node-a's (its rendezvous successor). A person knocks, polls and is
// admitted entirely through node-b, which forwards each request to node-a over NATS and answers
// as node-a does (X-Meet-Node: node-b). Abuse: a plain NATS client without the cluster's key
// publishes a forged forward on node-a's subject, and replays a genuine one it overheard: neither
// is answered nor changes anything, and node-a logs each refusal by reason. Then node-a is killed
// (kill -9) while another person waits: her poll through node-b keeps saying "waiting" (during
// the takeover at most a 503 owner_unreachable with Retry-After, never another 5xx), and her
// place is kept.
import { connect } from 'nats';
import { call, logRecords } from '../../helpers/api.js';
import { startTwoNodes } from '../../helpers/cluster-nodes.js';
import { apiOf, stopDaemon } from '../../helpers/daemon.js';
import { clusterTest } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { asSession, Browser, createRoom, moderator } from '../../helpers/waiting.js';

clusterTest(
  'through a non-owner a person is admitted; forged and replayed forwards change nothing; kill -9 keeps her place',
  async (t) => {
    const { a, b, nats } = await startTwoNodes(t);
    const token = a.adminToken || b.adminToken;
    const nodeA = { api: apiOf(a.url, token), adminToken: token };
    const nodeB = { api: apiOf(b.url, token), adminToken: token };
    await createRoom(t, nodeA, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });

    // An eavesdropper on NATS, without the cluster's key.
    const spy = await connect({ servers: nats.url });
    const overheard: Uint8Array[] = [];
    spy.subscribe('meet.node.node-a.http', { callback: (_err, message) => overheard.push(message.data) });
    await spy.flush();

    const ada = new Browser(nodeB, 'class-7a');
    const knocked = await ada.knock({ name: 'Ada', note: 'first' });
    t.equal(knocked.status, 202, 'her knock through node-b');
    t.equal(knocked.headers.get('x-meet-node'), 'node-b', 'answered by the node she talked to');
    t.ok(ada.cookie, 'her waiting cookie came back through node-b');
    t.match(await ada.poll(), { status: 200, body: { status: 'waiting' } }, 'her poll through node-b');
    const mod = await moderator(nodeB, 'class-7a', 'Mona');
    const names = async () => {
      const list = await asSession.list(nodeB, 'class-7a', mod.session);
      if (list.status !== 200) throw new Error(`waiting-list answered ${list.status}: ${list.text}`);
      return (list.body as { request_id: string; name: string }[]).map((i) => i.name);
    };
    t.same(await names(), ['Ada'], 'the moderator’s list through node-b');
    const big = { name: 'x'.repeat(70 * 1024) };
    const tooLarge = await call(nodeB, '/room/class-7a/knock', { method: 'POST', token: null, json: big });
    const onA = await call(nodeA, '/room/class-7a/knock', { method: 'POST', token: null, json: big });
    t.same([tooLarge.status, tooLarge.text], [onA.status, onA.text], 'an oversized body: the owner’s 413');
    t.equal(tooLarge.status, 413);

    t.ok(overheard.length > 0, 'the eavesdropper saw the forwards');
    const garbage = new TextEncoder().encode(
      JSON.stringify({ method: 'POST', url: '/room/class-7a/knock', ip: '203.0.113.1', body: '{"name":"Forger"}' }),
    );
    await t.rejects(spy.request('meet.node.node-a.http', garbage, { timeout: 1000 }), 'a made-up forward: no answer');
    // A genuine envelope with its content changed (the signature no longer matches).
    const tampered = Buffer.from(overheard[0]!);
    tampered[tampered.length - 3]! ^= 1;
    await t.rejects(spy.request('meet.node.node-a.http', tampered, { timeout: 1000 }), 'a tampered forward: no answer');
    await t.rejects(
      spy.request('meet.node.node-a.http', overheard[0], { timeout: 1000 }),
      'a replayed genuine forward: no answer',
    );
    await spy.close();
    t.same(await names(), ['Ada'], 'nothing changed');
    const refusals = () =>
      logRecords(a)
        .filter((r) => r.subject === 'meet.node.node-a.http')
        .map((r) => r.reason);
    await until('node-a logs the refusals', async () => refusals().length >= 3, 5000, 50);
    t.same(refusals().sort(), ['forged', 'malformed', 'replayed'], 'node-a refused them, by reason');

    const [item] = (await asSession.list(nodeB, 'class-7a', mod.session)).body as { request_id: string }[];
    t.equal((await asSession.admit(nodeB, 'class-7a', mod.session, { request_id: item!.request_id })).status, 200);
    t.equal((await ada.poll()).body?.status, 'admitted', 'admitted through node-b');

    const bob = new Browser(nodeB, 'class-7a');
    t.equal((await bob.knock({ name: 'Bob', note: 'second' })).status, 202, 'Bob knocks through node-b');
    t.equal(await stopDaemon(a, 'SIGKILL'), 'SIGKILL');
    const seen: string[] = [];
    await until(
      'Bob’s poll through node-b says waiting',
      async () => {
        const polled = await bob.poll();
        seen.push(`${polled.status} ${polled.body?.status ?? polled.body?.error?.code}`);
        if (polled.status === 503) t.equal(polled.headers.get('retry-after'), '2', '503 with Retry-After');
        return polled.status === 200;
      },
      20_000,
      200,
    );
    t.comment(`Bob’s polls through node-b after the kill: ${seen.join(', ')}`);
    t.same(
      seen.filter((s) => s !== '200 waiting' && s !== '503 owner_unreachable'),
      [],
      'only waiting, or 503 owner_unreachable during the takeover',
    );
    t.equal(seen.at(-1), '200 waiting');
    t.same(await names(), ['Bob'], 'his place is kept, on node-b now');
    const direct = await call(nodeB, '/room/class-7a/waiting', { token: null });
    t.equal(direct.headers.get('x-meet-node'), 'node-b');
  },
);
