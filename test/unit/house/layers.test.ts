// Issue 16, point 8: no import in src/ breaks the table of layers (test/unit/house/layers.ts).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  allowed,
  breach,
  check,
  describe,
  importsOf,
  layers,
  renderLayerTable,
  sourcesOfSrc,
  type Allowed,
  type Layer,
  type SourceFile,
  type Target,
} from './layers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

t.test('every import in src/ is one its layer may make', async (t) => {
  const files = sourcesOfSrc();
  t.ok(files.length > 100, `read ${files.length} files of src/`);
  t.ok(
    files.every((f) => layers.some((l) => f.path.startsWith(l.folder))),
    'every file of src/ is in a layer of the table',
  );
  const { violations, stale } = check(files);
  t.same(violations.map(describe), [], 'no import outside the table and its allow-list');
  t.same(
    stale.map(
      (a) =>
        `allow-list entry src/${a.file} → ${a.imports} matches no import any more (${a.removedBy}): delete it from test/unit/house/layers.ts`,
    ),
    [],
    'every allow-list entry is still needed',
  );
  t.same(allowed, [], 'no known violation is left: every arrow runs downward (issue 16, done when)');
});

t.test('a new file that breaks the table fails, naming the file, the import and the rule', async (t) => {
  const offender: SourceFile = {
    path: 'engine/rooms/sneaky.ts',
    text: [
      "import type { Services } from '../../daemon/services.js';",
      "import Fastify from 'fastify';",
      "export { openDatabase } from '../../store/database.js';",
      "import { roomIdPattern } from './room-fields.js';",
      "import { randomBytes } from 'node:crypto';",
      'export async function later(): Promise<unknown> {',
      "  return import('../../http/app.js');",
      '}',
      "export type Wire = import('../../http/live/protocol.js').ServerMessage;",
    ].join('\n'),
  };
  const { violations } = check([offender]);
  t.same(
    violations.map((v) => [v.imp.line, v.imp.kind, v.target]),
    [
      [1, 'type', 'daemon/services.ts'],
      [2, 'static', 'fastify'],
      [3, 'static', 'store/database.ts'],
      [7, 'dynamic', 'http/app.ts'],
      [9, 'type', 'http/live/protocol.ts'],
    ],
    'type, static, re-export, dynamic and type-position imports are all read; its own folder and node:crypto pass',
  );
  t.equal(
    describe(violations[0]!),
    "src/engine/rooms/sneaky.ts:1 imports '../../daemon/services.js' (daemon/services.ts): daemon/services.ts is in no folder engine/ may import " +
      '(engine/ may import itself, protocol/; packages: node:crypto, jose)',
  );
  t.match(
    describe(violations[1]!),
    /^src\/engine\/rooms\/sneaky\.ts:2 imports 'fastify' \(fastify\): package fastify is not among engine\/'s packages/,
  );
});

t.test('a rule with a condition: lazily, or from one file only', async (t) => {
  const cli = (text: string) => importsOf({ path: 'cli/serve.ts', text })[0]!;
  t.match(
    breach(cli("import { serve } from '../daemon/run.js';")),
    /daemon\/ may be imported only lazily/,
    'the CLI may not load the daemon at start',
  );
  t.equal(breach(cli("import type { Services } from '../daemon/services.js';")), null, 'a type import is lazy');
  t.equal(breach(cli("const run = await import('../daemon/run.js');")), null, 'import() is lazy');
  // No rule of today's table names `from`; a table of two layers shows it still holds.
  const table: Layer[] = [
    { folder: 'platform/', mayImport: [], packages: [] },
    { folder: 'compat/', mayImport: [{ path: 'platform/sqlite.ts', from: 'compat/store/' }], packages: [] },
  ];
  const compat = (file: string, text: string) => importsOf({ path: file, text })[0]!;
  t.equal(
    breach(compat('compat/store/compat-store.ts', "import { openDurable } from '../../platform/sqlite.js';"), table),
    null,
    'the named folder may',
  );
  t.match(
    breach(compat('compat/app.ts', "import { openDurable } from '../platform/sqlite.js';"), table),
    /^only compat\/store\/ may import platform\/sqlite\.ts/,
    'nothing else of the layer does',
  );
  const computed = importsOf({ path: 'http/app.ts', text: 'const name = "x"; await import(name);' })[0]!;
  t.match(breach(computed), /<computed: name>/, 'an import() the check cannot read is refused');
});

