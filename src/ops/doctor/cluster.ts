// The cluster checks of `meetctl doctor` (issue 35 point 7), when SERVICE_NATS_URL is set: NATS
// answers at its host and port (its INFO line, within a short timeout; the URL holds no
// credentials, and only host:port is named), and the registry's view: the nodes alive, this
// node's id not held by another live node, and no node whose last beat lies in this machine's
// future (clock skew: liveness is judged by each reader's clock against the beats' times).
import { connect } from 'node:net';
import {
  check,
  configMissing,
  fail,
  ok,
  skip,
  warn,
  type ClusterNodeSeen,
  type ClusterRead,
  type DoctorContext,
  type Outcome,
} from './check.js';

/** How long doctor waits for NATS or the local daemon. */
const answerWithinMs = 2000;
/** A last beat further ahead than this is another clock, not a beat in flight. */
export const skewMs = 2000;

type NatsAnswer =
  { readonly reached: true; readonly version: string | null } | { readonly reached: false; readonly error: string };

/** Connects to NATS and reads the INFO line a NATS server sends first; nothing is sent to it. */
export function probeNats(host: string, port: number, timeoutMs = answerWithinMs): Promise<NatsAnswer> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host, port });
    const done = (answer: NatsAnswer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done({ reached: false, error: `no answer within ${timeoutMs / 1000} s` }));
    socket.on('error', (err: NodeJS.ErrnoException) => done({ reached: false, error: err.code ?? err.message }));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n');
      if (end < 0 && text.length < 4096) return;
      const line = end < 0 ? text : text.slice(0, end);
      if (!line.startsWith('INFO ')) return done({ reached: false, error: 'it answers, but not as a NATS server' });
      let version: string | null = null;
      try {
        const info = JSON.parse(line.slice(5)) as { version?: unknown };
        version = typeof info.version === 'string' && /^[\w.+-]{1,40}$/.test(info.version) ? info.version : null;
      } catch {
        // A server's INFO without JSON still says NATS; the version is only shown.
      }
      done({ reached: true, version });
    });
  });
}

const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

export const natsCheck = check('nats', 'NATS reachable', async (ctx) => {
  if (ctx.config === null) return configMissing;
  const nats = ctx.config.natsUrl;
  if (nats === null) return skip('SERVICE_NATS_URL is not set: one node, no cluster');
  const where = hostPort(nats.host, nats.port);
  const answer = await probeNats(nats.host, nats.port);
  if (!answer.reached)
    return fail(
      `NATS at ${where} (SERVICE_NATS_URL) cannot be used: ${answer.error}`,
      'start nats-server (systemctl start nats-server) and check SERVICE_NATS_URL; the node does not start without it',
    );
  return ok(`NATS at ${where}${answer.version === null ? '' : ` (nats-server ${answer.version})`}`);
});

const reads = new WeakMap<DoctorContext, Promise<ClusterRead>>();

/** The registry read once per run; an outcome instead when there is no cluster to look at. */
async function registry(ctx: DoctorContext): Promise<{ readonly nodes: readonly ClusterNodeSeen[] } | Outcome> {
  if (ctx.config === null) return configMissing;
  if (ctx.config.natsUrl === null) return skip('SERVICE_NATS_URL is not set: one node, no cluster');
  if (ctx.clusterNodes === undefined) return skip('a cluster needs PostgreSQL (SERVICE_DATABASE_URL)');
  let pending = reads.get(ctx);
  if (pending === undefined) {
    pending = ctx.clusterNodes();
    reads.set(ctx, pending);
  }
  const read = await pending;
  if (read === 'no-registry')
    return warn('no node has registered yet (the registry table is missing)', 'run meetctl migrate, or start a node');
  if ('unavailable' in read) return skip(`the registry cannot be read: ${read.unavailable}`);
  return { nodes: read };
}

/** The node id the daemon listening here answers with (X-Meet-Node), or null when none answers. */
async function localNodeId(ctx: DoctorContext): Promise<string | null> {
  const addr = ctx.config!.httpAddr;
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host;
  try {
    const answer = await fetch(`http://${hostPort(host, addr.port)}/healthz`, {
      signal: AbortSignal.timeout(answerWithinMs),
    });
    await answer.body?.cancel();
    return answer.headers.get('x-meet-node');
  } catch {
    return null;
  }
}

export const clusterViewCheck = check('cluster', 'Cluster view', async (ctx) => {
  const read = await registry(ctx);
  if (!('nodes' in read)) return read;
  const { nodes } = read;
  const id = ctx.config!.nodeId;
  const alive = nodes.filter((node) => node.alive);
  const names = alive.length === 0 ? 'none' : alive.map((node) => node.nodeId).join(', ');
  const holder = alive.find((node) => node.nodeId === id);
  // The live row of this id is this machine's when the daemon listening here answers as it.
  if (holder && (await localNodeId(ctx)) !== id)
    return fail(
      `node id ${id} (SERVICE_NODE_ID) is held by a live node at ${holder.address}, not by the daemon listening here: a start here would be refused`,
      'give each node its own SERVICE_NODE_ID (the default is the host name and the HTTP port)',
    );
  if (alive.length === 0)
    return warn(
      `no node is alive in the registry (${nodes.length} registered)`,
      'start the nodes (systemctl start meet)',
    );
  return ok(
    `${alive.length} node${alive.length === 1 ? '' : 's'} alive: ${names}; this node ${id} ${holder ? 'among them' : 'not running'}`,
  );
});

export const clusterClocksCheck = check('cluster-clocks', 'Cluster clocks', async (ctx) => {
  const read = await registry(ctx);
  if (!('nodes' in read)) return read;
  const { nodes } = read;
  const ahead = nodes
    .map((node) => ({ node, byMs: node.lastBeatAt.getTime() - ctx.now.getTime() }))
    .filter(({ byMs }) => byMs > skewMs);
  if (ahead.length > 0)
    return warn(
      ahead
        .map(
          ({ node, byMs }) =>
            `node ${node.nodeId}'s last beat is ${(byMs / 1000).toFixed(1)} s ahead of this machine's clock`,
        )
        .join('; '),
      "clock skew: a node's liveness is judged by each reader's clock; keep every node's clock in sync (timedatectl set-ntp true)",
    );
  return ok(`no node's last beat lies ahead of this machine's clock (${nodes.length} registered)`);
});
