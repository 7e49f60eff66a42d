// The ClusterBus on NATS core (issue 35): the `nats` client (v2, which supports this project's
// Node 20; @nats-io/transport-node's dependencies ask for Node 22). The client reconnects by
// itself, forever, a second apart; `connected()` follows its status events, and readiness says
// not ready while it is away.
import { connect, ErrorCode, Events, type NatsConnection, type NatsError, type Subscription } from 'nats';
import type { Logger } from 'pino';
import type { NatsLocation } from '../config/cluster-settings.js';
import { EnvironmentError } from '../config/environment-error.js';
import { BusUnanswered, type BusSubscription, type ClusterBus, type UnansweredReason } from '../engine/cluster/bus.js';

/** How long the first connection may take before the start gives up. */
const connectTimeoutMs = 5000;
/** How long a stop waits for the messages under way to go before it closes the connection. */
const drainMs = 2000;

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

  async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (!this.connected()) throw new BusUnanswered(subject, 'disconnected');
    try {
      return (await this.nc.request(subject, data, { timeout: timeoutMs })).data;
    } catch (err) {
      throw new BusUnanswered(subject, unanswered(err as NatsError));
    }
  }

  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array>): BusSubscription {
    return this.listen(subject, (msg) => {
      // A handler that fails answers nothing: the asker's own timeout tells it, as for a dead node.
      handler(msg.data).then(
        (answer) => {
          // An answer over NATS's max_payload, or the connection closing, throws here: the asker's
          // timeout says so, and the process must not die of an unhandled rejection.
          try {
            msg.respond(answer);
          } catch {
            // nothing to answer with
          }
        },
        () => undefined,
      );
    });
  }

  publish(subject: string, data: Uint8Array): void {
    // Published while away is lost, as NATS core loses it for a node that is away: at most once.
    if (this.connected()) this.nc.publish(subject, data);
  }

  subscribe(subject: string, handler: (data: Uint8Array) => void): BusSubscription {
    return this.listen(subject, (msg) => handler(msg.data));
  }

  flush(): Promise<void> {
    return this.nc.flush();
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    // Draining needs the server: while it is away the client would wait for it forever (it
    // reconnects without end), and the stop with it. Then, or past a bound, the connection just closes.
    if (!this.connected()) return this.nc.close();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
    await Promise.race([this.nc.drain().catch(() => undefined), bound]);
    clearTimeout(timer);
    if (!this.nc.isClosed()) await this.nc.close();
  }

  private listen(subject: string, onMessage: (msg: { data: Uint8Array; respond(data: Uint8Array): boolean }) => void) {
    const sub: Subscription = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err === null) onMessage(msg);
      },
    });
    return { close: () => sub.unsubscribe() };
  }
}

function unanswered(err: NatsError): UnansweredReason {
  const code: string = err.code;
  if (code === (ErrorCode.NoResponders as string)) return 'no_responders';
  if (code === (ErrorCode.Timeout as string)) return 'timeout';
  return 'disconnected';
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
