// The ClusterBus on NATS core (issue 35): the `nats` client (v2, which supports this project's
// Node 20; @nats-io/transport-node's dependencies ask for Node 22). The client reconnects by
// itself, forever, a second apart; `connected()` follows its status events, and readiness says
// not ready while it is away.
import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { NatsLocation } from '../config/cluster-settings.js';
import { EnvironmentError } from '../config/environment-error.js';
import type { ClusterBus } from '../engine/cluster/bus.js';

/** How long the first connection may take before the start gives up. */
const connectTimeoutMs = 5000;

class NatsClusterBus implements ClusterBus {
  private up = true;

  constructor(
    private readonly nc: NatsConnection,
    log: Logger,
    where: string,
  ) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === Events.Disconnect) {
          this.up = false;
          log.warn({ nats: where }, `NATS at ${where} lost: reconnecting`);
        } else if (status.type === Events.Reconnect) {
          this.up = true;
          log.info({ nats: where }, `NATS at ${where} reconnected`);
        }
      }
    })();
  }

  connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}

/** Connects to SERVICE_NATS_URL; out of reach at start is the machine's problem (exit 69), naming host and port. */
export async function connectBus(location: NatsLocation, nodeId: string, log: Logger): Promise<ClusterBus> {
  const where = `${location.host}:${location.port}`;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: location.url,
      name: `meet-${nodeId}`,
      timeout: connectTimeoutMs,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
    });
  } catch (err) {
    throw new EnvironmentError(
      `NATS at ${where} (SERVICE_NATS_URL) cannot be reached: ${(err as Error).message}`,
      'start nats-server (Debian package nats-server) or correct SERVICE_NATS_URL',
      { cause: err },
    );
  }
  log.info({ nats: where, node: nodeId }, `connected to NATS at ${where}`);
  return new NatsClusterBus(nc, log, where);
}
