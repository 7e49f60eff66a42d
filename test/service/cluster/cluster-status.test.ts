// Issue 35 point 7: `meetctl cluster status` shows, per node, the rooms whose lease it holds
// unexpired (meet_engine.room_leases), beside liveness and the beat's load, and the Janus servers
// meetings are placed on (load, up or down since when); --json the same. One fresh PostgreSQL
// database; the nodes are rows of the registry, their claims and placements real ones.
import type { Test } from 'tap';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../../src/platform/postgres.js';
import { PostgresMediaServerStore } from '../../../src/store/postgres/media-server-store.js';
import { PostgresNodeRegistry } from '../../../src/store/postgres/node-registry.js';
import { PostgresLeaseStore } from '../../../src/store/postgres/room-leases.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { runCli } from '../../helpers/cli.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

async function database(t: Test): Promise<{ sql: Sql; url: string }> {
  const db = await freshDatabase(t);
  const target = { ...db.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const sql = openPostgres(target, { max: 2, statementTimeoutMs: 5000, schema: engineSchema });
  t.teardown(() => sql.end({ timeout: 5 }));
  await migratePostgres(sql, engineSchema, engineMigrationSteps());
  return { sql, url: db.url };
}

postgresTest('cluster status: rooms owned per node, in the table and in --json', async (t) => {
  const { sql, url } = await database(t);
  const registry = new PostgresNodeRegistry(sql);
  const leases = new PostgresLeaseStore(sql);
  const now = new Date();
  const since = new Date(now.getTime() - aliveWithinMs);
  const load = { openRooms: 3, liveSockets: 7 };
  for (const nodeId of ['web-a', 'web-b', 'web-c'])
    await registry.register(
      { nodeId, incarnation: `${nodeId}-1`, httpAddress: `http://${nodeId}:3000`, startedAt: now, load },
      since,
    );
  for (let i = 1; i <= 5; i++)
    await sql`INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at)
      VALUES (${`room-${i}`}, 'Room', 'off', 'approval', 600, ${now}, ${now})`;
  for (const [roomId, nodeId] of [
    ['room-1', 'web-a'],
    ['room-2', 'web-a'],
    ['room-3', 'web-a'],
    ['room-4', 'web-b'],
    ['room-5', 'web-c'],
  ] as const)
    t.ok((await leases.claim(roomId, nodeId, now, since)).won, `${nodeId} holds ${roomId}`);
  // web-c stopped cleanly: its lease released (expired now), so it owns nothing.
  await leases.release('web-c', [{ roomId: 'room-5', epoch: 1 }], now);
  await registry.markGone('web-c', 'web-c-1', now);

  const json = await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: url });
  t.equal(json.code, 0, json.stderr);
  t.match(JSON.parse(json.stdout), {
    nodes: [
      { node_id: 'web-a', state: 'alive', rooms_owned: 3, open_rooms: 3, live_sockets: 7 },
      { node_id: 'web-b', state: 'alive', rooms_owned: 1 },
      { node_id: 'web-c', state: 'gone', rooms_owned: 0 },
    ],
  });
  const text = await runCli(['cluster', 'status'], { SERVICE_DATABASE_URL: url });
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^NODE\s+ADDRESS\s+STATE\s+LAST BEAT\s+ROOMS OWNED\s+OPEN ROOMS\s+LIVE SOCKETS\n/);
  t.match(text.stdout, /\nweb-a\s+http:\/\/web-a:3000\s+alive\s+\S+\s+3\s+3\s+7\n/);
  t.match(text.stdout, /\nweb-b\s+http:\/\/web-b:3000\s+alive\s+\S+\s+1\s+3\s+7\n/);
  t.match(text.stdout, /\nweb-c\s+http:\/\/web-c:3000\s+gone\s+\S+\s+0\s+3\s+7\n/);
  t.match(text.stdout, /\nJANUS: none listed/, 'no Janus server registered: said so, not an empty table');
});

postgresTest('cluster status: the Janus servers with their load, up or down since when', async (t) => {
  const { sql, url } = await database(t);
  const janus = new PostgresMediaServerStore(sql);
  const [a, b, c] = ['http://janus-a:8088/janus', 'http://janus-b:8088/janus', 'https://janus-c.example.org/janus'];
  await janus.register([a, b, c]);
  for (const [meetingId, server] of [
    ['m-1', a],
    ['m-2', a],
    ['m-3', b],
  ] as const)
    t.equal(await janus.place(meetingId, () => server, null), server, `${meetingId} placed on ${server}`);
  const died = new Date('2026-11-29T07:30:00.000Z');
  await janus.setDown(b, died);

  const json = await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: url });
  t.equal(json.code, 0, json.stderr);
  t.same((JSON.parse(json.stdout) as { janus_servers: unknown }).janus_servers, [
    { url: a, load: 2, state: 'up', down_since: null },
    { url: b, load: 1, state: 'down', down_since: died.toISOString() },
    { url: c, load: 0, state: 'up', down_since: null },
  ]);
  const text = await runCli(['cluster', 'status'], { SERVICE_DATABASE_URL: url });
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /\n\nJANUS\s+LOAD\s+STATE\n/, 'a second table after the nodes');
  t.match(text.stdout, /\nhttp:\/\/janus-a:8088\/janus\s+2\s+up\n/);
  t.match(text.stdout, /\nhttp:\/\/janus-b:8088\/janus\s+1\s+down since 2026-11-29T07:30:00\.000Z\n/);
  t.match(text.stdout, /\nhttps:\/\/janus-c\.example\.org\/janus\s+0\s+up\n/);
});

postgresTest('cluster status: a Janus row with a user, password or query shows the address alone', async (t) => {
  // SERVICE_JANUS_URLS refuses them today; a row written otherwise must still not print a secret.
  const { sql, url } = await database(t);
  await sql`INSERT INTO janus_servers (url) VALUES ('http://admin:s3cret@janus-d:8088/janus?apisecret=t0ken#x')`;
  const json = await runCli(['cluster', 'status', '--json'], { SERVICE_DATABASE_URL: url });
  t.equal(json.code, 0, json.stderr);
  t.same((JSON.parse(json.stdout) as { janus_servers: unknown }).janus_servers, [
    { url: 'http://janus-d:8088/janus', load: 0, state: 'up', down_since: null },
  ]);
  const text = await runCli(['cluster', 'status'], { SERVICE_DATABASE_URL: url });
  t.notMatch(text.stdout, /s3cret|t0ken|admin/);
  t.match(text.stdout, /\nhttp:\/\/janus-d:8088\/janus\s+0\s+up\n/);
});
