// The web client, bundled: one ES module per page entry, so the page loads one script instead
// of a waterfall of imports, and only the icons it uses come from lucide (tree-shaken).
// tsc still typechecks src/web (npm run typecheck); esbuild only strips types and bundles.
// A rebuild happens only when a file esbuild read last time (its metafile), this script or
// esbuild itself changed, so a second `npm start` does not redo the bundle (issue 29 point 19).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, version } from 'esbuild';

/** The budget of issue 17: JavaScript the page loads, gzip-compressed, before the optional segmentation model. */
export const budgetBytes = 150 * 1024;

/** What the last bundle was made from: kept beside it, and removed with it. */
const stampFile = 'dist/web/.inputs.json';

/** @param {string} file */
const digest = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** @typedef {{ recipe: string, inputs: Record<string, string>, outputs: string[] }} Stamp */

/** This script's text and esbuild's version: a change to either is a change to every output. */
const recipe = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(version)
  .digest('hex');

/** @returns {Stamp | null} */
function readStamp() {
  try {
    const stamp = /** @type {unknown} */ (JSON.parse(readFileSync(stampFile, 'utf8')));
    return /** @type {Stamp} */ (stamp);
  } catch {
    return null;
  }
}

/**
 * A stamp that cannot be read as one (hand-edited, truncated) means "build".
 * @param {Stamp | null} stamp
 */
function upToDate(stamp) {
  try {
    if (!stamp || stamp.recipe !== recipe || stamp.outputs.length === 0) return false;
    if (!stamp.outputs.every((file) => existsSync(file))) return false;
    return Object.entries(stamp.inputs).every(([file, hash]) => existsSync(file) && digest(file) === hash);
  } catch {
    return false;
  }
}

if (upToDate(readStamp())) {
  console.log('web client: up to date (no input changed since the last bundle)');
} else {
  await bundle();
}

async function bundle() {
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
    metafile: true,
  };
  // The room page (main.js), the poll ticker's worker (ticker.js), the home page at / (home.js) and the
  // organisers' pages (account.js), each one self-contained module.
  const page = await build({
    ...common,
    entryPoints: {
      main: 'src/web/main.ts',
      ticker: 'src/web/ticker.ts',
      home: 'src/web/home.ts',
      account: 'src/web/account.ts',
    },
    outdir: 'dist/web',
  });
  // external_api.js stays a classic script: one function (its tables from api-names.ts bundled in), not minified,
  // so its page-origin mark is kept and the embedding page's globals get only the two constructors it sets.
  const embed = await build({
    entryPoints: ['src/web/embed/external-api.ts'],
    outfile: 'dist/web/embed/external-api.js',
    bundle: true,
    format: 'iife',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'warning',
    metafile: true,
  });

  /** @param {string} file */
  const size = (file) => gzipSync(readFileSync(file)).length;
  const total = size('dist/web/main.js') + size('dist/web/ticker.js');
  // The home page loads home.js alone: its own figure, within the same budget.
  const home = size('dist/web/home.js');
  writeFileSync(
    'dist/web/bundle-size.json',
    `${JSON.stringify({ gzipBytes: total, homeGzipBytes: home, budgetBytes })}\n`,
  );
  console.log(
    `web client: ${(total / 1024).toFixed(1)} KB of JavaScript gzip-compressed (budget ${budgetBytes / 1024} KB)`,
  );
  console.log(`web client: the home page ${(home / 1024).toFixed(1)} KB of JavaScript gzip-compressed`);
  if (total > budgetBytes || home > budgetBytes) {
    console.error('web client: over the budget');
    process.exit(1);
  }

  // Written last, and only for a bundle within the budget: a failed build leaves no stamp, so the next one retries.
  /** @type {Record<string, string>} */
  const inputs = {};
  const outputs = ['dist/web/bundle-size.json'];
  for (const result of [page, embed]) {
    for (const file of Object.keys(result.metafile?.inputs ?? {})) inputs[file] = digest(file);
    outputs.push(...Object.keys(result.metafile?.outputs ?? {}));
  }
  /** @type {Stamp} */
  const stamp = { recipe, inputs, outputs };
  writeFileSync(stampFile, `${JSON.stringify(stamp, null, 1)}\n`);
}
