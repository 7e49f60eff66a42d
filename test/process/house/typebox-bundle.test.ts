// The built tree imports typebox through package.json's "#typebox", which names the one-file
// bundle scripts/build-vendor.mjs writes: a daemon start read the package's 372 module files
// before. The bundle must hold every name of the package, and the daemon's modules must load it
// and never the package.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bundle = pathToFileURL(`${root}dist/vendor/typebox.js`).href;

/** Every module URL plain node (no test loader) resolves while it imports `entry` of the built tree. */
function resolvedWhileLoading(entry: string): string[] {
  const hooks =
    'let port; export function initialize(data) { port = data.port; } ' +
    'export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }';
  const script = `
    import { register } from 'node:module';
    const { port1, port2 } = new MessageChannel();
    const seen = [];
    port1.on('message', (url) => seen.push(url));
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(pathToFileURL(`${root}${entry}`).href)});
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    console.log(JSON.stringify(seen));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return JSON.parse(out) as string[];
}

t.test('the typebox bundle exports what the package does, and the daemon loads it, never the package', async (t) => {
  const bundled = (await import(bundle)) as Record<string, unknown>;
  const original = (await import('typebox')) as Record<string, unknown>;
  t.same(Object.keys(bundled).sort(), Object.keys(original).sort(), 'the same exported names');
  t.equal(typeof (bundled.Type as { Object?: unknown }).Object, 'function', 'Type.Object among them');

  const urls = resolvedWhileLoading('dist/daemon/engine.js');
  t.ok(urls.length > 100, `the daemon's listener resolves its modules (${urls.length})`);
  t.ok(urls.includes(bundle), 'the bundle among them');
  t.same(
    urls.filter((url) => url.includes('/node_modules/typebox/')),
    [],
    'and no module of the typebox package',
  );

  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
    imports: Record<string, Record<string, string>>;
  };
  t.same(manifest.imports['#typebox'], { types: 'typebox', source: 'typebox', default: './dist/vendor/typebox.js' });
});
