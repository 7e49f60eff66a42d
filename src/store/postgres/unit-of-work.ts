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
  private readonly open = new AsyncLocalStorage<{ readonly tx: Sql; readonly settled: (() => void)[] }>();

  constructor(private readonly sql: Sql) {}

  /** The open unit's transaction, else the pool (a statement outside a unit commits on its own). */
  connection(): Sql {
    return this.open.getStore()?.tx ?? this.sql;
  }

  /** Whether the caller runs inside a unit (its reads may see writes that are not committed yet). */
  inside(): boolean {
    return this.open.getStore() !== undefined;
  }

  /** Runs `fn` once the caller's outermost unit committed or rolled back (at once outside a unit). */
  whenSettled(fn: () => void): void {
    const unit = this.open.getStore();
    if (unit) unit.settled.push(fn);
    else fn();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open.getStore();
    const inner = outer?.tx as { savepoint?: (fn: (tx: unknown) => Promise<T>) => Promise<T> } | undefined;
    if (outer && inner?.savepoint)
      return inner.savepoint((tx) => this.open.run({ tx: tx as Sql, settled: outer.settled }, work));
    const settled: (() => void)[] = [];
    const unit = this.sql.begin((tx) => this.open.run({ tx: tx as unknown as Sql, settled }, work)) as Promise<T>;
    return unit.finally(() => {
      for (const fn of settled) fn();
    });
  }
}
