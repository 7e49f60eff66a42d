import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import t from 'tap';

// Built by `npm run build` (scripts/build-web.mjs); the tests run after it (pretest).
const dist = new URL('../../../dist/web/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dist));
const budgetBytes = 150 * 1024;

t.test('the page loads one self-contained module within the JavaScript budget', async (t) => {
  const main = read('main.js').toString('utf8');
  t.notMatch(main, /(^|[;}\n])\s*import\s*[{*\w"']/, 'main.js imports nothing: the client is one bundle');
  t.notMatch(main, /\bimport\(/, 'and loads no chunk later');
  const gzip = gzipSync(read('main.js')).length + gzipSync(read('ticker.js')).length;
  t.ok(gzip < budgetBytes, `main.js + ticker.js gzip ${gzip} bytes < ${budgetBytes}`);
  const recorded = JSON.parse(read('bundle-size.json').toString('utf8')) as { gzipBytes: number };
  t.equal(recorded.gzipBytes, gzip, 'the build reports the size it produced');
});

t.test('only the icons the page uses are bundled, not the whole icon set', async (t) => {
  const main = read('main.js').toString('utf8');
  // lucide draws each icon from path data; the whole set is over 1,500 icons (several MB).
  const svgPaths = main.match(/\["path",/g)?.length ?? 0;
  t.ok(svgPaths > 0, 'the toolbar icons are there');
  t.ok(svgPaths < 200, `${svgPaths} path nodes: a handful of icons`);
});

t.test('the embed script stays a classic script with its page-origin mark', async (t) => {
  const api = read('embed/external-api.js').toString('utf8');
  t.notMatch(api, /^\s*(import|export)\b/m, 'no module syntax');
  t.match(api, /"__VIDEOMEET_PAGE_ORIGIN__"/, 'the mark the script route fills in');
  t.match(
    api.replace(/^"use strict";\s*/, ''),
    /^\(\(\) => \{/,
    'everything inside one function: no globals but the constructors',
  );
});
