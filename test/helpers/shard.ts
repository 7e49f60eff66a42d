import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

/**
 * The tiers whose files run in shared processes. The process tier's files start their daemons,
 * CLIs, nginx and Janus as children, so sharing the test process costs them nothing but the
 * start each file paid alone (tap's runner, Node, the loader and the helpers: about 2.4 CPU-s a
 * file, on both legs of CI). A browser shard also shares one Chromium (a context per test, as
 * before) and one network namespace, where each file paid its own launch and namespace.
 */
export const shardedTiers = ['unit', 'service', 'process', 'e2e'] as const;

/**
 * Folders of a sharded tier whose files still run alone, one process each: the latency tests
 * under load run serially, with nothing beside them (package.json's tap `serial`); the failover
 * rounds (minutes, mostly asleep while a node is frozen) run in a lane of their own in CI
 * (`npm run test:failover`), not in one of leg 1's two job slots.
 */
export const runAlone = ['process/load/', 'process/failover/'] as const;

/**
 * A process or browser shard runs for minutes (its files' daemons, pages and timeouts), the unit
 * and service ones for seconds. A browser shard took 4 minutes on a quiet machine and over 20 with
 * two engineers' builds and suites beside CI; its files each allowed themselves 2 to 8.
 */
export const shardTimeoutMs = { unit: 300_000, service: 300_000, process: 1_200_000, e2e: 2_700_000 } as const;

/**
 * Every `*.test.ts` file of a tier folder, sorted: what its shards split between them. The
 * folder is read at run time, so a new test file runs without being listed anywhere.
 */
export function tierFiles(tier: (typeof shardedTiers)[number]): string[] {
  const root = fileURLToPath(new URL(`../${tier}/`, import.meta.url));
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.test.ts') && !runAlone.some((folder) => `${tier}/${file}`.startsWith(folder)))
    .sort()
    .map((file) => join(root, file));
}

/**
 * Runs share `index` (1-based) of `count` of a tier's test files in this process, taking every
 * count-th file. A process per file cost tap's runner, node's start and the app's modules again
 * for each of 160 files: about 0.9 to 2.5 s of CPU each, most of `npm run test:fast`. The files
 * register their tests on tap's one root test, which runs them in order; a failure's `at:`
 * names its file.
 */
export async function runShard(tier: (typeof shardedTiers)[number], index: number, count: number): Promise<void> {
  for (const [i, file] of tierFiles(tier).entries()) {
    if (i % count === index - 1) await import(pathToFileURL(file).href);
  }
  // After the imports: a process file that sets its own root timeout (t.setTimeout at its top,
  // for itself alone) would otherwise set the whole shard's, counted from its import.
  t.setTimeout(shardTimeoutMs[tier]);
}
