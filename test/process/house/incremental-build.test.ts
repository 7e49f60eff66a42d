// Issue 29 point 19: `npm start` (prestart: `npm run build`) builds only what changed. The
// build runs for real in a copy of the sources (this checkout's dist/ is what the other test
// files run, so it is left alone): a first build, a second that must not write a single file,
// then one server source and one web source changed in turn.
// The copy starts from this checkout's dist/ as its last build left it, times kept, minus the
// bundle (issue 30 point 1): a compile from nothing cost this file about 26 CPU-s, and every build
// of a clean clone (CI's first step) is one. tsc's record names its library files by a path
// relative to dist/, through the node_modules the copy links to: that path is rewritten to the
// copy's, as tsc would have written it there (a wrong one makes tsc compile and write everything,
// which the checks below refuse).
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

t.setTimeout(600_000);

const root = fileURLToPath(new URL('../../..', import.meta.url));

interface Build {
  code: number;
  output: string;
  seconds: number;
}

function build(cwd: string): Promise<Build> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'build', '--no-update-notifier'],
      { cwd, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({
          code: typeof error?.code === 'number' ? error.code : error ? 1 : 0,
          output: `${stdout}${stderr}`,
          seconds: (performance.now() - started) / 1000,
        }),
    );
  });
}

/** Every file under dist/ with its modification time. */
function outputs(dir: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.set(relative(dir, path), statSync(path).mtimeMs);
    }
  };
  walk(dir);
  return found;
}

/** The files written (new or with a new time) between two listings. */
function written(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([file, time]) => before.get(file) !== time).map(([file]) => file);
}

t.test('a build with nothing changed writes nothing; a change rebuilds what it touches', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'meet-build-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  for (const path of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'dist'])
    cpSync(join(root, path), join(work, path), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  const dist = join(work, 'dist');
  rmSync(join(dist, 'web'), { recursive: true, force: true });
  const record = join(dist, '.tsbuildinfo');
  const { atime, mtime } = statSync(record);
  const modules = relative(dist, realpathSync(join(root, 'node_modules')));
  writeFileSync(record, readFileSync(record, 'utf8').replaceAll('"../node_modules/', `"${modules}/`));
  utimesSync(record, atime, mtime);
  const seeded = outputs(dist);

  const first = await build(work);
  t.equal(first.code, 0, first.code === 0 ? 'the first build (the bundle gone)' : first.output);
  t.match(first.output, /web client: [\d.]+ KB/, 'the first build bundles the web client');
  const built = outputs(dist);
  t.ok(
    built.has('cli/main.js') &&
      built.has('web/main.js') &&
      built.has('store/migrations/001-rooms-and-access-tokens.sql'),
    'compiled code, bundle and assets are all there',
  );
  t.same(
    written(seeded, built).filter((file) => !file.startsWith('web/')),
    [],
    'with only the bundle gone, only the bundle (and its static files) is written',
  );

  const second = await build(work);
  t.equal(second.code, 0, second.code === 0 ? 'the second build' : second.output);
  t.comment(`first build ${first.seconds.toFixed(1)} s, second ${second.seconds.toFixed(1)} s`);
  t.same(
    written(built, outputs(dist)),
    [],
    'the second build writes no file: nothing compiled, bundled or copied again',
  );
  t.same([...outputs(dist).keys()].sort(), [...built.keys()].sort(), 'and removes none');
  t.match(second.output, /web client: up to date/, 'it says the bundle is up to date');

  // A server source: its own output is emitted again, the rest of dist/ (bundle included) stays as it is.
  appendFileSync(join(work, 'src/config/version.ts'), '// changed by the incremental build test\n');
  const server = await build(work);
  t.equal(server.code, 0, server.code === 0 ? 'the build after a server source changed' : server.output);
  const afterServer = outputs(dist);
  t.match(
    readFileSync(join(dist, 'config/version.js'), 'utf8'),
    /changed by the incremental build test/,
    'the changed source is compiled again',
  );
  t.same(
    written(built, afterServer).filter((file) => !file.startsWith('config/version.js') && file !== '.tsbuildinfo'),
    [],
    'nothing else is written',
  );
  t.match(server.output, /web client: up to date/, 'the bundle is left as it is');

  // A web source: the bundle is made again, the compiled server code is not.
  appendFileSync(join(work, 'src/web/ticker.ts'), '// changed by the incremental build test\n');
  const web = await build(work);
  t.equal(web.code, 0, web.code === 0 ? 'the build after a web source changed' : web.output);
  const afterWeb = outputs(dist);
  t.match(web.output, /web client: [\d.]+ KB/, 'the web client is bundled again');
  t.ok(written(afterServer, afterWeb).includes('web/ticker.js'), 'the changed entry is written again');
  t.same(
    written(afterServer, afterWeb).filter((file) => !file.startsWith('web/')),
    [],
    'no compiled server file is written',
  );
});
