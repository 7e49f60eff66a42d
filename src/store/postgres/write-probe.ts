import type { WriteProbe } from '../../engine/health/readiness.js';
import type { Sql } from '../../platform/postgres.js';
import { writeProbeKey } from '../write-probe.js';

/**
 * Readiness of PostgreSQL as the service uses it: one statement that changes a row of
 * meet_engine.instance_meta and commits (durably: synchronous_commit on), as SQLite's probe does.
 * A database that does not answer within `withinMs` (a host gone silent: no refusal, no reset)
 * counts as failing rather than holding /readyz for the driver's connect timeout.
 */
export class PostgresWriteProbe implements WriteProbe {
  constructor(
    private readonly sql: Sql,
    private readonly withinMs = 2000,
  ) {}

  async probeWrite(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`PostgreSQL did not answer within ${this.withinMs} ms`)),
        this.withinMs,
      );
    });
    const write = this.sql`INSERT INTO meet_engine.instance_meta (key, value) VALUES (${writeProbeKey}, '1')
      ON CONFLICT (key) DO UPDATE SET value = (instance_meta.value::bigint + 1)::text`;
    try {
      await Promise.race([write, late]);
    } finally {
      clearTimeout(timer);
      // A write that lost the race still settles later: nobody awaits it, so its failure is not unhandled.
      write.catch(() => undefined);
    }
  }
}