// Issue 30 point 4: shared infrastructure is one layer at the bottom, not arrows between neighbours.
t.test('platform/ is the bottom: it imports no other layer, and the layers above may import it', async (t) => {
  const at = (file: string, text: string) => importsOf({ path: file, text })[0]!;
  t.match(
    breach(at('platform/sqlite.ts', "import type { ListenAddress } from '../config/parsers.js';")),
    /config\/parsers\.ts is in no folder platform\/ may import \(platform\/ may import itself, nothing else of src\//,
    'platform/ imports nothing above it',
  );
  for (const [file, spec] of [
    ['licence/installation.ts', '../platform/atomic-file.js'],
    ['ops/systemd-unit.ts', '../platform/stop-budget.js'],
    ['compat/store/compat-store.ts', '../../platform/sqlite.js'],
    ['compat/app.ts', '../platform/request-logger.js'],
    ['http/room/room-routes.ts', '../../platform/client-key.js'],
    ['daemon/run.ts', '../platform/migrate.js'],
    ['cli/install.ts', '../platform/atomic-file.js'],
  ] as const) {
    t.equal(breach(at(file, `import { x } from '${spec}';`)), null, `${file} may import ${spec}`);
  }
  t.match(
    breach(at('engine/rooms/x.ts', "import { openDurable } from '../../platform/sqlite.js';")),
    /no folder engine\/ may import/,
    'the engine stays free of I/O',
  );
  t.match(
    breach(at('web/x.ts', "import { clientKey } from '../platform/client-key.js';")),
    /no folder web\/ may import/,
    'and so does the page',
  );
});

t.test('at most 3 arrows between neighbours, each with its reason, and no two layers import each other', async (t) => {
  const layerFolders = layers.map((l) => l.folder);
  const arrows = layers.flatMap((l) =>
    l.mayImport
      .filter((r): r is Target => typeof r !== 'string' && !layerFolders.includes(r.path))
      .map((r) => ({ from: l.folder, ...r })),
  );
  t.ok(arrows.length <= 3, `file-level exceptions: ${arrows.map((a) => `${a.from} → ${a.path}`).join(', ')}`);
  t.ok(
    arrows.every((a) => (a.note ?? '').length > 0),
    'each names its reason',
  );
  const reaches = (from: Layer, to: Layer) =>
    from.mayImport.some((r) => (typeof r === 'string' ? r : r.path).startsWith(to.folder));
  const mutual = layers.flatMap((a) =>
    layers.filter((b) => a.folder < b.folder && reaches(a, b) && reaches(b, a)).map((b) => `${a.folder} ↔ ${b.folder}`),
  );
  t.same(mutual, [], 'every arrow between two layers runs one way (licence/ ↔ ops/ was the last pair)');
  const ops = (text: string) => importsOf({ path: 'ops/doctor/tenants.ts', text })[0]!;
  t.equal(
    breach(ops("import { readRegistryFile } from '../../compat/tenants/parse.js';")),
    null,
    'ops/ reads the tenants file',
  );
  t.match(
    breach(ops("import { watchTenants } from '../../compat/tenants/watch.js';")),
    /no folder ops\/ may import/,
    'but not through the watcher',
  );
});

t.test('an allow-list entry that no longer matches an import is reported', async (t) => {
  const fixed: SourceFile = {
    path: 'media/signal-data.ts',
    text: "import type { Signal } from '../protocol/live.js';",
  };
  const entry: Allowed = {
    file: 'media/signal-data.ts',
    imports: 'http/live/protocol.ts',
    removedBy: 'the wire protocol moved down',
  };
  const { violations, stale } = check([fixed], layers, [entry]);
  t.same(violations, [], 'the fixed file passes');
  t.same(stale, [entry], 'and its entry is reported as no longer needed');
});

t.test('docs/architecture.md shows the table as it is here', async (t) => {
  const doc = readFileSync(`${root}docs/architecture.md`, 'utf8');
  t.ok(doc.includes(renderLayerTable()), 'the rendered table is in docs/architecture.md');
});
