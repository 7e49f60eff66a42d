// Module hooks that load the project's TypeScript: `./x.js` written in a .ts file means `./x.ts`
// when that exists (the NodeNext convention tsc follows), and a .ts file is transpiled by esbuild,
// types stripped, with an inline source map so stack traces and coverage point at the .ts lines.
// Transpiled text is cached by content hash: a test process mostly reads the cache and never
// starts esbuild.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cacheDir = join(root, 'node_modules', '.cache', 'ts-esbuild');
/** @type {import('esbuild').TransformOptions} */
const options = {
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  // tsconfig.json's settings that change emitted JavaScript.
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
};
// A new esbuild may emit differently: its package.json (its version) is part of every cache key.
const esbuildPackage = readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8');
const optionsKey = JSON.stringify({ esbuildPackage, options });
/** @type {typeof import('esbuild') | undefined} */
let esbuild;

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (
    parent?.startsWith('file:') &&
    parent.endsWith('.ts') &&
    /^\.\.?\//.test(specifier) &&
    specifier.endsWith('.js')
  ) {
    const ts = new URL(specifier.slice(0, -3) + '.ts', parent);
    if (existsSync(ts)) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  // The TypeScript sources' own imports ("#typebox", package.json's "imports") resolve to the
  // packages they stand for, not to what the build bundled into dist/: a test needs no build.
  if (parent?.endsWith('.ts') && specifier.startsWith('#'))
    return nextResolve(specifier, { ...context, conditions: ['source', ...context.conditions] });
  return nextResolve(specifier, context);
}

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const key = createHash('sha256')
    .update(optionsKey)
    .update('\0')
    .update(file)
    .update('\0')
    .update(source)
    .digest('hex');
  const cached = join(cacheDir, `${key}.js`);
  let code;
  try {
    code = readFileSync(cached, 'utf8');
  } catch {
    esbuild ??= await import('esbuild');
    code = (await esbuild.transform(source, { ...options, sourcefile: file })).code;
    // Written aside and renamed, so a test process running beside never reads half a file; a
    // cache that cannot be written (a process under another user) only costs the next one time.
    try {
      mkdirSync(dirname(cached), { recursive: true });
      const part = `${cached}.${process.pid}.part`;
      writeFileSync(part, code);
      renameSync(part, cached);
    } catch {
      // The transpiled text is already in hand.
    }
  }
  return { format: 'module', source: code, shortCircuit: true };
}
