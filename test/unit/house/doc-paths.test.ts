// Issue 30 point 2: every repository path the docs (README.md, docs/**/*.md, bench/README.md) name
// exists, so a file moved or deleted cannot leave the docs pointing at nothing. Named means: in
// backticks (its first word, so `scripts/x.mjs --write` counts; from the repository's root), a
// relative Markdown link (from the document's folder, its #anchor a heading of the target), or the
// first word of a line of docs/architecture.md's tree. A pattern (`test/**/*.test.ts`, `<screen>`,
// `{id}`) must match a file. And the README stays a front page: at most 200 lines, linking every page.
import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const topFolders = ['src', 'test', 'scripts', 'docs', 'bench', 'nginx', 'templates', 'bin'];
const repoPath = new RegExp(`^(?:${topFolders.join('|')})/`);

/** Every Markdown file of the docs, as repository paths. */
const docFiles = [
  'README.md',
  ...readdirSync(`${root}docs`, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.md'))
    .map((p) => `docs/${p.split('\\').join('/')}`)
    .sort(),
  'bench/README.md',
];
/** The document whose code block is the tree of the repository. */
const treeFile = 'docs/architecture.md';

/**
 * The architecture page also names files of src/ by their path inside src/ (`http/access-log.ts`) or inside
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

const existsInSrc = (name: string): boolean =>
  existsSync(`${root}src/${name}`) || srcFolders.some((f) => existsSync(`${root}src/${f}/${name}`));

/** Named by the docs but made by a run, not kept in the repository; each with where it is ignored. */
const generated: Record<string, string> = {
  'bench/profiles/': 'written by `npm run bench -- --cpu-prof`; bench/.gitignore',
};

/** The relative links of a Markdown file (at `file`): the repository path each points at, and its #anchor. */
function linksOf(markdown: string, file: string): { path: string; anchor: string | null }[] {
  const links: { path: string; anchor: string | null }[] = [];
  // One with a scheme (https:, mailto:) is no path of ours.
  for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (target === undefined || /^[a-z]+:/.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    links.push({
      path: path === '' ? file : posix.normalize(posix.join(posix.dirname(file), path)),
      anchor: anchor ?? null,
    });
  }
  return links;
}

/** The repository paths a Markdown file (at `file`) names. */
function namedPaths(markdown: string, treeLines: boolean, file = 'README.md'): string[] {
  const names = new Set<string>();
  const add = (word: string | undefined): void => {
    const name = word?.replace(/[.,;:)]+$/, '');
    if (name !== undefined && repoPath.test(name)) names.add(name);
  };
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) add(code?.trim().split(/\s+/)[0]);
  for (const { path } of linksOf(markdown, file)) names.add(path);
  if (treeLines) for (const line of markdown.split('\n')) add(line.split(/\s+/)[0]);
  return [...names];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!fenced && heading?.[1] !== undefined) anchors.add(slug(heading[1]));
  }
  return anchors;
}

const isPattern = (name: string): boolean => /[*<{]/.test(name);

/** A pattern as a regular expression over repository paths: `**` any folders, `*`, `<x>` and `{x}` one name's part. */
function patternRegExp(name: string): RegExp {
  const parts = name.split(/(\*\*\/?|\*|<[^>]*>|\{[^}]*\})/);
  const source = parts
    .map((part, i) =>
      i % 2 === 0
        ? part.replace(/[.+?^$()[\]\\|]/g, '\\$&')
        : part === '**/'
          ? '(?:.*/)?'
          : part === '**'
            ? '.*'
            : '[^/]+',
    )
    .join('');
  return new RegExp(`^${source}${name.endsWith('/') ? '.*' : ''}$`);
}

