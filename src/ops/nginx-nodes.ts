// Issue 35 point 3, nginx in front of a cluster: `meetctl nginx --nodes host:port,…`. Room
// addresses are hashed by room id onto the nodes (consistent hashing: a node added or removed
// moves only its share of the rooms), so most of a room's traffic reaches a likely owner at once;
// a wrong guess costs one hop, since any node forwards a room's request to its owner. Every
// other address goes round-robin. Each node is validated here before it reaches the file.
import { isIP } from 'node:net';
import { NginxInputError } from './nginx-input-error.js';

/** More nodes than this is a typing mistake, not a cluster this service runs. */
export const maxNodes = 64;

/** One node's listener as nginx's `server` takes it: `host:port`, `[v6]:port`. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

export const serverOf = (node: NodeAddress): string =>
  `${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`;

const dnsLabel = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** A host nginx can resolve or connect to: a DNS name, an IPv4 or a bracketed IPv6 literal; lower-cased, IPv6 compressed. */
function hostOf(raw: string, where: string, item: string): string {
  const bracketed = /^\[(.*)\]$/.exec(raw);
  if (bracketed) {
    if (isIP(bracketed[1]!) !== 6)
      throw new NginxInputError(where, `has ${JSON.stringify(item)}: ${JSON.stringify(raw)} is not an IPv6 address`);
    // The URL parser's canonical form, so [::0001] and [::1] are found to be one node.
    return new URL(`http://[${bracketed[1]}]/`).hostname.slice(1, -1);
  }
  if (raw.includes(':'))
    throw new NginxInputError(
      where,
      `has ${JSON.stringify(item)}: write an IPv6 address in brackets, as [2001:db8::1]:3000`,
    );
  // Dotted digits are an IPv4 address or nothing: 300.1.1.1 is no host name.
  if (/^[\d.]+$/.test(raw)) {
    if (isIP(raw) !== 4) throw new NginxInputError(where, `has ${JSON.stringify(item)}: ${raw} is not an IPv4 address`);
    return raw;
  }
  const bare = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (bare.length === 0 || bare.length > 253 || !bare.split('.').every((label) => dnsLabel.test(label)))
    throw new NginxInputError(
      where,
      `has ${JSON.stringify(item)}: a host must be a name (letters, digits, hyphens and dots), an IPv4 address or [IPv6]`,
    );
  return bare.toLowerCase();
}

/**
 * `host:port,host:port,…` as the operator typed it: each node a host name, IPv4 or [IPv6] with
 * a port from 1 to 65535, no node twice, at most `maxNodes`. Errors name `flag` and the node.
 */
export function parseNodes(value: string, flag: string): NodeAddress[] {
  const items = value.split(',').map((item) => item.trim());
  if (value.trim() === '') throw new NginxInputError(flag, 'is empty: name the nodes as host:port,host:port');
  if (items.length > maxNodes)
    throw new NginxInputError(flag, `names ${items.length} nodes; at most ${maxNodes} are accepted`);
  const seen = new Map<string, number>();
  return items.map((item, index) => {
    const where = `${flag} (node ${index + 1})`;
    if (item === '') throw new NginxInputError(where, 'is empty: remove the extra comma');
    // Printable ASCII only: what could end an nginx word (spaces, ;, braces, quotes) fails below anyway.
    if (/[^\x21-\x7e]/.test(item))
      throw new NginxInputError(where, `has ${JSON.stringify(item)}: no spaces or control characters`);
    const match = /^(.*):(\d{1,5})$/.exec(item);
    if (!match)
      throw new NginxInputError(where, `has ${JSON.stringify(item)}: write HOST:PORT, such as 10.0.0.11:3000`);
    const port = Number(match[2]);
    if (port < 1 || port > 65535)
      throw new NginxInputError(where, `has ${JSON.stringify(item)}: the port must be from 1 to 65535`);
    const node = { host: hostOf(match[1]!, where, item), port };
    const key = serverOf(node);
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw new NginxInputError(where, `repeats node ${earlier + 1} (${key}): name each node once`);
    seen.set(key, index);
    return node;
  });
}

