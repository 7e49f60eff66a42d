// better-sqlite3 12 objects collected by a garbage collection that runs outside a JS context abort
// Node 24 (platform/sqlite.ts). Every statement made through `prepare` is kept for the life of the
// process; `db.pragma()` (a statement per call, made outside that prepare), `.iterate()` (an
// iterator left unfinished across an await) and `.backup()` (a Backup object) are not, and each has
// aborted a Node 24 CI leg. Found by the TypeScript parser, so a comment naming them passes.
import t from 'tap';
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const folders = ['src', 'test', 'bench', 'scripts'];
const forbidden = new Set(['pragma', 'iterate', 'backup']);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Each call `x.pragma(…)`, `x.iterate(…)` or `x.backup(…)` in a file. */
function calls(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      forbidden.has(node.expression.name.text)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${relative(root, path)}:${line}: .${node.expression.name.text}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('no better-sqlite3 object the process does not keep: no .pragma(), .iterate() or .backup() calls', async (t) => {
  const found = folders.flatMap((folder) => [...sources(join(root, folder))].flatMap(calls));
  t.same(found, [], 'use readPragma/exec, .all() in pages, VACUUM INTO instead');
});
