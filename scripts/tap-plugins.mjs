// Builds tap's test class for the plugins package.json configures, when it was built for others
// (a fresh `npm ci` ships tap's defaults). tap would rebuild it in the run itself, but that run
// still starts its test files with the loaders of the old build (ts-node instead of the esbuild
// hooks of test/loader): this runs before the tests so that the first run uses the right ones.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const plugin = 'meet-test-loader/tap-plugin.cjs';
// The built class lists its plugins, one a line, in its `signature` (read as text: importing it
// here would need tap's core loaded first).
const built = readFileSync(new URL(import.meta.resolve('@tapjs/test/test-built')), 'utf8');
const signature = /export const signature = `([^`]*)`/.exec(built)?.[1] ?? '';
if (!signature.split('\n').includes(plugin)) {
  console.log(`tap's test class was built without ${plugin}: building it for the configured plugins`);
  execFileSync('npx', ['tap', 'build'], { stdio: 'inherit' });
}