/**
 * The compat listeners behind the nodes: `--compat-nodes` when given, else each node's host
 * with the compat port of this configuration (the nodes are installed alike). Two nodes on one
 * host then need --compat-nodes: their compat listeners cannot share one port.
 */
export function compatNodesOf(nodes: readonly NodeAddress[], compatPort: number, given: string | null): NodeAddress[] {
  if (given !== null) return parseNodes(given, '--compat-nodes');
  if (compatPort === 0)
    throw new NginxInputError('COMPAT_HTTP_ADDR', 'has port 0 (any free port): pass --compat-nodes host:port,…');
  const hosts = new Set<string>();
  return nodes.map((node) => {
    if (hosts.has(node.host))
      throw new NginxInputError(
        '--nodes',
        `has two nodes on ${node.host}: their compat listeners cannot share port ${compatPort}; pass --compat-nodes host:port,…`,
      );
    hosts.add(node.host);
    return { host: node.host, port: compatPort };
  });
}

export interface ClusterUpstreams {
  readonly nodes: readonly NodeAddress[];
  readonly compatNodes: readonly NodeAddress[];
}

const servers = (nodes: readonly NodeAddress[]) => nodes.map((node) => `    server ${serverOf(node)};`);

/** The site's header lines about where it proxies to, for a cluster (the one-node lines stay in nginx-config.ts). */
export function clusterNotes(cluster: ClusterUpstreams, trusted: string): string {
  const list = (nodes: readonly NodeAddress[]) => nodes.map(serverOf).join(', ');
  return [
    `# Upstreams: a cluster of ${cluster.nodes.length} nodes (meetctl nginx --nodes):`,
    `#   engine listeners  -> ${list(cluster.nodes)}`,
    `#   compat listeners  -> ${list(cluster.compatNodes)}`,
    '# nginx connects to each node from its own address on the way there. Every node believes',
    `# X-Forwarded-For only from its SERVICE_TRUSTED_PROXIES (here: ${trusted}), which must`,
    '# cover that address, or every',
  ].join('\n');
}

/**
 * The upstream blocks of a cluster. Room addresses (`/room/{id}`, everything under it, the live
 * socket, and the rooms API's `/api/rooms/{id}…`) go by the room id from the path; a sub-group's
 * id hashes as itself (the node it reaches forwards it to its main room's owner).
 */
export function clusterUpstreams(cluster: ClusterUpstreams): string {
  return [
    '# A room address goes to the node its room id hashes to (consistent: a node added or removed moves',
    "# only its share of the rooms), most often the room's owner; another node forwards it there.",
    'map $uri $meet_room_key {',
    "    default '';",
    '    ~^/room/([^/]+) $1;',
    '    ~^/api/rooms/([^/]+) $1;',
    '}',
    'upstream meet_rooms {',
    '    hash $meet_room_key consistent;',
    ...servers(cluster.nodes),
    '    keepalive 32;',
    '}',
    '# Every other address of the engine listeners, and the compat listeners: round-robin.',
    'upstream meet_engine {',
    ...servers(cluster.nodes),
    '    keepalive 32;',
    '}',
    'upstream meet_compat {',
    ...servers(cluster.compatNodes),
    '    keepalive 16;',
    '}',
  ].join('\n');
}

/** The locations a cluster adds: room addresses the knock and live locations do not already take. */
export const clusterRoomLocations = [
  '',
  "    # The rest of the room addresses and the rooms API's room paths, by room id like the two above",
  '    # (regular expressions: a prefix location ending in / would answer /api/rooms itself with a 301).',
  '    location ~ ^/room/[^/]+ { proxy_pass http://meet_rooms; }',
  '    location ~ ^/api/rooms/[^/]+ { proxy_pass http://meet_rooms; }',
  '',
].join('\n');
