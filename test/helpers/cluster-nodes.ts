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
