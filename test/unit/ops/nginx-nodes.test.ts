// Issue 35 point 3: `meetctl nginx --nodes` renders a cluster's upstreams (room addresses by room
// id, the rest round-robin); without --nodes the site is byte for byte what it was before.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadTemplate, renderNginxSite, type NginxSite } from '../../../src/ops/nginx-config.js';
import { NginxInputError } from '../../../src/ops/nginx-input-error.js';
import { compatNodesOf, maxNodes, parseNodes } from '../../../src/ops/nginx-nodes.js';

const golden = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

const base = {
  serverName: 'meet.example.org',
  engineAddr: { host: '0.0.0.0', port: 3000 },
  compatAddr: { host: '127.0.0.1', port: 8088 },
  trustedProxies: ['127.0.0.1', '::1'],
  listen: null,
  redirectListen: null,
  accessLog: '/var/log/nginx/meet.access.log',
} as const;

t.test('without --nodes: the site of one node, byte for byte as before the cluster', async (t) => {
  const tls: NginxSite = {
    ...base,
    tls: { cert: '/etc/ssl/meet/fullchain.pem', key: '/etc/ssl/meet/privkey.pem' },
    legacyApiPath: true,
  };
  t.equal(renderNginxSite(loadTemplate(), tls), golden('nginx-one-node-tls.golden.conf'), 'TLS, legacy path');
  const plain: NginxSite = { ...base, tls: null, legacyApiPath: false, listen: '127.0.0.1:8080', accessLog: null };
  t.equal(renderNginxSite(loadTemplate(), plain), golden('nginx-one-node-http.golden.conf'), 'http-only, no log');
});

const nodes = parseNodes('10.0.0.11:3000,node-b.example.org:3001,[2001:DB8::1]:3000', '--nodes');
const cluster: NginxSite = {
  ...base,
  tls: null,
  legacyApiPath: true,
  cluster: { nodes, compatNodes: compatNodesOf(nodes, 8088, null) },
};

/** The statements of the block that starts with `head` (one level of braces). */
function block(text: string, head: string): string {
  const start = text.indexOf(`${head} {`);
  if (start < 0) throw new Error(`no block ${head}`);
  return text.slice(start, text.indexOf('}', start) + 1);
}

