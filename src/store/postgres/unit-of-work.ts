import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from '../../engine/unit-of-work.js';
import type { Sql } from '../../platform/postgres.js';

/**
 * The engine's unit of work on PostgreSQL: one transaction (sql.begin) whose connection every
 * store of the unit writes through, found by the async context of the work, so stores need no
 * transaction handed to them. A `run` inside another is a savepoint: a failure the caller catches
 * takes back only the inner writes, as on SQLite. COMMIT returns once the commit is durable
 * (synchronous_commit on, set by the pool): `run` resolves only then.
 */
export class PostgresUnitOfWork implements UnitOfWork<'async'> {
  private readonly open = new AsyncLocalStorage<Sql>();

  constructor(private readonly sql: Sql) {}

  /** The open unit's transaction, else the pool (a statement outside a unit commits on its own). */
  connection(): Sql {
    return this.open.getStore() ?? this.sql;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open.getStore() as (Sql & { savepoint?: Sql['begin'] }) | undefined;
    const scoped = (tx: unknown) => this.open.run(tx as Sql, work);
    if (outer?.savepoint) return outer.savepoint(scoped) as Promise<T>;
    return this.sql.begin(scoped) as Promise<T>;
  }
}
