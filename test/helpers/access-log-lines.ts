import { logRecords } from './api.js';
import type { Daemon } from './daemon.js';
import { until } from './net.js';

/** One JSON line of the daemon's log. */
export type Line = Record<string, unknown>;

/** What the log checks read of a daemon, spawned or in this process. */
export type Logged = Pick<Daemon, 'lines'>;

/** The request lines of one family (engine, compat, ...). */
export const accessLines = (d: Logged, family: string): Line[] =>
  logRecords(d).filter((line) => line.family === family);

/** The periodic summary lines. */
export const summaries = (d: Logged): Line[] => logRecords(d).filter((line) => line.msg === 'requests');

/** Waits for a summary line whose family `family` counts at least `n` requests; returns that family's figures. */
export async function summaryOf(d: Logged, family: string, n: number): Promise<Record<string, number>> {
  let found: Record<string, number> | undefined;
  await until(
    `a summary counting ${n} ${family}`,
    async () => {
      const total = summaries(d)
        .map((line) => (line.families as Record<string, Record<string, number>>)[family])
        .filter((figures) => figures !== undefined);
      const n4xx = total.reduce((sum, figures) => sum + figures['4xx']!, 0);
      const count = total.reduce((sum, figures) => sum + figures.n!, 0);
      found = { count, '4xx': n4xx };
      return count >= n;
    },
    10_000,
    100,
  );
  return found!;
}
