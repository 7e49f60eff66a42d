import type { Sql } from '../../platform/postgres.js';

/** The first key of every node's session advisory lock (the second is hashtext(node id)): issue 35. */
export const nodeLockSpace = 35;

/**
 * Whether the node row `n` is alive, the one rule of the registry's readers and the leases'
 * claims: not gone, beaten since `aliveSince`, and, when it took its session lock
 * (`lock_key` set), the lock still held by some session of this database. PostgreSQL frees a
 * session's advisory locks as soon as its connection ends, so a killed process is dead at once.
 */
export function nodeAlive(sql: Sql, aliveSince: Date) {
  return sql`(n.gone_at IS NULL AND n.last_beat_at > ${aliveSince} AND (n.lock_key IS NULL OR ${lockHeld(sql)}))`;
}

/** Whether the session lock of node row `n` is held. */
export function lockHeld(sql: Sql) {
  return sql`EXISTS (SELECT 1 FROM pg_locks k
    WHERE k.locktype = 'advisory' AND k.granted AND k.classid = ${nodeLockSpace}::oid AND k.objid = n.lock_key::oid
      AND k.objsubid = 2 AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`;
}
