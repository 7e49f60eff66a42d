// Two real `meetctl serve` nodes of one cluster for the process tests of issue 35: one fresh
// PostgreSQL database, one nats-server, node-a and node-b each on a port of its own, killed when
// the test ends. The compat listener is off: it would want a port of its own per node.
import type { Test } from 'tap';
import { dataDirFor } from './api.js';
import { startDaemon, stopDaemon, type Daemon } from './daemon.js';
import { startNats, type NatsServer } from './nats.js';
import { freePorts } from './net.js';
import { freshDatabase, type PostgresDatabase } from './postgres.js';

export interface TwoNodes {
  readonly a: Daemon;
  readonly b: Daemon;
  readonly db: PostgresDatabase;
  readonly nats: NatsServer;
  readonly ports: readonly [number, number];
  /** The environment of a node of this cluster (a third start, a restart). */
  readonly env: (nodeId: string, port: number) => Record<string, string>;
}

export async function startTwoNodes(t: Test): Promise<TwoNodes> {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const [portA, portB] = await freePorts(2);
  const env = (nodeId: string, port: number) => ({
    SERVICE_DATABASE_URL: db.url,
    SERVICE_NATS_URL: nats.url,
    SERVICE_NODE_ID: nodeId,
    SERVICE_HTTP_ADDR: `127.0.0.1:${port}`,
    COMPAT_ENABLED: 'false',
  });
  const a = await startDaemon({ dataDir: dataDirFor(t), env: env('node-a', portA) });
  t.teardown(() => stopDaemon(a, 'SIGKILL'));
  const b = await startDaemon({ dataDir: dataDirFor(t), env: env('node-b', portB) });
  t.teardown(() => stopDaemon(b, 'SIGKILL'));
  return { a, b, db, nats, ports: [portA, portB], env };
}

export interface Nodes {
  readonly db: PostgresDatabase;
  readonly nats: NatsServer;
  /** The node running now under each id (a restart replaces it). */
  readonly running: Map<string, Daemon>;
  /** Starts `nodeId` again on its port and data directory (after a kill). */
  restart(nodeId: string): Promise<Daemon>;
}

/** N real nodes of one cluster, each on a port and data directory of its own, killed when the test ends. */
export async function startNodes(t: Test, ids: readonly string[]): Promise<Nodes> {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const ports = await freePorts(ids.length);
  const running = new Map<string, Daemon>();
  const placed = new Map(ids.map((id, i) => [id, { port: ports[i]!, dataDir: dataDirFor(t) }]));
  const start = async (nodeId: string) => {
    const { port, dataDir } = placed.get(nodeId)!;
    const daemon = await startDaemon({
      dataDir,
      env: {
        SERVICE_DATABASE_URL: db.url,
        SERVICE_NATS_URL: nats.url,
        SERVICE_NODE_ID: nodeId,
        SERVICE_HTTP_ADDR: `127.0.0.1:${port}`,
        COMPAT_ENABLED: 'false',
      },
    });
    running.set(nodeId, daemon);
    return daemon;
  };
  t.teardown(async () => {
    for (const daemon of running.values()) await stopDaemon(daemon, 'SIGKILL');
  });
  for (const id of ids) await start(id);
  return { db, nats, running, restart: start };
}
