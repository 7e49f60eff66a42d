// Issue 30 point 6: no export of src/ that nothing imports (test/unit/house/exports.ts).
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kept, unusedExports, type Module } from './exports.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function modules(folder: string, pattern: RegExp): Module[] {
  return readdirSync(`${root}${folder}`, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split('\\').join('/'))
    .filter((p) => pattern.test(p) && !p.split('/').some((part) => part === 'node_modules' || part === 'dist'))
    .sort()
    .map((p) => ({ path: `${folder}/${p}`, text: readFileSync(`${root}${folder}/${p}`, 'utf8') }));
}

t.test(
  'every export of src/ is imported by src/, test/, bench/, scripts/ or bin/, or used in its own module',
  async (t) => {
    const sources = modules('src', /\.(ts|mts|cts|tsx)$/);
    const users = [
      ...sources,
      ...['test', 'bench', 'scripts', 'bin'].flatMap((folder) => modules(folder, /\.(ts|mts|tsx|js|mjs)$/)),
    ];
    t.ok(sources.length > 100, `read ${sources.length} files of src/ and ${users.length - sources.length} others`);
    const { unused, stale } = unusedExports(sources, users);
    t.same(
      unused.map((u) => `${u.file}:${u.line} exports ${u.name}, which nothing imports or uses`),
      [],
      'no unused export: delete it, drop its export keyword, or keep it in test/unit/house/exports.ts saying why',
    );
    t.same(
      stale.map((k) => `kept ${k.file} ${k.name} (${k.why}) is imported now, or gone: delete its entry`),
      [],
      'every kept entry is still needed',
    );
    t.comment(`${kept.length} export(s) kept without an importer`);
  },
);

t.test(
  'an import, a re-export, a type import, a whole-module use and a use in its own module each count',
  async (t) => {
    const file = (path: string, ...lines: string[]): Module => ({ path, text: lines.join('\n') });
    const sources = [
      file(
        'src/a.ts',
        'export const used = 1;',
        'export function unused() { return used; }',
        'export { used as alias };',
        'export const local = 2;',
        'export function deadToo() {}',
        'export const twice = local * 2;',
      ),
      file(
        'src/b.ts',
        'export interface Shape {}',
        'export type Named = string;',
        'export class Kept {}',
        'export default 1;',
      ),
      file('src/c.ts', 'export const anything = 1;'),
      file('src/d.ts', 'export const lazy = 1;'),
      file('src/e.ts', 'export const fromBin = 1;'),
      file('src/g.ts', "export { used } from './a.js';"),
    ];
    const users = [
      ...sources,
      file(
        'src/f.ts',
        "import { used, alias } from './a.js';",
        "export type { Shape } from './b.js';",
        "type T = import('./b.js').Named;",
      ),
      file('test/x.test.ts', "import * as c from '../src/c.js';", "const d = await import('../src/d.js');"),
      file('bin/meetctl.js', "import { fromBin } from '../dist/e.js';"),
    ];
    const { unused, stale } = unusedExports(sources, users, [
      { file: 'src/b.ts', name: 'Kept', why: 'a fixture' },
      { file: 'src/c.ts', name: 'x', why: 'gone' },
    ]);
    t.same(
      unused.map((u) => `${u.file}:${u.line} ${u.name}`),
      ['src/a.ts:2 unused', 'src/a.ts:5 deadToo', 'src/a.ts:6 twice', 'src/b.ts:4 default', 'src/g.ts:1 used'],
    );
    t.same(stale, [{ file: 'src/c.ts', name: 'x', why: 'gone' }], 'a kept entry nothing needs is reported');
  },
);