t.test('with --nodes: room addresses by room id, consistent; everything else round-robin', async (t) => {
  const text = renderNginxSite(loadTemplate(), cluster);
  const servers = ['server 10.0.0.11:3000;', 'server node-b.example.org:3001;', 'server [2001:db8::1]:3000;'];
  const rooms = block(text, 'upstream meet_rooms');
  t.match(rooms, /^upstream meet_rooms \{\n {4}hash \$meet_room_key consistent;\n/, 'hash first (before keepalive)');
  for (const server of servers) t.ok(rooms.includes(server), `rooms: ${server}`);
  const engine = block(text, 'upstream meet_engine');
  t.notMatch(engine, /hash|ip_hash|least_conn/, 'the engine upstream is round-robin');
  for (const server of servers) t.ok(engine.includes(server), `engine: ${server}`);
  const compat = block(text, 'upstream meet_compat');
  t.notMatch(compat, /hash/, 'compat round-robin');
  for (const host of ['10.0.0.11', 'node-b.example.org', '[2001:db8::1]'])
    t.ok(compat.includes(`server ${host}:8088;`), `compat: ${host} with COMPAT_HTTP_ADDR's port`);
  const map = block(text, 'map $uri $meet_room_key');
  t.match(map, /~\^\/room\/\(\[\^\/\]\+\) \$1;/, 'the room id of /room/{id}…');
  t.match(map, /~\^\/api\/rooms\/\(\[\^\/\]\+\) \$1;/, 'and of /api/rooms/{id}…');
  t.match(
    block(text, 'location ~ ^/room/.+/(start|exists|knock|waiting)$'),
    /proxy_pass http:\/\/meet_rooms;/,
    'knock, waiting, start, exists by room',
  );
  t.match(block(text, 'location ~ ^/room/[^/]+/live$'), /proxy_pass http:\/\/meet_rooms;/, 'the live socket by room');
  t.ok(text.includes('location ~ ^/room/[^/]+ { proxy_pass http://meet_rooms; }'), 'every other /room/{id} address');
  t.ok(text.includes('location ~ ^/api/rooms/[^/]+ { proxy_pass http://meet_rooms; }'), "the rooms API's room paths");
  t.ok(text.includes('location / { proxy_pass http://meet_engine; }'), 'the rest round-robin');
  t.ok(text.includes('location ^~ /confapi/ { proxy_pass http://meet_compat; }'));
  t.notMatch(text, /127\.0\.0\.1:3000|:8088 \}/, "this machine's own listen address is not an upstream");
  t.match(text, /# Upstreams: a cluster of 3 nodes/, 'the header says it is a cluster');
});

t.test('--compat-nodes names the compat listeners; two nodes on one host need it', async (t) => {
  const two = parseNodes('127.0.0.1:3001,127.0.0.1:3002', '--nodes');
  t.throws(
    () => compatNodesOf(two, 8088, null),
    { name: 'NginxInputError', message: /^--nodes has two nodes on 127\.0\.0\.1: .*--compat-nodes/ },
    'the same host twice cannot share one compat port',
  );
  t.same(compatNodesOf(two, 8088, '127.0.0.1:8081,127.0.0.1:8082'), [
    { host: '127.0.0.1', port: 8081 },
    { host: '127.0.0.1', port: 8082 },
  ]);
  t.throws(() => compatNodesOf(two, 8088, '127.0.0.1:0'), { message: /^--compat-nodes \(node 1\)/ });
  t.throws(() => compatNodesOf(nodes, 0, null), { message: /^COMPAT_HTTP_ADDR has port 0/ });
});

t.test('each node is checked: a clear error naming the flag and the node', async (t) => {
  const refused: [string, RegExp][] = [
    ['', /^--nodes is empty/],
    ['   ', /^--nodes is empty/],
    ['10.0.0.1:3000,', /^--nodes \(node 2\) is empty/],
    ['10.0.0.1', /^--nodes \(node 1\) has "10\.0\.0\.1": write HOST:PORT/],
    ['10.0.0.1:0', /^--nodes \(node 1\) .*port must be from 1 to 65535/],
    ['10.0.0.1:65536', /port must be from 1 to 65535/],
    ['10.0.0.1:99999', /port must be from 1 to 65535/],
    ['10.0.0.1:-1', /write HOST:PORT/],
    ['10.0.0.1:30a', /write HOST:PORT/],
    ['300.0.0.1:3000', /not an IPv4 address/],
    ['1.2.3:3000', /not an IPv4 address/],
    ['::1:3000', /write an IPv6 address in brackets/],
    ['[::g]:3000', /not an IPv6 address/],
    ['[10.0.0.1]:3000', /not an IPv6 address/],
    [':3000', /a host must be a name/],
    ['-a.example:3000', /a host must be a name/],
    ['a..b:3000', /a host must be a name/],
    ['a_b:3000', /a host must be a name/],
    ['node b:3000', /no spaces or control characters/],
    ['a;b:3000', /a host must be a name/],
    ['a}b:3000', /a host must be a name/],
    ['$host:3000', /a host must be a name/],
    ['a\nb:3000', /no spaces or control characters/],
    ['ñode:3000', /no spaces or control characters/],
    [`${'a'.repeat(64)}:3000`, /a host must be a name/],
    ['10.0.0.1:3000,10.0.0.2:3000,10.0.0.1:3000', /^--nodes \(node 3\) repeats node 1 \(10\.0\.0\.1:3000\)/],
    ['[::1]:3000,[0:0::0001]:3000', /^--nodes \(node 2\) repeats node 1 \(\[::1\]:3000\)/],
    ['Node-A:3000,node-a:3000', /repeats node 1/],
    [Array.from({ length: maxNodes + 1 }, (_, i) => `10.0.${i >> 8}.${i & 255}:3000`).join(','), /at most 64/],
  ];
  for (const [value, expected] of refused) {
    const err = t.throws(() => parseNodes(value, '--nodes'), JSON.stringify(value).slice(0, 60)) as unknown;
    t.ok(err instanceof NginxInputError, 'NginxInputError');
    t.match((err as Error).message, expected, JSON.stringify(value).slice(0, 60));
  }
  t.same(
    parseNodes(' web1.example.org.:3000 , 10.0.0.2:3000,[::1]:1,[FE80::1]:65535 ', '--nodes'),
    [
      { host: 'web1.example.org', port: 3000 },
      { host: '10.0.0.2', port: 3000 },
      { host: '::1', port: 1 },
      { host: 'fe80::1', port: 65535 },
    ],
    'names, IPv4, bracketed IPv6 (canonical), spaces around commas',
  );
  t.equal(
    parseNodes(Array.from({ length: maxNodes }, (_, i) => `n${i}:3000`).join(','), '--nodes').length,
    maxNodes,
    'exactly the limit passes',
  );
});