function matchesSomeFile(name: string): boolean {
  const folder = name.slice(0, name.search(/[*<{]/)).replace(/[^/]*$/, '');
  if (!existsSync(`${root}${folder}`)) return false;
  const pattern = patternRegExp(name);
  return readdirSync(`${root}${folder}`, { recursive: true, encoding: 'utf8' }).some((p) =>
    pattern.test(`${folder}${p.split('\\').join('/')}`),
  );
}

const exists = (name: string): boolean => (isPattern(name) ? matchesSomeFile(name) : existsSync(`${root}${name}`));

for (const file of docFiles) {
  t.test(`every repository path ${file} names exists`, async (t) => {
    const text = readFileSync(`${root}${file}`, 'utf8');
    const names = namedPaths(text, file === treeFile, file);
    // The reader works: the front page and the tree's page name many paths (a page may name none).
    if (file === 'README.md' || file === treeFile)
      t.ok(names.length > 10, `${file} names paths (${names.length} found)`);
    const missing = names.filter((name) => !(name in generated) && !exists(name));
    t.same(missing, [], `${file}: paths named that do not exist`);
    const missingInSrc = srcRelativePaths(text).filter((name) => !existsInSrc(name));
    t.same(missingInSrc, [], `${file}: files of src/ named by their path inside it that do not exist`);
    const badAnchors = linksOf(text, file)
      .filter(({ path, anchor }) => anchor !== null && path.endsWith('.md') && existsSync(`${root}${path}`))
      .filter(({ path, anchor }) => !anchorsOf(readFileSync(`${root}${path}`, 'utf8')).has(anchor ?? ''))
      .map(({ path, anchor }) => `${path}#${anchor}`);
    t.same(badAnchors, [], `${file}: links to a heading that is not there`);
  });
}

t.test(
  'the docs are the files this test reads: the front page, every page of docs/ and the bench notebook',
  async (t) => {
    t.ok(docFiles.includes(treeFile), `${treeFile} holds the tree`);
    t.notOk(existsSync(`${root}ARCHITECTURE.md`), 'one architecture page only: docs/architecture.md');
    t.ok(docFiles.length >= 12, `${docFiles.length} documents`);
  },
);

t.test(
  'README.md is a front page: at most 200 lines, linking every page of docs/ and the bench notebook',
  async (t) => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    t.ok(lines <= 200, `README.md has ${lines} lines`);
    const linked = new Set(linksOf(readme, 'README.md').map((l) => l.path));
    const unlinked = docFiles.filter((f) => f !== 'README.md' && !f.startsWith('docs/decisions/') && !linked.has(f));
    t.same(unlinked, [], 'pages of the docs the README does not link');
    t.ok(linked.has('docs/decisions/README.md'), 'the README links the decision records');
  },
);

t.test('the generated paths are still named, and still ignored where they are made', async (t) => {
  const docs = docFiles.map((f) => readFileSync(`${root}${f}`, 'utf8')).join('\n');
  for (const name of Object.keys(generated)) {
    t.ok(docs.includes(name), `${name} is still named (else delete its entry)`);
    const folder = name.replace(/[^/]+\/$/, '');
    t.match(
      readFileSync(`${root}${folder}.gitignore`, 'utf8'),
      name.slice(folder.length),
      `${folder}.gitignore ignores it`,
    );
  }
});

t.test('the reader finds backticked, linked and tree paths, and patterns must match a file', async (t) => {
  const sample =
    '`src/a.ts --flag`, `nginx/x.conf`. [see](docs/b.md), [up](ARCHITECTURE.md), [web](https://x.org/a) and `dist/y.js`\nbench/lib/    the bench';
  t.same(namedPaths(sample, false).sort(), ['ARCHITECTURE.md', 'docs/b.md', 'nginx/x.conf', 'src/a.ts']);
  t.same(namedPaths(sample, true).sort(), ['ARCHITECTURE.md', 'bench/lib/', 'docs/b.md', 'nginx/x.conf', 'src/a.ts']);
  // A link is read from the document's folder, with its anchor; backticks from the root.
  t.same(linksOf('[a](operating.md#backup) [b](../bench/README.md) [c](#here) [d](https://x.org/#y)', 'docs/x.md'), [
    { path: 'docs/operating.md', anchor: 'backup' },
    { path: 'bench/README.md', anchor: null },
    { path: 'docs/x.md', anchor: 'here' },
  ]);
  t.same(namedPaths('[s](screenshots/a.png) `docs/b.md`', false, 'docs/x.md').sort(), [
    'docs/b.md',
    'docs/screenshots/a.png',
  ]);
  t.same(
    [
      ...anchorsOf(
        '# A page\n## Running under systemd (`install … --runtime native`)\n```sh\n# not a heading\n```\n## Tenants, managed live',
      ),
    ],
    ['a-page', 'running-under-systemd-install----runtime-native', 'tenants-managed-live'],
  );
  t.ok(exists('test/**/*.test.ts'));
  t.ok(exists('src/store/**'));
  t.ok(exists('docs/screenshots/<screen>-<desktop|phone>-<light|dark>.png'));
  t.notOk(exists('test/**/*.test.nothing'));
  t.notOk(exists('src/protocol/nothing.ts'));
  t.same(srcRelativePaths('`http/access-log.ts` and `room/session.ts`, not `a.ts` nor `10/8`'), [
    'http/access-log.ts',
    'room/session.ts',
  ]);
  t.ok(existsInSrc('room/session.ts'));
  t.notOk(existsInSrc('room/nothing.ts'));
});
