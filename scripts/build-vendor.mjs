// typebox, bundled into one module (package.json's "#typebox" import): the server builds its
// JSON Schemas with it at load, and the package's 372 module files cost every start of the
// daemon and of a CLI command about 0.17 CPU-s in opens, stats and links; the one bundled file
// about 0.01. The TypeScript run by the tests resolves "#typebox" to the package itself
// (the "source" condition of test/loader/hooks.mjs). Written only when its bytes change, so a
// second build writes nothing (issue 29 point 19).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

const out = 'dist/vendor/typebox.js';

const result = await build({
  stdin: {
    contents: "export * from 'typebox'; export { default } from 'typebox';",
    resolveDir: process.cwd(),
    sourcefile: 'typebox-entry.js',
  },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The bundle's comments name each module's path: through a linked node_modules (a copy of the
  // tree) the same bytes, so that an unchanged build writes nothing there either.
  preserveSymlinks: true,
  legalComments: 'inline',
  logLevel: 'warning',
  write: false,
});
const bytes = result.outputFiles[0]?.contents;
if (!bytes) throw new Error('esbuild produced no bundle of typebox');

let current = null;
try {
  current = readFileSync(out);
} catch {
  // Not built yet.
}
if (current?.equals(bytes)) {
  console.log('typebox bundle: up to date');
} else {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(`typebox bundle: ${out} (${Math.round(bytes.length / 1024)} KiB)`);
}
