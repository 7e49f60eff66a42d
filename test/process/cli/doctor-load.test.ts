// Issue 30 point 4: `meetctl doctor` reads the tenants file as the daemon does, but only the daemon
// watches it: loading the doctor command must not load chokidar (nor its file watchers). A child
// Node process loads the built command with a resolve hook that records every module it resolves,
// and reports the CommonJS cache too, so a package reached through either loader shows.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';

const dist = fileURLToPath(new URL('../../../dist/', import.meta.url));

/** Every module URL (ES and CommonJS) a fresh Node process has loaded after importing `file` of dist/. */
async function modulesLoadedBy(t: Test, file: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-load-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'resolved.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function resolve(specifier, context, next) {',
      '  const found = await next(specifier, context);',
      `  appendFileSync(${JSON.stringify(log)}, found.url + '\\n');`,
      '  return found;',
      '}',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  const script = [
    "import { createRequire } from 'node:module';",
    `await import(${JSON.stringify(pathToFileURL(join(dist, file)).href)});`,
    'console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));',
  ].join('\n');
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 60_000 },
      (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
    ),
  );
  const required = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
  return [...readFileSync(log, 'utf8').split('\n').filter(Boolean), ...required.map((p) => pathToFileURL(p).href)];
}

const isChokidar = (url: string) => /\/node_modules\/(chokidar|readdirp)\//.test(url);

t.test('loading the doctor command does not load chokidar', async (t) => {
  const loaded = await modulesLoadedBy(t, 'cli/doctor.js');
  t.ok(
    loaded.some((u) => u.endsWith('/dist/ops/doctor/tenants.js')),
    'the tenants check is loaded (it reads the tenants file)',
  );
  t.ok(
    loaded.some((u) => u.endsWith('/dist/compat/tenants/parse.js')),
    'through the parser',
  );
  t.same(loaded.filter(isChokidar), [], 'and chokidar is not');
  t.notOk(
    loaded.some((u) => u.endsWith('/dist/compat/tenants/watch.js')),
    'nor the watcher',
  );
});

t.test('the check would see chokidar: loading the watcher loads it', async (t) => {
  const loaded = await modulesLoadedBy(t, 'compat/tenants/watch.js');
  t.ok(loaded.some(isChokidar), 'chokidar is among the modules the watcher loads');
});
