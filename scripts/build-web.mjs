// The web client, bundled: one ES module per page entry, so the page loads one script instead
// of a waterfall of imports, and only the icons it uses come from lucide (tree-shaken).
// tsc still typechecks src/web (npm run typecheck); esbuild only strips types and bundles.
import { rmSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The budget of issue 17: JavaScript the page loads, gzip-compressed, before the optional segmentation model. */
export const budgetBytes = 150 * 1024;

rmSync('dist/web', { recursive: true, force: true });
/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};
// The page (main.js) and the poll ticker's worker (ticker.js), each one self-contained module.
await build({ ...common, entryPoints: { main: 'src/web/main.ts', ticker: 'src/web/ticker.ts' }, outdir: 'dist/web' });
// external_api.js stays a classic script: types stripped, not bundled or minified, so its page-origin mark is kept
// and the embedding page's globals get only the two constructors its own function returns.
await build({
  entryPoints: ['src/web/embed/external-api.ts'],
  outfile: 'dist/web/embed/external-api.js',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});

/** @param {string} file */
const size = (file) => gzipSync(readFileSync(file)).length;
const total = size('dist/web/main.js') + size('dist/web/ticker.js');
writeFileSync('dist/web/bundle-size.json', `${JSON.stringify({ gzipBytes: total, budgetBytes })}\n`);
console.log(`web client: ${(total / 1024).toFixed(1)} KB of JavaScript gzip-compressed (budget ${budgetBytes / 1024} KB)`);
if (total > budgetBytes) {
  console.error('web client: over the budget');
  process.exit(1);
}
