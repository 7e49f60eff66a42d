/**
 * The store's unit of work, as the engine sees it: the writes made inside `work` reach the
 * store together, durably, or not at all. A `run` inside another is part of it (SQLite makes
 * it a savepoint: a failure the caller catches takes back only the inner writes).
 *
 * The port is the seam a second store plugs into. SQLite commits in the calling thread, so its
 * adapter is `UnitOfWork<'sync'>`: `run` returns the work's value once COMMIT returned. A store
 * reached over a connection (PostgreSQL) commits asynchronously: its adapter is
 * `UnitOfWork<'async'>`, its work awaits the writes and `run` resolves once COMMIT returned.
 * The engine takes the synchronous flavour today (its services answer in the same turn); moving
 * it to the asynchronous one changes the services' signatures, not this port.
 */
export type CommitMode = 'sync' | 'async';

/** What a unit of work gives back: the value itself, or a promise of it for an asynchronous store. */
export type Committed<T, Mode extends CommitMode> = Mode extends 'sync' ? T : Promise<T>;

/**
 * A commit whose wait for the disk happens off the event loop: when it is returned the writes
 * are committed (every later transaction sees them and comes after them), and `durable`
 * resolves once they would survive a power cut, as `run`'s commit would (it rejects when the
 * disk refused the sync).
 */
export interface SyncedLater<T> {
  readonly value: T;
  readonly durable: Promise<void>;
}

export interface UnitOfWork<Mode extends CommitMode = 'sync'> {
  run<T>(work: () => Committed<T, Mode>): Committed<T, Mode>;
  /**
   * Optional: `run`, with the commit's sync to disk done off the event loop (SQLite: the WAL's
   * fdatasync on libuv's thread pool). The group commit uses it; a store without it is `run`
   * (PostgreSQL: its COMMIT returns once durable, and waiting for it does not block the loop).
   */
  runSyncedLater?<T>(work: () => Committed<T, Mode>): Committed<SyncedLater<T>, Mode>;
}
