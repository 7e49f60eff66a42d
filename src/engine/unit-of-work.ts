/**
 * The store's unit of work, as the engine sees it: the writes made inside `work` reach the
 * store together, durably, or not at all. A `run` inside another is part of it (SQLite makes
 * it a savepoint: a failure the caller catches takes back only the inner writes).
 *
 * The port is the seam a second store plugs into. The engine takes the asynchronous flavour,
 * `UnitOfWork<'async'>` (issue 34 point 2): its work awaits the writes and `run` resolves once
 * COMMIT returned, on PostgreSQL (store/postgres/unit-of-work.ts) as on SQLite, whose commits
 * happen in the calling thread but whose units take turns on the one connection
 * (store/async-sqlite.ts). The synchronous flavour, `UnitOfWork<'sync'>` (`run` returns the value
 * once COMMIT returned), has no adapter any more.
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

/**
 * Runs `step` at once, as part of the unit open around it: the store calls `step` makes before
 * it returns are the unit's. Those it makes after an await are not (they would wait for the unit
 * to end), so a step makes every store call in its synchronous part. No asynchronous context is
 * set (issue 34 point 7): on Node 20 an AsyncLocalStorage that ran once slows every promise.
 */
export type UnitStep = <R>(step: () => R) => R;

/** A unit's steps when the store finds them by their asynchronous context: each runs as it is. */
export const plainStep: UnitStep = (step) => step();

export interface UnitOfWork<Mode extends CommitMode = 'sync'> {
  run<T>(work: () => Committed<T, Mode>): Committed<T, Mode>;
  /**
   * Optional: `run`, with the commit's sync to disk done off the event loop (SQLite: the WAL's
   * fdatasync on libuv's thread pool), and the work's store calls made through its `step` (the
   * group commit's writes, which make theirs synchronously). The group commit uses it; a store
   * without it is `run` (PostgreSQL: its COMMIT returns once durable, and waiting for it does not
   * block the loop).
   */
  runSyncedLater?<T>(work: (step: UnitStep) => Committed<T, Mode>): Committed<SyncedLater<T>, Mode>;
  /**
   * Optional: `run` for work that makes every store call through its `step`. A store without it
   * is `run` (it finds the unit of a store call by the caller's asynchronous context).
   */
  runInSteps?<T>(work: (step: UnitStep) => Committed<T, Mode>): Committed<T, Mode>;
  /**
   * Optional: whether store calls made at once are applied in the order they were made (each one
   * statement, sent as it is called), so a group commit may send its writes without waiting for
   * each: one round trip for the group instead of one a write (PostgreSQL on one node). A store
   * whose call awaits before its statement (a clustered node's fence) answers false.
   */
  inOrderAtOnce?(): boolean;
}
