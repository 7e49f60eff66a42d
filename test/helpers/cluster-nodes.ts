// Two real `meetctl serve` nodes of one cluster for the process tests of issue 35: one fresh
// PostgreSQL database, one nats-server, node-a and node-b each on a port of its own, killed when
// the test ends. The compat listener is off unless `compatSecret` is given (then each node's
// meeting API listens on a port of its own, licensed by the test authority).
import type { Test } from 'tap';
import { dataDirFor } from './api.js';
import { logMatch } from './compat.js';
import { installTestLicence } from './licence.js';
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
  /** Where each node's meeting API answers (with `compatSecret`). */
  readonly compatUrls: { readonly a: string; readonly b: string } | null;
}

export async function startTwoNodes(t: Test, options: { compatSecret?: string } = {}): Promise<TwoNodes> {
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
  const secret = options.compatSecret;
  const start = async (nodeId: string, port: number) => {
    const dataDir = dataDirFor(t);
    const compat =
      secret === undefined
        ? {}
        : {
            ...(await installTestLicence(dataDir)),
            COMPAT_ENABLED: 'true',
            COMPAT_HTTP_ADDR: '127.0.0.1:0',
            COMPAT_API_SHARED_SECRET: secret,
          };
    const daemon = await startDaemon({ dataDir, env: { ...env(nodeId, port), ...compat } });
    t.teardown(() => stopDaemon(daemon, 'SIGKILL'));
    return daemon;
  };
  const a = await start('node-a', portA);
  const b = await start('node-b', portB);
  const compatUrl = async (daemon: Daemon) =>
    (await logMatch(daemon, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;
  const compatUrls = secret === undefined ? null : { a: await compatUrl(a), b: await compatUrl(b) };
  return { a, b, db, nats, ports: [portA, portB], env, compatUrls };
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
