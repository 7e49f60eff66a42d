// Issue 35 point 7: `meetctl doctor` checks NATS (SERVICE_NATS_URL: the server's INFO within a
// short timeout, naming host:port) and the cluster's view in the registry: the nodes alive, this
// node's id not held by another live node (the daemon listening here answers X-Meet-Node with
// it, or the id belongs to someone else), and no last beat ahead of this machine's clock. Against
// a real nats-server on a free port and the throwaway PostgreSQL, in process.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { registryView } from '../../../src/daemon/cluster-status.js';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import type { CheckResult, DoctorContext } from '../../../src/ops/doctor/check.js';
import { clusterClocksCheck, clusterViewCheck, natsCheck } from '../../../src/ops/doctor/cluster.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres } from '../../../src/platform/postgres.js';
import { PostgresNodeRegistry } from '../../../src/store/postgres/node-registry.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { runCli } from '../../helpers/cli.js';
import { clusterTest, startNats } from '../../helpers/nats.js';
import { freePort } from '../../helpers/net.js';
import { freshDatabase } from '../../helpers/postgres.js';

const checks = [natsCheck, clusterViewCheck, clusterClocksCheck];

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-doctor-cluster-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

/** The three checks as doctor runs them (one context: one read of the registry), by id. */
async function run(t: Test, env: Record<string, string>, now = new Date()): Promise<Record<string, CheckResult>> {
  const full = { SERVICE_DATA_DIR: dataDir(t), ...env };
  const config = loadConfig({ env: full });
  const ctx = {
    env: full,
    config,
    now,
    ...(config.natsUrl && config.databaseUrl.kind === 'postgres'
      ? { clusterNodes: () => registryView(config, now) }
      : {}),
  } as unknown as DoctorContext;
  const results = await Promise.all(checks.map(async (c) => c.run(ctx)));
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

/** A listener that accepts and answers with `text` (null: never answers). */
async function tcpServer(t: Test, text: string | null): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    if (text !== null) socket.end(text);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return port;
}

clusterTest('NATS: reached, down, not NATS, silent; unset is skipped', async (t) => {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const env = (url: string) => ({ SERVICE_DATABASE_URL: db.url, SERVICE_NATS_URL: url });
  let r = await run(t, env(nats.url));
  t.equal(r.nats!.status, 'ok');
  t.match(r.nats!.detail, new RegExp(`^NATS at 127\\.0\\.0\\.1:${nats.port} \\(nats-server \\d+\\.\\d+\\.\\d+\\)$`));

  await nats.kill();
  r = await run(t, env(nats.url));
  t.same(
    [r.nats!.status, r.nats!.detail],
    ['fail', `NATS at 127.0.0.1:${nats.port} (SERVICE_NATS_URL) cannot be used: ECONNREFUSED`],
  );
  t.match(r.nats!.hint, /start nats-server/);

  const http = await tcpServer(t, 'HTTP/1.1 400 Bad Request\r\n\r\n');
  r = await run(t, env(`nats://127.0.0.1:${http}`));
  t.match(r.nats!, { status: 'fail', detail: /127\.0\.0\.1:\d+ .*it answers, but not as a NATS server$/ });
  const silent = await tcpServer(t, null);
  r = await run(t, env(`nats://127.0.0.1:${silent}`));
  t.match(r.nats!, { status: 'fail', detail: /no answer within 2 s$/ });

  r = await run(t, { SERVICE_DATABASE_URL: db.url });
  t.same(
    checks.map((c) => [r[c.id]!.status, r[c.id]!.detail]),
    checks.map(() => ['skip', 'SERVICE_NATS_URL is not set: one node, no cluster']),
  );
});

clusterTest('the cluster view: nodes alive, this node id held elsewhere, a clock ahead', async (t) => {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const engineLess = await run(t, { SERVICE_DATABASE_URL: db.url, SERVICE_NATS_URL: nats.url });
  t.match(engineLess.cluster!, { status: 'warn', detail: /no node has registered yet/, hint: /meetctl migrate/ });

  const target = { ...db.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const sql = openPostgres(target, { max: 1, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  await migratePostgres(sql, engineSchema, engineMigrationSteps());
  const registry = new PostgresNodeRegistry(sql);
  const now = new Date();
  const register = (nodeId: string, at: Date) =>
    registry.register(
      {
        nodeId,
        incarnation: `${nodeId}-1`,
        httpAddress: `http://10.0.0.9:3000`,
        startedAt: at,
        load: { openRooms: 0, liveSockets: 0 },
      },
      new Date(at.getTime() - aliveWithinMs),
    );
  await register('web-a', now);
  await register('web-b', now);
  await registry.markGone('web-b', 'web-b-1', now);

  const port = await freePort();
  const env = (nodeId: string) => ({
    SERVICE_DATABASE_URL: db.url,
    SERVICE_NATS_URL: nats.url,
    SERVICE_NODE_ID: nodeId,
    SERVICE_HTTP_ADDR: `127.0.0.1:${port}`,
  });
  let r = await run(t, env('web-z'), now);
  t.same([r.cluster!.status, r.cluster!.detail], ['ok', '1 node alive: web-a; this node web-z not running']);
  t.same(r['cluster-clocks']!.status, 'ok');

  // No daemon here answers as web-a: another machine's node holds the id.
  r = await run(t, env('web-a'), now);
  t.equal(r.cluster!.status, 'fail');
  t.match(r.cluster!.detail, /^node id web-a \(SERVICE_NODE_ID\) is held by a live node at http:\/\/10\.0\.0\.9:3000/);
  t.match(r.cluster!.hint, /its own SERVICE_NODE_ID/);

  // The daemon listening here answers as web-a: the live row is this node's own.
  const here = createHttpServer((_req, res) => res.writeHead(200, { 'x-meet-node': 'web-a' }).end('{}'));
  await new Promise<void>((resolve) => here.listen(port, '127.0.0.1', resolve));
  t.teardown(() => here.close());
  r = await run(t, env('web-a'), now);
  t.same([r.cluster!.status, r.cluster!.detail], ['ok', '1 node alive: web-a; this node web-a among them']);

  // A node whose clock runs 10 s ahead of this machine's.
  await register('web-c', new Date(now.getTime() + 10_000));
  r = await run(t, env('web-a'), now);
  t.equal(r['cluster-clocks']!.status, 'warn');
  t.equal(r['cluster-clocks']!.detail, "node web-c's last beat is 10.0 s ahead of this machine's clock");
  t.match(r['cluster-clocks']!.hint, /clock skew: .*timedatectl set-ntp true/);
  t.match(r.cluster!.detail, /^2 nodes alive: web-a, web-c;/);

  // Through the command itself: the checks are wired, in doctor's order.
  const result = await runCli(['doctor', '--json'], { SERVICE_DATA_DIR: dataDir(t), ...env('web-z') });
  const json = JSON.parse(result.stdout) as { checks: CheckResult[] };
  t.same(
    json.checks.filter((c) => ['nats', 'cluster', 'cluster-clocks'].includes(c.id)).map((c) => [c.id, c.status]),
    [
      ['nats', 'ok'],
      ['cluster', 'ok'],
      ['cluster-clocks', 'warn'],
    ],
  );
  t.notMatch(result.stdout, /nats:\/\//, 'NATS named by host and port only');
});
