// The one table of who may import whom in src/ (issue 16, point 8). docs/architecture.md shows it
// rendered by renderLayerTable(); layers.test.ts reads every import of src/ with the TypeScript
// parser and fails on one this table does not allow. A rule changes here, on purpose, or not at all.
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a layer may import besides itself: a folder (`engine/`) or a file (`daemon/shutdown.ts`) of src/. */
export interface Target {
  readonly path: string;
  /** Only `import type` or `import()`: the importer must not load it at start. */
  readonly lazy?: true;
  /** Only this file (or folder) of the layer may import it. */
  readonly from?: string;
  readonly note?: string;
}

export interface Layer {
  readonly folder: string;
  readonly mayImport: readonly (string | Target)[];
  /** npm packages and Node built-ins (`node:*` for all of them). */
  readonly packages: readonly string[];
}

const node = 'node:*';

/**
 * Shared infrastructure of the process (atomic file writes, file owners and modes, the SQLite
 * opener and migrator, the request log and logger of both listeners, their "listening on" URL and
 * client key, the stop budget): the bottom of the house, importing no other layer of src/, so the
 * layers above share it without arrows between neighbours. Every layer may import it except those
 * that must stay free of I/O: protocol/ and web/ run in the browser, engine/ is plain TypeScript
 * behind its ports (no SQLite, no files).
 */
const platform = 'platform/';

/** Listed from the bottom of the house up; the few arrows between neighbours are files, each with its reason. */
export const layers: readonly Layer[] = [
  { folder: 'platform/', mayImport: [], packages: ['better-sqlite3', 'postgres', 'fastify', node] },
  { folder: 'protocol/', mayImport: [], packages: ['#typebox'] },
  { folder: 'config/', mayImport: [platform], packages: ['smol-toml', node] },
  { folder: 'engine/', mayImport: ['protocol/'], packages: ['node:crypto', 'jose'] },
  { folder: 'media/', mayImport: [platform, 'protocol/', 'engine/'], packages: ['node:net'] },
  { folder: 'store/', mayImport: [platform, 'engine/'], packages: ['better-sqlite3', 'postgres', node] },
  {
    folder: 'http/',
    mayImport: [platform, 'protocol/', 'engine/', 'config/'],
    packages: [
      'fastify',
      '@fastify/static',
      '@fastify/websocket',
      '@fastify/ajv-compiler',
      '@fastify/fast-json-stringify-compiler',
      '@fastify/proxy-addr',
      'ajv',
      'ws',
      'cookie',
      '#typebox',
      'openid-client',
      node,
    ],
  },
  {
    folder: 'compat/',
    mayImport: [platform, 'protocol/', 'engine/', 'config/'],
    packages: ['fastify', 'jose', 'xml2js', 'chokidar', 'smol-toml', 'pino', 'better-sqlite3', node],
  },
  { folder: 'licence/', mayImport: [platform], packages: ['jose', node] },
  {
    folder: 'ops/',
    mayImport: [
      platform,
      'config/',
      'licence/',
      { path: 'compat/tenants/parse.ts', note: 'reading the tenants file as the daemon does, without its watcher' },
    ],
    packages: ['smol-toml', node],
  },
  {
    folder: 'daemon/',
    mayImport: [platform, 'protocol/', 'config/', 'engine/', 'media/', 'store/', 'http/', 'compat/', 'licence/'],
    packages: ['pino', 'prom-client', 'nats', node],
  },
  {
    folder: 'cli/',
    mayImport: [
      platform,
      'config/',
      'ops/',
      'licence/',
      { path: 'compat/tenants/parse.ts', note: 'reading the tenants file, without its watcher' },
      { path: 'engine/errors.ts', note: 'naming an engine failure' },
      { path: 'daemon/', lazy: true, note: 'so the other commands start fast' },
    ],
    packages: ['commander', '@inquirer/prompts', node],
  },
  { folder: 'web/', mayImport: ['protocol/'], packages: ['lucide'] },
];

/** A known violation, kept so the check is green today; each names what removes it. */
export interface Allowed {
  readonly file: string;
  /** The imported src/ file, or the package. */
  readonly imports: string;
  readonly removedBy: string;
}

/**
 * Known violations kept so the check stays green while a fix lands; empty since issue 16 (every
 * arrow runs downward). A new entry names what removes it; a stale one fails the test.
 */
export const allowed: readonly Allowed[] = [];

export interface SourceFile {
  /** Relative to src/, with forward slashes: `http/app.ts`. */
  readonly path: string;
  readonly text: string;
}

export interface Import {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly kind: 'static' | 'type' | 'dynamic';
}

