// Issue 30 point 6: no import cycle among the modules of src/ (test/unit/house/cycles.ts).
import t from 'tap';
import { cyclesOf } from './cycles.js';
import { sourcesOfSrc, type SourceFile } from './layers.js';

t.test('no module of src/ imports itself back, directly or through others', async (t) => {
  const files = sourcesOfSrc();
  t.ok(files.length > 100, `read ${files.length} files of src/`);
  t.same(
    cyclesOf(files).map((c) => c.map((p) => `src/${p}`).join(' → ')),
    [],
    'no import cycle: move what both sides need into a module below them',
  );
});

t.test('a cycle is found and named, however long; a type import makes one, import() does not', async (t) => {
  const file = (path: string, ...lines: string[]): SourceFile => ({ path, text: lines.join('\n') });
  const files = [
    file('a/one.ts', "import { two } from './two.js';"),
    file('a/two.ts', "export { one } from './one.js';"),
    file('b/x.ts', "import { y } from '../b/y.js';"),
    file('b/y.ts', "import { z } from './z.js';"),
    file('b/z.ts', "import { x } from './x.js';", "import { one } from '../a/one.js';"),
    file('c/self.ts', "import { me } from './self.js';"),
    file('d/p.ts', "import { q } from './q.js';"),
    file('d/q.ts', "import type { P } from './p.js';"),
    file('e/p.ts', "import { q } from './q.js';"),
    file('e/q.ts', "export const later = () => import('./p.js');"),
  ];
  t.same(cyclesOf(files), [
    ['a/one.ts', 'a/two.ts', 'a/one.ts'],
    ['b/x.ts', 'b/y.ts', 'b/z.ts', 'b/x.ts'],
    ['c/self.ts', 'c/self.ts'],
    ['d/p.ts', 'd/q.ts', 'd/p.ts'],
  ]);
});
