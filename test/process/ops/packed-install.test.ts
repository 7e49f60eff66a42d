// Issue 29 point 17: the operator installs `npm pack`'s tarball with the README's command
// (`npm install -g --allow-scripts=better-sqlite3 ./meeting-service-*.tgz`). An installed
// package gets no `overrides` from its own package.json, so what npm resolves there is what
// an operator gets: this test installs the packed tarball into a temporary prefix and reads
// npm's own words and the tree it wrote.
//
// Two installs, both from the registry (the cache after the first): a dry run of the README's
// command, which resolves the whole tree and says what it would warn about (engines and the
// install-script review of npm 10.10+/11) without compiling better-sqlite3 (80 s and more);
// then the same tree written with --ignore-scripts, whose packages' `engines` are checked
// against the Node that installed them (each CI leg: 20 and 24), and whose `meetctl --version` must run.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

t.setTimeout(600_000);

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ownPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string };
};
/** The oldest release of each Node line the README promises (20.19+, 22.13+, 24). */
const promised = ['20.19.0', '22.13.0', '24.0.0'];
const semver = createRequire(join(root, 'package.json'))('semver') as {
  satisfies(version: string, range: string): boolean;
};

interface Run {
  code: number;
  output: string;
}

function npm(args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      [...args, '--no-audit', '--no-fund', '--no-update-notifier'],
      { cwd, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** An assertion message: what was run, with npm's words only when it failed. */
const said = (what: string, run: Run) => (run.code === 0 ? what : `${what}:\n${run.output}`);

/** npm's warning lines (what an operator would call noise). */
const warnings = (output: string) => output.split('\n').filter((line) => /^npm warn /i.test(line));

/** Every package.json under a node_modules tree, nested ones included. */
function installedPackages(dir: string): { name: string; version: string; engines?: { node?: string } }[] {
  const found: { name: string; version: string; engines?: { node?: string } }[] = [];
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      found.push(...installedPackages(path));
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) found.push(JSON.parse(readFileSync(manifest, 'utf8')) as (typeof found)[number]);
    found.push(...installedPackages(join(path, 'node_modules')));
  }
  return found;
}

t.test('the packed tarball installs on every promised Node line without npm warnings', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'meet-pack-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));

  // The tests run after the build (pretest): pack what is built, without building again under the other test files' feet.
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  t.equal(packed.code, 0, said('npm pack', packed));
  const [{ filename, files }] = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as [
    { filename: string; files: { path: string }[] },
  ];
  const tarball = join(work, filename);
  t.ok(existsSync(tarball), `npm pack wrote ${filename}`);
  t.same(
    files.map((file) => file.path).filter((path) => /\.tsbuildinfo$|\.inputs\.json$/.test(path)),
    [],
    "the build's own records (what it compiled and bundled from) are not shipped",
  );

  for (const node of promised)
    t.ok(
      semver.satisfies(node, ownPackage.engines.node),
      `our own engines (${ownPackage.engines.node}) take Node ${node}`,
    );

  const dryPrefix = join(work, 'dry');
  mkdirSync(join(dryPrefix, 'lib'), { recursive: true });
  const readme = await npm(
    ['install', '-g', '--prefix', dryPrefix, '--dry-run', '--allow-scripts=better-sqlite3', tarball],
    work,
  );
  t.equal(readme.code, 0, said("the README's install command (a dry run)", readme));
  t.notMatch(readme.output, /EBADENGINE/, 'no dependency asks for a newer Node than this one');
  t.notMatch(
    readme.output,
    /install-scripts/,
    'no install script left for the operator to review: better-sqlite3 is allowed, and the package has none of its own',
  );
  t.same(warnings(readme.output), [], "the README's install command prints no npm warning");

  const prefix = join(work, 'prefix');
  const installed = await npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', tarball], work);
  t.equal(installed.code, 0, said('the install into a temporary prefix', installed));
  t.notMatch(installed.output, /EBADENGINE/, 'no EBADENGINE when the tree is written either');

  const tree = installedPackages(join(prefix, 'lib', 'node_modules', ownPackage.name, 'node_modules'));
  t.ok(tree.length > 50, `the installed tree has its ${tree.length} packages`);
  // npm picks, for each dependency, the newest version whose engines take the Node running the
  // install (@inquirer's latest want ^24.15 on Node 24.21, its older ones take 20): the tree differs
  // per Node, so each CI leg proves its own Node takes every package it installed.
  const running = process.versions.node;
  const refusing = tree.flatMap((pkg) => {
    const range = pkg.engines?.node;
    return range && !semver.satisfies(running, range)
      ? [`${pkg.name}@${pkg.version} wants ${range}, not ${running}`]
      : [];
  });
  t.same(refusing, [], `every installed package takes the Node that installed it (${running})`);

  const version = await new Promise<Run>((resolve) =>
    execFile(join(prefix, 'bin', 'meetctl'), ['--version'], (error, stdout, stderr) =>
      resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` }),
    ),
  );
  t.equal(version.code, 0, said('meetctl --version', version));
  t.equal(version.output.trim(), ownPackage.version, 'the installed meetctl runs and names its version');
});