/** Every import of a file, read by the TypeScript parser: import/export … from, import(), import('x').T. */
export function importsOf(file: SourceFile): Import[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Node | undefined, kind: Import['kind']): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (specifier && ts.isStringLiteralLike(specifier))
      found.push({ file: file.path, line, specifier: specifier.text, kind });
    // A computed specifier cannot be checked, so it is reported as one nobody may import.
    else
      found.push({ file: file.path, line, specifier: `<computed: ${specifier?.getText(source) ?? 'nothing'}>`, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node))
      add(node, node.moduleSpecifier, node.importClause?.isTypeOnly ? 'type' : 'static');
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier)
      add(node, node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static');
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression, 'static');
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node, node.arguments[0], 'dynamic');
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, 'type');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What an import names: a src/ path (`http/app.ts`) or a package (`fastify`, `node:fs`). */
export function targetOf(imp: Import): { kind: 'src' | 'package'; name: string } {
  const s = imp.specifier;
  if (s.startsWith('.')) {
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(imp.file), s)).replace(/\.js$/, '.ts');
    return { kind: 'src', name: resolved };
  }
  if (s.startsWith('node:')) return { kind: 'package', name: s.split('/')[0]! };
  if (isBuiltin(s)) return { kind: 'package', name: `node:${s.split('/')[0]!}` };
  const parts = s.split('/');
  return { kind: 'package', name: s.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]! };
}

function layerOf(file: string, table: readonly Layer[]): Layer | undefined {
  return table.find((l) => file.startsWith(l.folder));
}

function within(file: string, target: string): boolean {
  return target.endsWith('/') ? file.startsWith(target) : file === target;
}

function describeTarget(t: string | Target): string {
  if (typeof t === 'string') return t;
  const conditions = [t.lazy ? 'lazily: import type or import()' : '', t.from ? `from ${t.from} only` : ''].filter(
    Boolean,
  );
  return conditions.length ? `${t.path} (${conditions.join('; ')})` : t.path;
}

/** The rule of a layer in one line, for a failure message and for docs/architecture.md. */
export function ruleOf(layer: Layer): string {
  const imports = layer.mayImport.length ? layer.mayImport.map(describeTarget).join(', ') : 'nothing else of src/';
  const packages = layer.packages.length ? layer.packages.join(', ') : 'no package';
  return `${layer.folder} may import itself, ${imports}; packages: ${packages}`;
}

/** Why an import breaks the table, or null when it may be there. */
export function breach(imp: Import, table: readonly Layer[] = layers): string | null {
  const layer = layerOf(imp.file, table);
  if (!layer) return `${imp.file} is in no layer of the table`;
  const target = targetOf(imp);
  if (target.kind === 'package') {
    const ok = layer.packages.some((p) => p === target.name || (p === node && target.name.startsWith('node:')));
    return ok ? null : `package ${target.name} is not among ${layer.folder}'s packages (${ruleOf(layer)})`;
  }
  if (target.name.startsWith('..')) return `${imp.specifier} leaves src/ (${ruleOf(layer)})`;
  if (target.name.startsWith(layer.folder)) return null;
  for (const rule of layer.mayImport) {
    const r: Target = typeof rule === 'string' ? { path: rule } : rule;
    if (!within(target.name, r.path)) continue;
    if (r.from && !within(imp.file, r.from)) return `only ${r.from} may import ${r.path} (${ruleOf(layer)})`;
    if (r.lazy && imp.kind === 'static')
      return `${r.path} may be imported only lazily, with import type or import() (${ruleOf(layer)})`;
    return null;
  }
  return `${target.name} is in no folder ${layer.folder} may import (${ruleOf(layer)})`;
}

export interface Finding {
  readonly imp: Import;
  readonly target: string;
  readonly rule: string;
}

export function check(
  files: readonly SourceFile[],
  table: readonly Layer[] = layers,
  allowList: readonly Allowed[] = allowed,
) {
  const violations: Finding[] = [];
  const used = new Set<Allowed>();
  for (const file of files) {
    for (const imp of importsOf(file)) {
      const rule = breach(imp, table);
      if (rule === null) continue;
      const target = targetOf(imp).name;
      const entry = allowList.find((a) => a.file === imp.file && a.imports === target);
      if (entry) used.add(entry);
      else violations.push({ imp, target, rule });
    }
  }
  return { violations, stale: allowList.filter((a) => !used.has(a)) };
}

export function describe(f: Finding): string {
  return `src/${f.imp.file}:${f.imp.line} imports '${f.imp.specifier}' (${f.target}): ${f.rule}`;
}

/** The table as docs/architecture.md shows it. */
export function renderLayerTable(table: readonly Layer[] = layers): string {
  const cell = (t: string | Target): string => {
    if (typeof t === 'string') return `\`${t}\``;
    const said = [
      t.lazy ? 'lazily: `import type` or `import()`' : '',
      t.from ? `from \`${t.from}\` only` : '',
      t.note ?? '',
    ].filter(Boolean);
    return said.length ? `\`${t.path}\` (${said.join('; ')})` : `\`${t.path}\``;
  };
  const rows = table.map((l) => {
    const imports = l.mayImport.map(cell).join(', ') || 'nothing else';
    return `| \`${l.folder}\` | ${imports} | ${l.packages.map((p) => `\`${p}\``).join(', ') || 'none'} |`;
  });
  return ['| Folder | May import, besides itself | Packages |', '|---|---|---|', ...rows].join('\n');
}

/** Every TypeScript file of src/ with its text, in path order (what the house tests read). */
export function sourcesOfSrc(): SourceFile[] {
  const src = fileURLToPath(new URL('../../../src/', import.meta.url));
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((p) => /\.(ts|mts|cts|tsx)$/.test(p))
    .map((p) => p.split('\\').join('/'))
    .sort()
    .map((p) => ({ path: p, text: readFileSync(`${src}${p}`, 'utf8') }));
}
