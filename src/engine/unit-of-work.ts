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

export interface UnitOfWork<Mode extends CommitMode = 'sync'> {
  run<T>(work: () => Committed<T, Mode>): Committed<T, Mode>;
}
