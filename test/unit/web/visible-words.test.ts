// Issue 17, point 8: the page's visible words come from the catalogue (src/web/words/), not from
// literals in the code. This reads every file of src/web with the TypeScript parser and looks at
// the places a text reaches a person: el()'s text and children, the accessible names and
// tooltips, button/tool/field/badge labels, textContent and document.title, announcements and the
// messages the page leaves on. A literal there may hold no letter (': ', ' ' are fine).
import t from 'tap';
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../../../src/web/', import.meta.url));
/** The catalogue itself, and the embedding API's script (it speaks to developers through console and Error, never to the person). */
const skipped = (file: string) => file.startsWith('words/') || file.startsWith('embed/') || file === 'embed-bridge.ts';

const visibleProperties = new Set([
  'text',
  'aria-label',
  'title',
  'placeholder',
  'alt',
  'aria-description',
  'aria-roledescription',
  'what',
]);
/** Functions whose arguments (by index) are shown or spoken. */
const visibleArguments: Record<string, readonly number[]> = {
  button: [0],
  tool: [0],
  set: [0],
  field: [0, 2],
  badge: [0],
  announce: [0],
  message: [0],
  left: [0],
  refused: [0],
  joiningAs: [0],
};
const visibleAssignments = new Set(['textContent', 'innerText', 'title', 'ariaLabel']);

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** The letters of the literal parts of an expression (conditionals, concatenations and templates looked into). */
function literalsOf(node: ts.Expression): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
  if (ts.isParenthesizedExpression(node)) return literalsOf(node.expression);
  if (ts.isConditionalExpression(node)) return [...literalsOf(node.whenTrue), ...literalsOf(node.whenFalse)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.PlusToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(
      node.operatorToken.kind,
    )
  ) {
    return [...literalsOf(node.left), ...literalsOf(node.right)];
  }
  return [];
}

function calleeName(call: ts.CallExpression): string {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return '';
}

function findings(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: Finding[] = [];
  const check = (expression: ts.Expression) => {
    for (const text of literalsOf(expression)) {
      if (/\p{L}/u.test(text))
        found.push({ file, line: sf.getLineAndCharacterOfPosition(expression.getStart()).line + 1, text });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node)) {
      const name = ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : '';
      if (visibleProperties.has(name)) check(node.initializer);
    } else if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      for (const index of Object.hasOwn(visibleArguments, name) ? visibleArguments[name]! : []) {
        const arg = node.arguments[index];
        if (arg) check(arg);
      }
      // el(tag, attrs, ...children): a child string is text on the page.
      if (name === 'el') node.arguments.slice(2).forEach(check);
      if (
        name === 'setAttribute' &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0]) &&
        visibleProperties.has(node.arguments[0].text)
      ) {
        if (node.arguments[1]) check(node.arguments[1]);
      }
      if (['append', 'replaceChildren', 'prepend', 'createTextNode'].includes(name)) node.arguments.forEach(check);
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left)
    ) {
      if (visibleAssignments.has(node.left.name.text)) check(node.right);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const files = readdirSync(web, { recursive: true, encoding: 'utf8' })
  .map((p) => p.split('\\').join('/'))
  .filter((p) => p.endsWith('.ts') && !skipped(p))
  .sort();

t.test('no visible text of the page is a literal in the code', async (t) => {
  t.ok(files.length > 20, `read ${files.length} files of src/web`);
  const all = files.flatMap((file) => findings(file, readFileSync(`${web}${file}`, 'utf8')));
  t.same(
    all.map((f) => `src/web/${f.file}:${f.line}: ${JSON.stringify(f.text)}`),
    [],
    'every word shown, named or announced comes from src/web/words/',
  );
});

t.test('the scan finds the literals it is meant to find', async (t) => {
  const sample = [
    "el('h1', { text: 'Join a meeting' });",
    "button('Admit', go, { 'aria-label': `Admit ${name}` });",
    "announce(on ? 'Microphone on' : said.off);",
    "node.textContent = 'Loading';",
    "el('p', {}, 'Joining as ', strong);",
    "b.setAttribute('aria-label', 'Close');",
    "field('Your name', input, 'Up to 64 characters.');",
    'document.title = `${subject} – Meeting`;',
  ].join('\n');
  t.same(
    findings('sample.ts', sample).map((f) => f.text),
    [
      'Join a meeting',
      'Admit',
      'Admit ',
      'Microphone on',
      'Loading',
      'Joining as ',
      'Close',
      'Your name',
      'Up to 64 characters.',
      ' – Meeting',
    ],
  );
  const fine =
    "el('h1', { class: 'title', text: words.page.title }); el('span', {}, `${said.waited}: `); tool(said.mute, 'mic', 'M', go);";
  t.same(findings('fine.ts', fine), [], 'class names, icon names, keys and punctuation are not words shown');
});
