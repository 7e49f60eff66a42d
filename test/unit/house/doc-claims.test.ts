// Issue 30 point 2: two kinds of stale claim the docs made. The architecture page described a
// `nodeFor(meetingId)` seam that no code has; the README and the architecture page said the page loads
// the wire protocol from /assets/protocol/, while the page's bundle compiles it in. Every document
// is read: README.md, docs/**/*.md and bench/README.md.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const docFiles = [
  'README.md',
  ...readdirSync(`${root}docs`, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.md'))
    .map((p) => `docs/${p.split('\\').join('/')}`),
  'bench/README.md',
];
const docs = docFiles.map((file) => [file, readFileSync(`${root}${file}`, 'utf8')] as const);

/** Functions the docs name that are other programs', not ours: each with whose it is. */
const foreign: Record<string, string> = {
  rtrim: "PHP's, in Moodle's plugin (the meeting API's base URL)",
  evaluate: "Playwright's page.evaluate() (lint rules of the tests)",
};

/** This file names the stale function itself, so it is not code that defines it. */
const self = fileURLToPath(import.meta.url);

function codeOf(folder: string): string {
  return readdirSync(`${root}${folder}`, { recursive: true, encoding: 'utf8' })
    .filter(
      (p) => /\.(ts|mts|mjs|js)$/.test(p) && !p.split(/[\\/]/).includes('dist') && `${root}${folder}/${p}` !== self,
    )
    .map((p) => readFileSync(`${root}${folder}/${p}`, 'utf8'))
    .join('\n');
}

t.test('every function the docs name in backticks is one the code defines', async (t) => {
  const code = ['src', 'test', 'scripts', 'bench'].map(codeOf).join('\n');
  for (const [file, text] of docs) {
    const named = new Set([...text.matchAll(/`(?:[\w.]+\.)?([A-Za-z_]\w*)\(/g)].map((m) => m[1] ?? ''));
    const missing = [...named].filter((name) => !(name in foreign) && !new RegExp(`\\b${name}\\b`).test(code));
    t.same(missing, [], `${file}: functions named that no code of the repository has`);
  }
});

t.test('the page bundles the wire protocol, and the docs say so', async (t) => {
  const page = readFileSync(`${root}dist/web/main.js`, 'utf8');
  t.notMatch(page, '/assets/protocol/', 'the built page loads nothing from /assets/protocol/');
  t.match(page, /\b4503\b/, "the protocol's close codes are compiled into the page");
  for (const [file, text] of docs) {
    const flat = text.replace(/\s+/g, ' ');
    t.notMatch(
      flat,
      /the page (?:imports|loads)[^.;]*\/assets\/protocol\//,
      `${file} does not say the page loads the protocol from /assets/protocol/`,
    );
  }
});
