// Issue 35 stage 1 (points 1 and 7): two real `meetctl serve` daemons on one PostgreSQL database
// and one nats-server are two nodes: both register, each answers with its own X-Meet-Node (a
// client's forged one changes nothing), each one's /readyz sees the other; a third start under
// a live node's id is refused (exit 1); after a kill -9 the other's view and `meetctl cluster
// status` show the killed node gone (at once since stage 2: its session lock is freed). Without
// SERVICE_NATS_URL no header is sent; a malformed NATS URL stops the start (2), a NATS out of
// reach too (69, naming host and port). `cluster status` runs in this process (runCli) and the
// single node without NATS too: what they read and answer, not the process, is the point.
import { dataDirFor } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { runMeetctl, stopDaemon, type Daemon } from '../../helpers/daemon.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { startTwoNodes } from '../../helpers/cluster-nodes.js';
import { clusterTest } from '../../helpers/nats.js';
import { freePort, until } from '../../helpers/net.js';
import { freshDatabase } from '../../helpers/postgres.js';

interface ReadyBody {
  status: string;
  checks: Record<string, string>;
  cluster?: { node: string; nodes_alive: string[] };
}

const readyz = async (daemon: Daemon) => (await fetch(`${daemon.url}/readyz`)).json() as Promise<ReadyBody>;

clusterTest('two daemons on one PostgreSQL and one NATS are two nodes of a cluster', async (t) => {
  const { a, b, db, env, ports } = await startTwoNodes(t);
  const [portA, portB] = ports;

  for (const [daemon, id] of [
    [a, 'node-a'],
    [b, 'node-b'],
  ] as const) {
    for (const path of ['/healthz', '/readyz', '/api/rooms', '/no-such-page']) {
      const answer = await fetch(`${daemon.url}${path}`, { headers: { 'x-meet-node': 'forged-node' } });
      t.equal(answer.headers.get('x-meet-node'), id, `${id} ${path}: its own id, whatever the client sent`);
    }
  }
  await until('each node sees the other', async () => {
    const [ra, rb] = await Promise.all([readyz(a), readyz(b)]);
    return ra.cluster?.nodes_alive.length === 2 && rb.cluster?.nodes_alive.length === 2;
  });
  const viewA = await readyz(a);
  t.match(viewA, { status: 'ready', checks: { database: 'ok', nats: 'ok' } });
  t.same(viewA.cluster, { node: 'node-a', nodes_alive: ['node-a', 'node-b'] }, 'A: itself first, then B');
  t.same((await readyz(b)).cluster, { node: 'node-b', nodes_alive: ['node-b', 'node-a'] });
  t.notMatch(JSON.stringify(viewA), /127\.0\.0\.1|postgres|nats:\/\//, '/readyz shows no address and no URL');

  const twin = await runMeetctl(['serve'], {
    SERVICE_DATA_DIR: dataDirFor(t),
    SERVICE_MEDIA: 'mesh',
    ...env('node-a', await freePort()),
  });
  t.equal(twin.code, 1, 'a second node-a is refused while the first beats');
  t.match(twin.stderr, /node id node-a is held by a live node at http:\/\/127\.0\.0\.1:\d+/);
  t.match((await readyz(b)).cluster, { nodes_alive: ['node-b', 'node-a'] }, 'the refused start changed nothing');

  const status = await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: db.url });
  t.equal(status.code, 0, status.stderr);
  t.match(JSON.parse(status.stdout), {
    nodes: [
      {
        node_id: 'node-a',
        address: `http://127.0.0.1:${portA}`,
        state: 'alive',
        rooms_owned: 0,
        open_rooms: 0,
        live_sockets: 0,
      },
      { node_id: 'node-b', address: `http://127.0.0.1:${portB}`, state: 'alive' },
    ],
  });

  t.equal(await stopDaemon(a, 'SIGKILL'), 'SIGKILL');
  // Stage 2: its session lock went with its connection, so A is dead without waiting for its beats to age.
  await until('B sees A gone', async () => (await readyz(b)).cluster?.nodes_alive.length === 1, 20_000);
  t.same((await readyz(b)).cluster, { node: 'node-b', nodes_alive: ['node-b'] });
  const after = await runCli(['cluster', 'status'], { SERVICE_DATABASE_URL: db.url });
  t.equal(after.code, 0, after.stderr);
  t.match(after.stdout, /^NODE\s+ADDRESS\s+STATE\s+LAST BEAT\s+ROOMS OWNED\s+OPEN ROOMS\s+LIVE SOCKETS\n/);
  t.match(after.stdout, /\nnode-a\s+http:\/\/127\.0\.0\.1:\d+\s+gone\s/);
  t.match(after.stdout, /\nnode-b\s+http:\/\/127\.0\.0\.1:\d+\s+alive\s/);

  // A clean stop says gone at once, without waiting for the timeout.
  t.equal(await stopDaemon(b), 0);
  const stopped = await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: db.url });
  t.match(JSON.parse(stopped.stdout), {
    nodes: [
      { node_id: 'node-a', state: 'gone' },
      { node_id: 'node-b', state: 'gone' },
    ],
  });
});

clusterTest(
  'without SERVICE_NATS_URL: no header, no cluster in /readyz; bad or absent NATS stops the start',
  async (t) => {
    const db = await freshDatabase(t);
    // What a single node answers is not about the process: the daemon runs in this one.
    const single = await inProcessDaemonFor(t, dataDirFor(t), {
      SERVICE_DATABASE_URL: db.url,
      COMPAT_ENABLED: 'false',
    });
    const answer = await fetch(`${single.url}/readyz`);
    t.equal(answer.headers.get('x-meet-node'), null, 'a single node names no node');
    t.notOk('cluster' in ((await answer.json()) as object), '/readyz as before');
    t.same(
      JSON.parse((await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: db.url })).stdout),
      { nodes: [], janus_servers: [] },
      'nothing registered',
    );

    const base = {
      SERVICE_DATA_DIR: dataDirFor(t),
      SERVICE_MEDIA: 'mesh',
      SERVICE_DATABASE_URL: db.url,
      COMPAT_ENABLED: 'false',
    };
    const malformed = await runMeetctl(['serve'], { ...base, SERVICE_NATS_URL: 'http://127.0.0.1:4222' });
    t.equal(malformed.code, 2);
    t.match(malformed.stderr, /SERVICE_NATS_URL must be nats:\/\/host:port/);
    const away = await freePort();
    const unreachable = await runMeetctl(['serve'], {
      ...base,
      SERVICE_HTTP_ADDR: `127.0.0.1:${await freePort()}`,
      SERVICE_NATS_URL: `nats://127.0.0.1:${away}`,
    });
    t.equal(unreachable.code, 69, unreachable.stderr);
    t.match(unreachable.stderr, `NATS at 127.0.0.1:${away} (SERVICE_NATS_URL) cannot be reached`);
  },
);

clusterTest('cluster status on SQLite says a cluster needs PostgreSQL', async (t) => {
  const result = await runCli(['cluster', 'status'], { SERVICE_DATA_DIR: dataDirFor(t) });
  t.equal(result.code, 1);
  t.match(result.stderr, /a cluster needs PostgreSQL/);
  t.match(result.stderr, /hint: set SERVICE_DATABASE_URL=postgres/);
});
