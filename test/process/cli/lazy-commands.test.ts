// A meetctl run loads the module of the command it names and nothing of the others (src/cli/main.ts):
// `serve` reads neither the install's prompts nor, on a single node without the compat module, the
// NATS client, the meeting API's XML, the tenants' watcher or (no metrics listener) prom-client. Measured here by what the process
// imports (a resolve hook the test writes), with a control: help loads every command, prompts included.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { meetctl, startDaemon, stopDaemon } from '../../helpers/daemon.js';

/**
 * A file for `node --import`: it registers a resolve hook that appends every URL the process
 * imports to MODULE_LOG, one a line, without changing what the program does.
 */
function moduleLogger(): string {
  const dir = mkdtempSync(join(tmpdir(), 'module-log-'));
  writeFileSync(
    join(dir, 'hook.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, resolved.url + '\\n');
  return resolved;
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(new URL('./hook.mjs', import.meta.url));\n`,
  );
  return join(dir, 'register.mjs');
}

const register = moduleLogger();
const logged = (command: readonly string[]) => [command[0]!, '--import', register, ...command.slice(1)];

/** The packages of node_modules a log names (their first path part, with a scope). */
function packagesIn(log: string): Set<string> {
  const names = readFileSync(log, 'utf8')
    .split('\n')
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return new Set(names);
}

const notForServe = ['@inquirer/prompts', 'nats', 'xml2js', 'chokidar', 'prom-client'];

t.test('serve loads what it runs, not the other commands nor the modules a single node leaves off', async (t) => {
  const log = join(mkdtempSync(join(tmpdir(), 'module-log-')), 'serve.log');
  writeFileSync(log, '');
  const daemon = await startDaemon({ env: { MODULE_LOG: log }, launcher: logged });
  t.teardown(() => stopDaemon(daemon, 'SIGKILL'));
  t.equal((await daemon.api('/healthz')).status, 200, 'the daemon answers');
  const loaded = packagesIn(log);
  t.ok(
    loaded.has('fastify') && loaded.has('better-sqlite3'),
    'the log sees what serve needs (fastify, better-sqlite3)',
  );
  for (const name of notForServe) t.notOk(loaded.has(name), `serve did not load ${name}`);
});

t.test('help loads every command: the control for the test above', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const log = join(mkdtempSync(join(tmpdir(), 'module-log-')), 'help.log');
  writeFileSync(log, '');
  const help = execFileSync(process.execPath, ['--import', register, meetctl, '--help'], {
    env: { PATH: process.env.PATH ?? '', MODULE_LOG: log },
    encoding: 'utf8',
  });
  t.match(help, /install \[options\]/, 'help lists install');
  t.match(help, /cluster/, 'and cluster');
  t.ok(packagesIn(log).has('@inquirer/prompts'), 'help loaded the install command, prompts and all');
});
