// Issue 35 point 7: `meetctl cluster status` shows, per node, the rooms whose lease it holds
// unexpired (meet_engine.room_leases), beside liveness and the beat's load; --json the same.
// One fresh PostgreSQL database; the nodes are rows of the registry, their claims real ones.
import type { Test } from 'tap';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../../src/platform/postgres.js';
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
});
