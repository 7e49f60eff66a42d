// Issue 35 point 3: the site `meetctl nginx --nodes` renders, in a real nginx (unprivileged, its
// own prefix) in front of three tiny HTTP servers on loopback ports that answer which one they
// are. A room's addresses (its page, knock, waiting, the live upgrade, the rooms API's room paths)
// always reach the one server its id hashes to; every other address goes round-robin, and the
// compat paths round-robin over the compat listeners.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import type { Tap } from '../../helpers/api.js';
import { runCli } from '../../helpers/cli.js';
import { freePort, siteInNginx } from '../../helpers/nginx.js';

/** A server that answers every request, and every upgrade, with its own name in X-Echo. */
async function echoServer(t: Tap, name: string): Promise<number> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'x-echo': name, 'content-type': 'text/plain' });
      res.end(`${name} ${req.url}\n`);
    });
  });
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) => {
    socket.end(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Echo: ${name}\r\n\r\n`,
    );
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return port;
}

/** Which server answered `path` through nginx (a WebSocket upgrade when `upgrade`). */
function whoAnswers(base: string, path: string, method = 'GET', upgrade = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      agent: false,
      headers: upgrade
        ? {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          }
        : {},
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(String(res.headers['x-echo']));
    });
    req.on('response', (res) => {
      res.resume();
      if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
      else resolve(String(res.headers['x-echo']));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

t.setTimeout(120_000);

t.test('nginx in front of three nodes: a room on one node, the rest spread', async (t) => {
  const engines = [await echoServer(t, 'a'), await echoServer(t, 'b'), await echoServer(t, 'c')];
  const compats = [await echoServer(t, 'compat-a'), await echoServer(t, 'compat-b'), await echoServer(t, 'compat-c')];
  const list = (ports: number[]) => ports.map((port) => `127.0.0.1:${port}`).join(',');
  const { nginx, url } = await siteInNginx(t, { engine: '127.0.0.1:3000', compat: '127.0.0.1:8088' }, () => [
    '--http-only',
    '--nodes',
    list(engines),
    '--compat-nodes',
    list(compats),
  ]);
  const tested = nginx.test();
  t.ok(tested.ok, `nginx -t accepts the site: ${tested.output}`);

  const owners = new Map<string, string>();
  for (let i = 0; i < 24; i++) {
    const room = `room-${i}`;
    const answers = [];
    // Each address twice, so "always" is seen, not assumed.
    for (let round = 0; round < 2; round++) {
      answers.push(
        await whoAnswers(url, `/room/${room}`),
        await whoAnswers(url, `/room/${room}/knock`, 'POST'),
        await whoAnswers(url, `/room/${room}/waiting`),
        await whoAnswers(url, `/room/${room}/waiting-list`),
        await whoAnswers(url, `/room/${room}/live`, 'GET', true),
        await whoAnswers(url, `/api/rooms/${room}`),
        await whoAnswers(url, `/api/rooms/${room}/waiting/admit-all`, 'POST'),
      );
    }
    t.same(new Set(answers).size, 1, `${room}: every address on one server (${answers.join(' ')})`);
    owners.set(room, answers[0]!);
  }
  const used = new Set(owners.values());
  t.ok(used.size >= 2, `the rooms are spread over the nodes (${[...used].join(', ')})`);
  t.ok(
    [...used].every((name) => ['a', 'b', 'c'].includes(name)),
    'rooms go to engine listeners only',
  );

  const others = [];
  // POST /api/rooms makes a room: round-robin, never nginx's 301 of a prefix location.
  const paths = ['/assets/page.js', '/api/rooms', '/healthz', '/room', '/api/rooms?limit=5', '/'];
  for (const [i, path] of paths.entries()) others.push(await whoAnswers(url, path, i === 1 ? 'POST' : 'GET'));
  t.same(new Set(others), new Set(['a', 'b', 'c']), `other addresses round-robin over the three (${others.join(' ')})`);
  const compat = [];
  for (let i = 0; i < 6; i++) compat.push(await whoAnswers(url, '/confapi/api/getMeetings'));
  t.same(
    new Set(compat),
    new Set(['compat-a', 'compat-b', 'compat-c']),
    `the meeting API round-robin over the compat listeners (${compat.join(' ')})`,
  );
});

t.test('meetctl nginx refuses bad nodes with the flag and the node named, writing nothing', async (t) => {
  const site = ['nginx', '--server-name', 'meet.test', '--http-only', '--compat-http-addr', '127.0.0.1:8088'];
  for (const [args, code, words] of [
    [['--nodes', '10.0.0.1:3000,10.0.0.1:3000'], 2, /--nodes \(node 2\) repeats node 1 \(10\.0\.0\.1:3000\)/],
    [['--nodes', '10.0.0.1:70000'], 2, /--nodes \(node 1\) has "10\.0\.0\.1:70000": the port must be from 1 to 65535/],
    [['--nodes', 'a;b:1'], 2, /--nodes \(node 1\) has "a;b:1"/],
    [['--nodes', '127.0.0.1:3001,127.0.0.1:3002'], 2, /--nodes has two nodes on 127\.0\.0\.1.*--compat-nodes/],
    [['--nodes', '10.0.0.1:3000', '--compat-nodes', '10.0.0.1:x'], 2, /--compat-nodes \(node 1\)/],
    [['--compat-nodes', '10.0.0.1:8088'], 64, /--compat-nodes only applies with --nodes/],
  ] as const) {
    const run = await runCli([...site, ...args]);
    t.equal(run.code, code, `${args.join(' ')}: exit ${code}`);
    t.match(run.stderr, words, run.stderr);
    t.equal(run.stdout, '', 'no site printed');
  }
});
