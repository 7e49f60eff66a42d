import type { AsyncPort } from '../../engine/async-port.js';
import type { CallbackJob, CompatStore } from './model.js';

/**
 * The meeting API's store as an asynchronous port (issue 34 point 2): the methods of
 * `CompatStore`, each answering a promise, with two adapters: SQLite (compat/store/async-sqlite.ts,
 * today's file behind the port) and PostgreSQL (compat/store/postgres-store.ts, schema
 * meet_compat). One contract suite holds them equal (test/service/compat/contract-*.test.ts).
 * Every user of the store (CompatMeetings, the callbacks queue, the handlers, through
 * cached-store.ts) takes this port; build.ts puts SQLite's file behind it unless given a store.
 */
export type AsyncCompatStore = AsyncPort<Omit<CompatStore, 'transaction'>> & {
  /**
   * Runs `work` as one transaction: its writes commit together, durably, or not at all; a
   * `transaction` inside another is a savepoint. On PostgreSQL it is the engine's unit of work
   * when both stores share a database, so a `create` (the meeting's row and its engine room)
   * commits as one.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Takes the due callbacks (pending, `nextAt` at or before `now`), oldest due first then by id,
   * at most `limit`, and moves each one's `nextAt` to `leaseUntil`: until then no other claim
   * (another node's) takes it, and when its sender dies it is due again then (a retry). Two claims
   * at once never take the same job. Answers the jobs as claimed.
   */
  claimDueCallbacks(now: number, leaseUntil: number, limit: number): Promise<CallbackJob[]>;
};
