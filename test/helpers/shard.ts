import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The tiers whose files run in shared processes: in-process code only, no daemon, no browser. */
export const shardedTiers = ['unit', 'service'] as const;

/**
 * Every `*.test.ts` file of a tier folder, sorted: what its shards split between them. The
 * folder is read at run time, so a new test file runs without being listed anywhere.
 */
export function tierFiles(tier: (typeof shardedTiers)[number]): string[] {
  const root = fileURLToPath(new URL(`../${tier}/`, import.meta.url));
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.test.ts'))
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
}
