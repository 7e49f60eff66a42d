import type { Sql } from '../../platform/postgres.js';
import { nodeLockSpace } from './node-liveness.js';

/**
 * A node's session advisory lock (issue 35 stage 2), held on a connection of its own: PostgreSQL
 * frees it the moment that connection ends, so the readers of the registry (node-liveness.ts)
 * see a killed node dead at once instead of after its beats' timeout. `sql` is a client of one
 * connection given to this lock alone, without a maximum lifetime (a recycled connection would
 * free the lock of a live node).
 */
export class PostgresNodeLock {
  private constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
  ) {}

  /** Takes the lock and marks the node's row as holding one; false when another session holds it. */
  static async take(sql: Sql, nodeId: string): Promise<PostgresNodeLock | null> {
    const lock = new PostgresNodeLock(sql, nodeId);
    if (!(await lock.hold())) return null;
    await sql`UPDATE nodes SET lock_key = hashtext(${nodeId}) WHERE node_id = ${nodeId}`;
    return lock;
  }

  /**
   * Holds the lock: true when this session holds it (taking it again after the connection was
   * lost and made anew, as the client does by itself), false when another session took it.
   */
  async hold(): Promise<boolean> {
    const [row] = await this.sql<{ held: boolean }[]>`
      SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'
          AND classid = ${nodeLockSpace}::oid AND objid = hashtext(${this.nodeId})::oid AND objsubid = 2)
        THEN true ELSE pg_try_advisory_lock(${nodeLockSpace}, hashtext(${this.nodeId})) END AS held`;
    return row?.held === true;
  }

  /** A clean stop: frees the lock (ending the connection would too). */
  async release(): Promise<void> {
    await this.sql`SELECT pg_advisory_unlock(${nodeLockSpace}, hashtext(${this.nodeId}))`;
  }
}
