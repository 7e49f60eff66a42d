// Issue 35 point 4: an owner frozen (SIGSTOP) inside a transaction of its room holds the lease
// row it read FOR SHARE (the epoch fence) for as long as it is frozen, and no other node could
// claim the room: the claim would wait until its statement timeout, and the page's reconnection
// that needed the claim would get a 500. A clustered node's sessions carry
// idle_in_transaction_session_timeout (aliveWithinMs), so the server ends the frozen session and
// the claim goes through. Both halves on a real PostgreSQL.
import type { Test } from 'tap';
import { leaseMs } from '../../../src/engine/cluster/leases.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { openPostgres, type Sql } from '../../../src/platform/postgres.js';
import { PostgresLeaseStore } from '../../../src/store/postgres/room-leases.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

async function frozenOwner(t: Test, idleInTransactionMs: number | undefined) {
  const database = await freshDatabase(t);
  const target = { ...database.options, sslmode: 'disable' as const, passfile: null, applicationName: 'meet-test' };
  const pool = (options: { statementTimeoutMs: number; idleInTransactionMs?: number }): Sql => {
    const sql = openPostgres(target, { max: 1, schema: engineSchema, ...options });
    t.teardown(() => sql.end({ timeout: 1 }).catch(() => undefined));
    return sql;
  };
  const other = pool({ statementTimeoutMs: 1500 });
  await migratePostgres(other, engineSchema, engineMigrationSteps());
  await other`INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at)
    VALUES ('r1', 'Room', 'off', 'approval', 600, '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')`;
  const leases = new PostgresLeaseStore(other);
  const start = new Date();
  t.match(await leases.claim('r1', 'node-a', start, start), { won: true, lease: { epoch: 1 } });
  // node-a's unit reads the lease FOR SHARE (the fence), then its process stops.
  const owner = pool({ statementTimeoutMs: 5000, ...(idleInTransactionMs ? { idleInTransactionMs } : {}) });
  const session = await owner.reserve();
  await session`BEGIN`;
  await session`SELECT epoch FROM room_leases WHERE room_id = 'r1' FOR SHARE`;
  const later = new Date(start.getTime() + leaseMs + 1);
  return { claim: () => leases.claim('r1', 'node-b', later, later) };
}

postgresTest('a frozen owner in a transaction: the server ends its session, and the room can be claimed', async (t) => {
  const { claim } = await frozenOwner(t, 300);
  await new Promise((resolve) => setTimeout(resolve, 600));
  t.match(await claim(), { won: true, lease: { ownerNode: 'node-b', epoch: 2 } }, 'node-b takes the room');
});

postgresTest('without the bound the claim waits for the frozen owner until its own timeout', async (t) => {
  const { claim } = await frozenOwner(t, undefined);
  await t.rejects(claim(), /statement timeout/, 'the hazard the bound removes');
});
