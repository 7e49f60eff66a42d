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

t.test('the home page (issue 32) loads its own small module, within the same budget', async (t) => {
  const home = read('home.js').toString('utf8');
  t.notMatch(home, /(^|[;}\n])\s*import\s*[{*\w"']/, 'home.js imports nothing');
  t.notMatch(home, /\bimport\(/, 'and loads no chunk later');
  const gzip = gzipSync(read('home.js')).length;
  t.ok(gzip < 20 * 1024, `home.js gzip ${gzip} bytes: a front page, not the meeting client`);
  const recorded = JSON.parse(read('bundle-size.json').toString('utf8')) as { homeGzipBytes: number };
  t.equal(recorded.homeGzipBytes, gzip, 'the build reports its size too');
  t.notMatch(home, /RTCPeerConnection|WebSocket/, 'none of the meeting is in it');
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
