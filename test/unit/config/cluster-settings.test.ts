// Issue 35 point 1: SERVICE_NATS_URL makes the daemon a node of a cluster (only on PostgreSQL, the
// store the nodes share) and SERVICE_NODE_ID names it; malformed values stop the start naming the
// variable, and with neither set the configuration is today's single node.
import { hostname } from 'node:os';
import t from 'tap';
import { loadEnv as load, refusal } from '../../helpers/config-refusal.js';

const postgres = 'postgres://meet@db.example.org:5432/meet';

t.test('unset: no NATS, and a node id of the host name and the HTTP port', async (t) => {
  const config = load({ SERVICE_HTTP_ADDR: '127.0.0.1:3456' });
  t.equal(config.natsUrl, null);
  t.equal(
    config.nodeId,
    `${hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 56)}-3456`,
  );
});

t.test('nats://host:port on PostgreSQL, the port 4222 when left out, IPv6 in brackets', async (t) => {
  t.same(load({ SERVICE_NATS_URL: 'nats://10.0.0.7:4333', SERVICE_DATABASE_URL: postgres }).natsUrl, {
    host: '10.0.0.7',
    port: 4333,
    url: 'nats://10.0.0.7:4333',
  });
  t.same(load({ SERVICE_NATS_URL: 'nats://bus.example.org', SERVICE_DATABASE_URL: postgres }).natsUrl, {
    host: 'bus.example.org',
    port: 4222,
    url: 'nats://bus.example.org:4222',
  });
  t.match(load({ SERVICE_NATS_URL: 'nats://[::1]:5000', SERVICE_DATABASE_URL: postgres }).natsUrl, {
    host: '::1',
    port: 5000,
  });
  t.equal(load({ SERVICE_NODE_ID: 'web-1.a_b' }).nodeId, 'web-1.a_b');
});

t.test('a malformed NATS URL is refused naming the variable', async (t) => {
  for (const bad of [
    'http://10.0.0.7:4222',
    'nats://user:secret@10.0.0.7:4222',
    'nats://10.0.0.7:99999',
    'nats://10.0.0.7:0',
    'nats://10.0.0.7:4222/path?x=1',
    'nats://',
    '10.0.0.7:4222',
  ]) {
    const message = refusal(t, { SERVICE_NATS_URL: bad, SERVICE_DATABASE_URL: postgres });
    t.match(message, /^SERVICE_NATS_URL must be nats:\/\/host:port/, bad);
    t.notMatch(message, /secret/, 'a would-be password is never echoed back in the first line');
  }
});

t.test('NATS without PostgreSQL is refused: a cluster needs the shared store', async (t) => {
  for (const env of <Record<string, string>[]>[
    { SERVICE_NATS_URL: 'nats://127.0.0.1:4222' },
    { SERVICE_NATS_URL: 'nats://127.0.0.1:4222', SERVICE_DATABASE_URL: 'sqlite:' },
  ]) {
    t.match(refusal(t, env), /SERVICE_NATS_URL needs a PostgreSQL SERVICE_DATABASE_URL/);
  }
});

t.test('a node id outside 1-64 of A-Z a-z 0-9 . _ - is refused naming the variable', async (t) => {
  for (const bad of ['web 1', 'x'.repeat(65), 'wéb', 'web/1', 'a:3000', '<script>']) {
    t.match(refusal(t, { SERVICE_NODE_ID: bad }), /^SERVICE_NODE_ID must be 1 to 64 of the characters/, bad);
  }
  t.equal(load({ SERVICE_NODE_ID: 'x'.repeat(64) }).nodeId, 'x'.repeat(64));
});
