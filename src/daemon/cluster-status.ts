// `meetctl cluster status` (issue 35 point 7): the nodes of the cluster as the registry in
// PostgreSQL holds them, each alive or gone in this machine's view (the same rule /readyz uses),
// with the rooms whose lease each holds unexpired.
import type { StoreConfig } from './store-bundle.js';
import { openStoreBundle } from './store-bundle.js';
import { isAlive } from '../engine/cluster/nodes.js';
import { openPostgres } from '../platform/postgres.js';
import { PostgresNodeRegistry } from '../store/postgres/node-registry.js';
import { engineSchema } from '../store/postgres/schema.js';

export interface NodeLine {
  readonly node_id: string;
  readonly address: string;
  readonly state: 'alive' | 'gone';
  readonly started_at: string;
  readonly last_beat_at: string;
  /** Room leases the node holds unexpired now (meet_engine.room_leases): the rooms it serves. */
  readonly rooms_owned: number;
  /** From its last beat: meetings open in its memory, and its live sockets. */
  readonly open_rooms: number;
  readonly live_sockets: number;
}

/** A Janus server of the cluster (point 6) as the store holds it: its address, load and state. */
export interface JanusLine {
  readonly url: string;
  /** The meetings placed on it and not yet released. */
  readonly load: number;
  readonly state: 'up' | 'down';
  /** Since when it counts as dead; null while it is up. */
  readonly down_since: string | null;
}

/** What the command shows: the nodes, then the Janus servers meetings are placed on. */
export interface ClusterStatus {
  readonly nodes: readonly NodeLine[];
  readonly janus_servers: readonly JanusLine[];
}

/**
 * A Janus address as shown: scheme, host, port and path only. SERVICE_JANUS_URLS refuses a
 * user, password or query, but the rows outlive the configuration that wrote them, so the
 * status never prints anything a URL could carry beyond its address.
 */
export function shownJanusUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** The registry's nodes by id; null when the store is SQLite (one node, no registry). */
export async function clusterStatus(config: StoreConfig, now: Date = new Date()): Promise<ClusterStatus | null> {
  if (config.databaseUrl.kind !== 'postgres') return null;
  const bundle = await openStoreBundle(config);
  try {
    const nodes = (await bundle.nodes?.list()) ?? [];
    const owned = (await bundle.cluster?.leases.heldPerNode(now)) ?? new Map<string, number>();
    const janus = await bundle.mediaServers.servers();
    return {
      nodes: nodes.map((node) => ({
        node_id: node.nodeId,
        address: node.httpAddress,
        state: isAlive(node, now) ? 'alive' : 'gone',
        started_at: node.startedAt.toISOString(),
        last_beat_at: node.lastBeatAt.toISOString(),
        rooms_owned: owned.get(node.nodeId) ?? 0,
        open_rooms: node.load.openRooms,
        live_sockets: node.load.liveSockets,
      })),
      janus_servers: janus.map((server) => ({
        url: shownJanusUrl(server.url),
        load: server.load,
        state: server.downSince === null ? 'up' : 'down',
        down_since: server.downSince?.toISOString() ?? null,
      })),
    };
  } finally {
    await bundle.close();
  }
}

/** PostgreSQL's codes for a table or schema that is not there: the registry was never migrated. */
const missing = new Set(['42P01', '3F000']);

/**
 * The registry as `meetctl doctor` sees it: read without migrating anything (doctor changes
 * nothing), on one connection; each node alive or not by this machine's clock and its lock.
 */
export async function registryView(
  config: Pick<StoreConfig, 'databaseUrl' | 'databaseStatementTimeoutMs'>,
  now: Date,
): Promise<
  { nodeId: string; address: string; alive: boolean; lastBeatAt: Date }[] | 'no-registry' | { unavailable: string }
> {
  if (config.databaseUrl.kind !== 'postgres') return { unavailable: 'the store is SQLite' };
  const sql = openPostgres(config.databaseUrl, {
    max: 1,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    schema: engineSchema,
  });
  try {
    const nodes = await new PostgresNodeRegistry(sql).list();
    return nodes.map((node) => ({
      nodeId: node.nodeId,
      address: node.httpAddress,
      alive: isAlive(node, now),
      lastBeatAt: node.lastBeatAt,
    }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== undefined && missing.has(code)) return 'no-registry';
    return { unavailable: `${(err as Error).message}${code === undefined ? '' : ` (${code})`}` };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
