// Issue 35 point 7: a clustered daemon's Prometheus metrics name the node once, in
// meet_node_info{node="…"} 1 (each node is its own scrape target: its `instance` label tells its
// series apart, the info metric joins the id in), and carry the cluster's gauges: rooms this node
// owns, nodes alive in its view, NATS connected. A single node's scrape has none of them. The
// daemon runs in this process on a fresh PostgreSQL database and a test-started nats-server.
import t from 'tap';
import { dataDirFor, rooms } from '../../helpers/api.js';
import { logMatch } from '../../helpers/compat.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { clusterTest, startNats } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { freshDatabase } from '../../helpers/postgres.js';

/** One sample's value by its name and labels as written (`name{a="b"}`); null when absent. */
function sample(text: string, series: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (line.slice(0, space) === series) return Number(line.slice(space + 1));
  }
  return null;
}

const scrape = async (url: string) => (await fetch(url)).text();
const metricsUrlOf = async (d: { lines: string[] }) =>
  (await logMatch(d, /"url":"(http:[^"]+)"[^\n]*"msg":"metrics listening/))[1]!;

clusterTest('a node of a cluster: its id, its rooms, its view and NATS in the metrics', async (t) => {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const d = await inProcessDaemonFor(t, dataDirFor(t), {
    SERVICE_DATABASE_URL: db.url,
    SERVICE_NATS_URL: nats.url,
    SERVICE_NODE_ID: 'metrics-node',
    SERVICE_METRICS_ADDR: '127.0.0.1:0',
    COMPAT_ENABLED: 'false',
  });
  const url = await metricsUrlOf(d);
  let text = await scrape(url);
  t.equal(sample(text, 'meet_node_info{node="metrics-node"}'), 1, 'the node id, once, as an info metric');
  t.equal(sample(text, 'meet_cluster_nats_connected'), 1, 'NATS connected');
  t.notMatch(text, /meet_waiting_requests\{[^}]*node=/, 'no node label copied onto the per-node series');
  await until('the node sees itself alive', async () => sample(await scrape(url), 'meet_cluster_nodes_alive') === 1);
  t.equal(sample(await scrape(url), 'meet_cluster_rooms_owned'), 0, 'no room yet');

  for (const roomId of ['metrics-1', 'metrics-2']) {
    t.equal((await rooms.create(d, { room_id: roomId, name: roomId, waiting_room: 'all' })).status, 201);
    // The first request for a room makes its successor (the only node) claim it.
    const knock = await fetch(`${d.url}/room/${roomId}/knock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ann' }),
    });
    t.equal(knock.status, 202, await knock.text());
  }
  t.equal(sample(await scrape(url), 'meet_cluster_rooms_owned'), 2, 'the two rooms it owns');

  await nats.kill();
  await until('NATS down in the metrics', async () => sample(await scrape(url), 'meet_cluster_nats_connected') === 0);
  text = await scrape(url);
  t.equal(sample(text, 'meet_node_info{node="metrics-node"}'), 1, 'the node is still named');
  // Back, so the daemon's stop finds its NATS and the test ends.
  await nats.restart();
  await until(
    'NATS back in the metrics',
    async () => sample(await scrape(url), 'meet_cluster_nats_connected') === 1,
    20_000,
  );
});

t.test('a single node: no node id and no cluster gauges', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), {
    SERVICE_METRICS_ADDR: '127.0.0.1:0',
    COMPAT_ENABLED: 'false',
  });
  const text = await scrape(await metricsUrlOf(d));
  t.match(text, /^meet_waiting_requests 0$/m, 'the metrics are served');
  t.notMatch(text, /meet_node_info|meet_cluster_/, 'nothing of a cluster');
});
