// Issue 30 point 2: every repository path the README and ARCHITECTURE.md name exists, so a file
// moved or deleted cannot leave the docs pointing at nothing. Named means: in backticks (its first
// word, so `scripts/x.mjs --write` counts), a relative Markdown link, or the first word of a line
// of ARCHITECTURE.md's tree. A pattern (`test/**/*.test.ts`, `<screen>`, `{id}`) must match a file.
import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const topFolders = ['src', 'test', 'scripts', 'docs', 'bench', 'nginx', 'templates', 'bin'];
const repoPath = new RegExp(`^(?:${topFolders.join('|')})/`);

/**
 * ARCHITECTURE.md also names files of src/ by their path inside src/ (`http/access-log.ts`) or inside
 * one of its folders (`room/session.ts` of src/http/): in backticks, with a folder and a file name.
 */
const srcFolders = readdirSync(`${root}src`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const srcRelative = /^[a-z][\w-]*\/(?:[\w.-]+\/)*[\w.-]+\.(?:ts|mjs|js)$/;

function srcRelativePaths(markdown: string): string[] {
  const names = new Set<string>();
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const word = code?.trim().split(/\s+/)[0];
    if (word !== undefined && srcRelative.test(word) && !repoPath.test(word)) names.add(word);
  }
  return [...names];
}

const existsInSrc = (name: string): boolean => existsSync(`${root}src/${name}`) || srcFolders.some((f) => existsSync(`${root}src/${f}/${name}`));

/** Named by the docs but made by a run, not kept in the repository; each with where it is ignored. */
const generated: Record<string, string> = {
  'bench/profiles/': 'written by `npm run bench -- --cpu-prof`; bench/.gitignore',
};

/** The repository paths a Markdown file names. */
function namedPaths(markdown: string, treeLines: boolean): string[] {
  const names = new Set<string>();
  const add = (word: string | undefined): void => {
    const name = word?.replace(/[.,;:)]+$/, '');
    if (name !== undefined && repoPath.test(name)) names.add(name);
  };
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) add(code?.trim().split(/\s+/)[0]);
  // A relative link is a path whatever its folder (ARCHITECTURE.md, docs/...); one with a scheme is not.
  for (const [, target] of markdown.matchAll(/\]\(([^)#\s]+)\)/g)) if (target !== undefined && !/^[a-z]+:/.test(target)) names.add(target);
  if (treeLines) for (const line of markdown.split('\n')) add(line.split(/\s+/)[0]);
  return [...names];
}

const isPattern = (name: string): boolean => /[*<{]/.test(name);

/** A pattern as a regular expression over repository paths: `**` any folders, `*`, `<x>` and `{x}` one name's part. */
function patternRegExp(name: string): RegExp {
  const parts = name.split(/(\*\*\/?|\*|<[^>]*>|\{[^}]*\})/);
  const source = parts
    .map((part, i) => (i % 2 === 0 ? part.replace(/[.+?^$()[\]\\|]/g, '\\$&') : part === '**/' ? '(?:.*/)?' : part === '**' ? '.*' : '[^/]+'))
    .join('');
  return new RegExp(`^${source}${name.endsWith('/') ? '.*' : ''}$`);
}

function matchesSomeFile(name: string): boolean {
  const folder = name.slice(0, name.search(/[*<{]/)).replace(/[^/]*$/, '');
  if (!existsSync(`${root}${folder}`)) return false;
  const pattern = patternRegExp(name);
  return readdirSync(`${root}${folder}`, { recursive: true, encoding: 'utf8' }).some((p) => pattern.test(`${folder}${p.split('\\').join('/')}`));
}

const exists = (name: string): boolean => (isPattern(name) ? matchesSomeFile(name) : existsSync(`${root}${name}`));

for (const [file, treeLines] of [
  ['README.md', false],
  ['ARCHITECTURE.md', true],
] as const) {
  t.test(`every repository path ${file} names exists`, async (t) => {
    const names = namedPaths(readFileSync(`${root}${file}`, 'utf8'), treeLines);
    t.ok(names.length > 10, `${file} names paths (${names.length} found)`);
    const missing = names.filter((name) => !(name in generated) && !exists(name));
    t.same(missing, [], `${file}: paths named that do not exist`);
    const missingInSrc = srcRelativePaths(readFileSync(`${root}${file}`, 'utf8')).filter((name) => !existsInSrc(name));
    t.same(missingInSrc, [], `${file}: files of src/ named by their path inside it that do not exist`);
  });
}

t.test('the generated paths are still named, and still ignored where they are made', async (t) => {
  const docs = ['README.md', 'ARCHITECTURE.md'].map((f) => readFileSync(`${root}${f}`, 'utf8')).join('\n');
  for (const name of Object.keys(generated)) {
    t.ok(docs.includes(name), `${name} is still named (else delete its entry)`);
    const folder = name.replace(/[^/]+\/$/, '');
    t.match(readFileSync(`${root}${folder}.gitignore`, 'utf8'), name.slice(folder.length), `${folder}.gitignore ignores it`);
  }
});

t.test('the reader finds backticked, linked and tree paths, and patterns must match a file', async (t) => {
  const sample = '`src/a.ts --flag`, `nginx/x.conf`. [see](docs/b.md), [up](ARCHITECTURE.md), [web](https://x.org/a) and `dist/y.js`\nbench/lib/    the bench';
  t.same(namedPaths(sample, false).sort(), ['ARCHITECTURE.md', 'docs/b.md', 'nginx/x.conf', 'src/a.ts']);
  t.same(namedPaths(sample, true).sort(), ['ARCHITECTURE.md', 'bench/lib/', 'docs/b.md', 'nginx/x.conf', 'src/a.ts']);
  t.ok(exists('test/**/*.test.ts'));
  t.ok(exists('src/store/**'));
  t.ok(exists('docs/screenshots/<screen>-<desktop|phone>-<light|dark>.png'));
  t.notOk(exists('test/**/*.test.nothing'));
  t.notOk(exists('src/protocol/nothing.ts'));
  t.same(srcRelativePaths('`http/access-log.ts` and `room/session.ts`, not `a.ts` nor `10/8`'), ['http/access-log.ts', 'room/session.ts']);
  t.ok(existsInSrc('room/session.ts'));
  t.notOk(existsInSrc('room/nothing.ts'));
});
