// Issue 30 point 6: the engine reads the time only from its injected Clock, so every state
// machine runs under a fake clock in tests. Any reading of the real clock in src/engine (outside
// the clock module itself) fails here, found by the TypeScript parser rather than a regex, so a
// comment or a string naming Date.now() passes and `const now = Date.now` does not.
import t from 'tap';
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const engine = fileURLToPath(new URL('../../../src/engine/', import.meta.url));

/** The module that defines the Clock port; the real clock itself is wired in by the daemon. */
const clockModule = 'clock.ts';

/** Each place a file reads the real clock: `Date.now` (called or not), `new Date()` and `Date()` without an argument. */
function clockReads(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `src/engine/${path}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const isDate = (node: ts.Node) => ts.isIdentifier(node) && node.text === 'Date';
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isDate(node.expression) && node.name.text === 'now')
      found.push(`${at(node)}: Date.now`);
    else if (ts.isNewExpression(node) && isDate(node.expression) && !node.arguments?.length)
      found.push(`${at(node)}: new Date()`);
    else if (ts.isCallExpression(node) && isDate(node.expression)) found.push(`${at(node)}: Date()`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('nothing in src/engine reads the real clock outside the clock module', async (t) => {
  const files = readdirSync(engine, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split('\\').join('/'))
    .filter((p) => /\.(ts|mts|cts|tsx)$/.test(p) && p !== clockModule)
    .sort();
  t.ok(files.length > 50, `read ${files.length} files of src/engine`);
  t.same(
    files.flatMap((p) => clockReads(p, readFileSync(`${engine}${p}`, 'utf8'))),
    [],
    'time comes from the injected Clock (clock.now()), never from Date.now() or new Date()',
  );
});

t.test('every way of reading the clock is found; a date from a value and a mention in text are not', async (t) => {
  const text = [
    'export const a = Date.now();',
    'export const b = new Date();',
    'export const c = new Date;',
    'export const d = Date();',
    'export const e = Date.now;',
    'export const f = new Date(0);',
    'export const g = new Date(clock.now().getTime() + 1000);',
    "export const h = 'Date.now()'; // new Date()",
    'export const i = Date.parse("2026-01-01");',
  ].join('\n');
  t.same(clockReads('rooms/sneaky.ts', text), [
    'src/engine/rooms/sneaky.ts:1: Date.now',
    'src/engine/rooms/sneaky.ts:2: new Date()',
    'src/engine/rooms/sneaky.ts:3: new Date()',
    'src/engine/rooms/sneaky.ts:4: Date()',
    'src/engine/rooms/sneaky.ts:5: Date.now',
  ]);
});
