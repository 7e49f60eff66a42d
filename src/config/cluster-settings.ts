// Issue 35, the nodes of a cluster: SERVICE_NATS_URL makes this daemon one node among those that
// share its PostgreSQL database; SERVICE_NODE_ID names it. Kept apart from settings.ts (which
// spreads these rows in, checking their shape) so the one table stays under the house's file size.
import { hostname } from 'node:os';
import type { DatabaseLocation } from './database-url.js';
import { InvalidValue, type ListenAddress } from './parsers.js';

export interface NatsLocation {
  readonly host: string;
  readonly port: number;
  /** nats://host:port, as the client takes it (no credentials: none are read in this release). */
  readonly url: string;
}

const defaultNatsPort = 4222;

/** nats://host[:port]: a host name, IPv4 or [IPv6], no user, password, path or query. */
function natsUrl(raw: unknown): NatsLocation {
  const value = typeof raw === 'string' ? raw.trim() : '';
  const shape = 'must be nats://host:port, such as nats://127.0.0.1:4222';
  // A password in the URL would show in every printed configuration: refused without echoing it.
  if (value.includes('@')) throw new InvalidValue(`${shape}, with no user or password in it`);
  const match = /^nats:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/.exec(value);
  const port = match?.[2] === undefined ? defaultNatsPort : Number(match[2]);
  if (!match || port < 1 || port > 65535) throw new InvalidValue(`${shape} (got ${JSON.stringify(raw)})`);
  const host = match[1]!;
  return Object.freeze({ host: host.replace(/^\[(.*)\]$/, '$1'), port, url: `nats://${host}:${port}` });
}

const nodeIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/** A node's name: in headers, logs and the registry's key, so plain characters only. */
function nodeId(raw: unknown): string {
  const value = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  if (!nodeIdPattern.test(value))
    throw new InvalidValue(`must be 1 to 64 of the characters A-Z a-z 0-9 . _ - (got ${JSON.stringify(raw)})`);
  return value;
}

/** The default node id: this machine's name and the engine listener's port, so two daemons of one host differ. */
function defaultNodeId(resolved: { readonly httpAddr?: ListenAddress }): string {
  const host = hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 56);
  const addr = resolved.httpAddr;
  return `${host}-${addr?.port ?? 3000}`;
}

export const clusterSettings = {
  natsUrl: {
    env: 'SERVICE_NATS_URL',
    toml: ['service', 'nats_url'],
    flag: '--nats-url',
    secret: false,
    fallback: null,
    parse: natsUrl,
    shownDefault: 'unset (one node, no cluster)',
    description:
      'NATS (nats://host:port) that the nodes of a cluster talk over; setting it makes this daemon a node of the cluster of every daemon on the same PostgreSQL SERVICE_DATABASE_URL (required: SQLite is refused). Unset: one node, as before',
  },
  nodeId: {
    env: 'SERVICE_NODE_ID',
    toml: ['service', 'node_id'],
    flag: '--node-id',
    secret: false,
    fallback: defaultNodeId,
    parse: nodeId,
    shownDefault: 'the host name and the HTTP port, such as web1-3000',
    description:
      "This node's name in a cluster (1 to 64 of A-Z a-z 0-9 . _ -): the X-Meet-Node header, /readyz and meetctl cluster status show it; two live nodes with one name are refused",
  },
};

/** A cluster shares its state through PostgreSQL: NATS beside SQLite would be nodes that cannot see each other. */
export function clusterProblems(nats: NatsLocation | null, database: DatabaseLocation | undefined): string[] {
  if (nats === null || database === undefined || database.kind === 'postgres') return [];
  return [
    'SERVICE_NATS_URL needs a PostgreSQL SERVICE_DATABASE_URL (postgres://…): the nodes of a cluster share one database; unset SERVICE_NATS_URL to run one node on SQLite',
  ];
}
