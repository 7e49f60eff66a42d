// Sums the per-file times of a tap log (the `ok N - test/x.test.ts # time=...ms` line tap prints
// as each file ends), split into the browser suite (test/e2e, or its shards) and the rest: the figure issue 16
// asks to halve. A CI log holds one run per Node leg; a file seen again starts the next run.
// Usage: node scripts/tap-times.mjs LOG [--files]   (--files also lists each file, slowest first)
import { readFileSync } from 'node:fs';

const [log, flag] = process.argv.slice(2);
if (!log) {
  console.error('usage: node scripts/tap-times.mjs LOG [--files]');
  process.exit(2);
}
const fileLine = /^(?:not )?ok \d+ - (test\/\S+) # time=([\d.]+)(ms|s)\b/;

/** @type {Map<string, number>[]} */
const runs = [];
let current = /** @type {Map<string, number>} */ (new Map());
for (const line of readFileSync(log, 'utf8').split('\n')) {
  const match = fileLine.exec(line);
  if (!match) continue;
  const [, file = '', amount = '0', unit] = match;
  if (current.has(file)) {
    runs.push(current);
    current = new Map();
  }
  current.set(file, Number(amount) * (unit === 's' ? 1000 : 1));
}
if (current.size > 0) runs.push(current);

const seconds = (/** @type {number} */ ms) => (ms / 1000).toFixed(1);
runs.forEach((run, i) => {
  let browser = 0;
  let rest = 0;
  let restFiles = 0;
  for (const [file, ms] of run) {
    if (file.startsWith('test/e2e/') || file.startsWith('test/shards/e2e-')) browser += ms;
    else {
      rest += ms;
      restFiles++;
    }
  }
  console.log(
    `run ${i + 1}: ${run.size} files; non-browser ${seconds(rest)} s in ${restFiles} files; browser (test/e2e) ${seconds(browser)} s`,
  );
  if (flag === '--files') {
    for (const [file, ms] of [...run].sort((a, b) => b[1] - a[1]))
      console.log(`  ${seconds(ms).padStart(7)} s  ${file}`);
  }
});
