// Issue 30 point 6: every name src/ exports is used by somebody: imported, or used in its own
// module. An export nothing uses is dead code that looks alive (the compiler's unused-locals
// check skips it because it is exported, and it cannot be deleted without a search). Users are src/, test/, bench/, scripts/ and bin/; a path through dist/ (bin/meetctl.js,
// the scripts) counts as the src/ file it is built from.
import ts from 'typescript';
import path from 'node:path';

export interface Module {
  /** From the repository root, with forward slashes: `src/http/app.ts`, `test/x.test.ts`. */
  readonly path: string;
  readonly text: string;
}

/** Every name a module may be asked for: `*` when the user takes the whole module (namespace, export *, bare import()). */
export type Uses = Map<string, Set<string>>;

/** Each module parsed once: unusedExports reads every src/ file three times (uses, local names, exports). */
const parsed = new WeakMap<Module, ts.SourceFile>();

function sourceOf(file: Module): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    parsed.set(file, source);
  }
  return source;
}

/** The src/ file a relative specifier names, or null (a package, or outside src/ and dist/). */
export function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const src = joined.replace(/^dist\//, 'src/');
  if (!src.startsWith('src/')) return null;
  return src.replace(/\.(m?)js$/, '.$1ts');
}

function hasExport(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isDefault(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  );
}

/** The names a src/ module exports itself (declarations, `export { a }`, re-exports by name), each with its line. */
export function exportsOf(file: Module): Map<string, number> {
  const source = sourceOf(file);
  const names = new Map<string, number>();
  const add = (name: string, node: ts.Node) =>
    names.set(name, source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
  for (const statement of source.statements) {
    if (ts.isExportAssignment(statement)) add('default', statement);
    else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) add(element.name.text, element);
    } else if (hasExport(statement)) {
      if (isDefault(statement)) add('default', statement);
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) add(declaration.name.text, declaration);
          else
            for (const element of declaration.name.elements)
              if (ts.isBindingElement(element) && ts.isIdentifier(element.name)) add(element.name.text, element);
        }
      } else {
        const name = (statement as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) add(name.text, statement);
      }
    }
  }
  return names;
}

/** What each module of src/ is asked for by this file: named imports, re-exports, `import('x').T`, and whole-module uses. */
export function usesOf(file: Module, uses: Uses = new Map()): Uses {
  const source = sourceOf(file);
  const use = (specifier: ts.Node | undefined, name: string) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const target = resolve(file.path, specifier.text);
    if (!target) return;
    if (!uses.has(target)) uses.set(target, new Set());
    uses.get(target)!.add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (!clause)
        use(node.moduleSpecifier, '*'); // import './x.js' runs it for its effects
      else {
        if (clause.name) use(node.moduleSpecifier, 'default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) use(node.moduleSpecifier, '*');
        else if (bindings)
          for (const element of bindings.elements)
            use(node.moduleSpecifier, (element.propertyName ?? element.name).text);
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) use(node.moduleSpecifier, '*');
      else
        for (const element of clause.elements) use(node.moduleSpecifier, (element.propertyName ?? element.name).text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const first = node.qualifier && (ts.isIdentifier(node.qualifier) ? node.qualifier : leftmost(node.qualifier));
      use(node.argument.literal, first ? first.text : '*');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      // import() of a module: it may take anything of it (a lazily loaded command, a mocked module).
      use(node.arguments[0], '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

function leftmost(name: ts.EntityName): ts.Identifier {
  return ts.isIdentifier(name) ? name : leftmost(name.left);
}

/**
 * Exports nobody imports by name, yet kept on purpose: each names why. A module loaded by a path
 * the parser cannot follow (an esbuild entry of the web bundle, a worker) belongs here, not in a
 * wider rule. A stale entry fails the test.
 */
export interface Kept {
  readonly file: string;
  readonly name: string;
  readonly why: string;
}

export const kept: readonly Kept[] = [];

export interface Unused {
  readonly file: string;
  readonly line: number;
  readonly name: string;
}

/**
 * Names the module itself mentions besides declaring or exporting them. An export used inside its
 * own module is alive (only its `export` may be more than it needs, which this check leaves to
 * review); one that nothing mentions anywhere is dead code.
 */
export function namesUsedIn(file: Module): Set<string> {
  const source = sourceOf(file);
  const used = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const declares =
        ts.isExportSpecifier(parent) ||
        ((ts.isFunctionDeclaration(parent) ||
          ts.isClassDeclaration(parent) ||
          ts.isInterfaceDeclaration(parent) ||
          ts.isTypeAliasDeclaration(parent) ||
          ts.isEnumDeclaration(parent) ||
          ts.isVariableDeclaration(parent) ||
          ts.isBindingElement(parent)) &&
          parent.name === node);
      if (!declares) used.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

/** The exports of src/ that no module of `users` imports and their own module does not use either. */
export function unusedExports(sources: readonly Module[], users: readonly Module[], keep: readonly Kept[] = kept) {
  const uses: Uses = new Map();
  for (const user of users) usesOf(user, uses);
  const unused: Unused[] = [];
  const keptUsed = new Set<Kept>();
  for (const file of sources) {
    const asked = uses.get(file.path);
    if (asked?.has('*')) continue;
    const local = namesUsedIn(file);
    for (const [name, line] of exportsOf(file)) {
      if (asked?.has(name) || local.has(name)) continue;
      const entry = keep.find((k) => k.file === file.path && k.name === name);
      if (entry) keptUsed.add(entry);
      else unused.push({ file: file.path, line, name });
    }
  }
  return { unused, stale: keep.filter((k) => !keptUsed.has(k)) };
}
