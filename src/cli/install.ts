import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { confirm } from '@inquirer/prompts';
import { Option, type Command } from 'commander';
import { packagedDefaultsFile } from '../config/load.js';
import { InvalidValue } from '../config/parsers.js';
import { settings } from '../config/settings.js';
import { publicKeyFor } from '../licence/installation.js';
import { licenceSummary } from '../licence/licence-status.js';
import { LicenceError, verifyServerKey, type Licence } from '../licence/server-key.js';
import { makeDirectory, withFileLock, LockTimeout } from '../platform/atomic-file.js';
import {
  compatInstallFiles,
  compatModule,
  compatUninstallFiles,
  installRows,
  resolveGenerated,
  roomDefaultsValues,
  type InstallRow,
  type ResolvedValue,
} from '../ops/compat-install.js';
import { EnvValueError } from '../ops/env-edit.js';
import { listenerKeys, loopbackDefault, resolveListeners, type ResolvedListener } from '../ops/listen-addresses.js';
import { applyFile, type FileOutcome, type PlannedFile } from '../ops/planned-files.js';
import { RuntimeSettingsError } from '../ops/runtime-checks.js';
import { runtimeFiles, runtimeNextSteps, type RuntimeSettings } from '../ops/runtime-files.js';
import { TomlEditError } from '../ops/toml-section.js';
import { attributeOf } from './config-options.js';
import { CliError } from './errors.js';
import { addLocationOptions, addSettingOption, installContext, type InstallContext } from './install-context.js';
import type { CliIo } from './io.js';
import { askValues, asGivenKeys, asGivenValues, serviceValuesOf, type ServiceValue } from './install-service-values.js';
import { licenceCliError, serverKeyFrom } from './server-key-input.js';
import { preflight } from './preflight.js';
import { mayPrompt, paint, step, unansweredError } from './ui.js';

const envTemplateFile = fileURLToPath(new URL('../../templates/meet.env', import.meta.url));
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const knownModules = [compatModule];

function checkModule(module: string): void {
  if (!knownModules.includes(module))
    throw new CliError('usage', `unknown module ${JSON.stringify(module)} (known: ${knownModules.join(', ')})`);
}

function lockFileOf(configDir: string): string {
  return join(configDir, '.meetctl-install.lock');
}

/** Runs `work` holding the config directory's install lock, so two installs never interleave their reads and writes. */
async function underInstallLock<T>(configDir: string, work: () => T | Promise<T>): Promise<T> {
  makeDirectory(configDir, 0o755);
  try {
    return await withFileLock(lockFileOf(configDir), work);
  } catch (err) {
    if (err instanceof LockTimeout)
      throw new CliError(
        'environment',
        `another meetctl install or uninstall holds ${err.lockFile}${err.holder ? ` (process ${err.holder})` : ''}`,
        'wait for it to finish and run the command again',
      );
    throw err;
  }
}

/** The answers to the yes/no questions of the module's rows: the flag, else an earlier install's env file, else asked. */
async function answerQuestions(
  rows: readonly InstallRow[],
  options: Record<string, unknown>,
  context: InstallContext,
  io: CliIo,
): Promise<Map<string, { value: string; source: 'answered' | 'kept' }>> {
  const answers = new Map<string, { value: string; source: 'answered' | 'kept' }>();
  for (const row of rows) {
    const question = row.install.confirm;
    if (!question) continue;
    const given = options[attributeOf(question.flag)];
    if (typeof given === 'boolean') {
      answers.set(row.env, { value: String(given), source: 'answered' });
      continue;
    }
    const earlier = context.existingEnvValues[row.env];
    if (earlier !== undefined && earlier !== '') {
      try {
        const kept = settings[row.key].parse(earlier);
        // Questions are asked only of yes/no rows, whose parser gives a boolean.
        if (typeof kept !== 'boolean')
          throw new Error(`${row.env} has a yes/no question but its value is not yes or no`);
        answers.set(row.env, { value: String(kept), source: 'kept' });
        continue;
      } catch (err) {
        if (!(err instanceof InvalidValue)) throw err;
        throw new CliError(
          'config',
          `${row.env} in ${context.paths.envFile} ${err.message}`,
          `fix the line, or answer with ${question.flag} / --no-${question.flag.slice(2)}`,
        );
      }
    }
    if (!mayPrompt(io, options))
      throw unansweredError(`${question.flag} or --no-${question.flag.slice(2)}`, question.question);
    let yes: boolean;
    try {
      yes = await confirm({ message: question.question, default: false }, { output: process.stderr });
    } catch (err) {
      if ((err as Error).name === 'ExitPromptError')
        throw new CliError('refused', 'install cancelled at the question; nothing was written');
      throw err;
    }
    answers.set(row.env, { value: String(yes), source: 'answered' });
  }
  return answers;
}

function checkedSecrets(
  rows: readonly InstallRow[],
  resolved: Map<string, ResolvedValue>,
  context: InstallContext,
): void {
  for (const row of rows) {
    const value = resolved.get(row.env);
    if (!value) continue;
    try {
      settings[row.key].parse(value.value);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      const where =
        value.source === 'kept'
          ? ` in ${context.paths.envFile}`
          : value.source === 'environment'
            ? ' in the environment'
            : '';
      throw new CliError('config', `${row.env}${where} ${err.message}`);
    }
  }
}

/** The listen addresses install writes: loopback unless a flag, the environment, an earlier install or room-defaults.toml names them. */
function listenersOf(options: Record<string, unknown>, context: InstallContext, io: CliIo): ResolvedListener[] {
  const flag = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return resolveListeners({
    flags: { httpAddr: flag(options.httpAddr), compatHttpAddr: flag(options.compatHttpAddr) },
    environment: io.env,
    existingEnvValues: context.existingEnvValues,
    existingRoomDefaults: context.existingRoomDefaults,
    config: context.config,
  });
}

function runtimeOf(
  options: Record<string, unknown>,
  context: InstallContext,
  listeners: readonly ResolvedListener[],
): RuntimeSettings | null {
  const runtime = options.runtime;
  if (runtime === undefined) {
    if (options.runtimeDir !== undefined) throw new CliError('usage', '--runtime-dir needs --runtime native|container');
    return null;
  }
  if (runtime !== 'native' && runtime !== 'container')
    throw new CliError('usage', `--runtime must be native or container (got ${JSON.stringify(runtime)})`);
  const user = typeof options.serviceUser === 'string' ? options.serviceUser : 'meet';
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(user))
    throw new CliError('usage', `--service-user must be a system user name (got ${JSON.stringify(user)})`);
  return {
    runtime,
    configDir: context.paths.configDir,
    envFile: context.paths.envFile,
    dataDir: context.paths.dataDir,
    engineAddr: listeners[0]!.address,
    compatAddr: listeners[1]!.address,
    installDir: packageRoot.replace(/\/$/, ''),
    node: process.execPath,
    user,
    shutdownGraceSecs: context.config.shutdownGraceSecs,
    rtpPorts: context.config.rtpPorts,
  };
}

/** Which flag or setting feeds each field of RuntimeSettings, for an error the operator can act on. */
const runtimeFieldSource: Record<string, string> = {
  configDir: '--config-dir',
  envFile: '--env-file',
  dataDir: '--data-dir',
  engineAddr: 'SERVICE_HTTP_ADDR',
  compatAddr: 'COMPAT_HTTP_ADDR',
  installDir: 'the package location',
  node: 'the node binary',
  user: '--service-user',
  shutdownGraceSecs: 'SERVICE_SHUTDOWN_GRACE_SECS',
  rtpPorts: 'SERVICE_RTP_PORTS',
};

function renderRuntime(runtime: RuntimeSettings, outDir: string) {
  try {
    return runtimeFiles(runtime, outDir).map((file) => ({ ...file, path: resolve(outDir, file.path) }));
  } catch (err) {
    if (!(err instanceof RuntimeSettingsError)) throw err;
    throw new CliError(
      'config',
      `--runtime ${runtime.runtime}: ${err.message} (from ${runtimeFieldSource[err.field] ?? err.field})`,
      'nothing was written; fix the value named above and run install again',
    );
  }
}

function runtimeDirOf(options: Record<string, unknown>, runtime: RuntimeSettings): string {
  if (typeof options.runtimeDir === 'string') {
    if (options.runtimeDir.trim() === '') throw new CliError('usage', '--runtime-dir must be a non-empty path');
    return resolve(options.runtimeDir);
  }
  return runtime.runtime === 'native' ? '/etc/systemd/system' : runtime.configDir;
}

/** A file edit that cannot be made safely names its file and stops before anything is written. */
function planned<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof TomlEditError || err instanceof EnvValueError)
      throw new CliError(
        'config',
        err.message,
        'nothing was written; fix the file or the value named above and run install again',
      );
    throw err;
  }
}

async function writeAll(io: CliIo, files: readonly PlannedFile[]): Promise<FileOutcome[]> {
  const outcomes: FileOutcome[] = [];
  for (const file of files)
    outcomes.push(
      await step(io, `${file.content === null ? 'removing' : 'writing'} ${file.path}`, () => applyFile(file)),
    );
  return outcomes;
}

interface InstallResult {
  readonly licence: Licence;
  readonly files: FileOutcome[];
  readonly values: Map<string, { value: string; source: string }>;
  readonly listeners: readonly ResolvedListener[];
  readonly service: readonly ServiceValue[];
  readonly nextSteps: string[];
}

async function install(module: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  checkModule(module);
  const now = new Date();
  const key = serverKeyFrom(options, io);
  const first = installContext(options, io);
  const runtime = runtimeOf(options, first, listenersOf(options, first, io));
  // Before the key is verified: a clock years ahead would call a valid key expired.
  await preflight('install', { ...first.config, dataDir: first.paths.dataDir }, io);
  // The key is verified before anything is read for writing or asked: a bad key writes nothing.
  const licence = await step(io, 'verifying the server key', async () => {
    try {
      return await verifyServerKey(key, publicKeyFor(first.config.licensePublicKey), module, now);
    } catch (err) {
      if (err instanceof LicenceError) throw licenceCliError(err);
      throw err;
    }
  });
  // The runtime's settings are checked now too, so a value no unit can hold stops before the config dir exists.
  if (runtime !== null) renderRuntime(runtime, runtimeDirOf(options, runtime));
  const rows = installRows(module);
  const answers = await answerQuestions(rows, options, first, io);
  const asked = await askValues(rows, options, first, io);

  const result = await underInstallLock(first.paths.configDir, async (): Promise<InstallResult> => {
    // Read again under the lock: another install may have finished while the question was open.
    const context = installContext(options, io);
    const secrets = resolveGenerated(rows, io.env, context.existingEnvValues, (bytes) =>
      randomBytes(bytes).toString('base64url'),
    );
    checkedSecrets(rows, secrets, context);
    const values = new Map<string, { value: string; source: string }>([...secrets, ...answers]);
    const envValues = Object.fromEntries([...values].map(([name, v]) => [name, v.value]));
    const listeners = listenersOf(options, context, io);
    const service = [
      ...serviceValuesOf(rows, options, context, io, asked),
      ...asGivenValues(asGivenKeys(rows), options),
    ];
    const listenerValues = Object.fromEntries(
      [...listeners, ...service].flatMap((l): [string, string][] => (l.value === null ? [] : [[l.env, l.value]])),
    );
    const files = planned(() =>
      compatInstallFiles({
        paths: context.paths,
        key,
        licence,
        envValues,
        listenerValues,
        roomDefaults: roomDefaultsValues(rows, context.config),
        existingEnv: context.existingEnv,
        existingRoomDefaults: context.existingRoomDefaults,
        envTemplate: readFileSync(envTemplateFile, 'utf8'),
        packagedRoomDefaults: readFileSync(packagedDefaultsFile, 'utf8'),
      }),
    );
    let nextSteps: string[] = [];
    if (runtime !== null) {
      const outDir = runtimeDirOf(options, runtime);
      const rendered = renderRuntime(runtime, outDir);
      const extra = rendered.map((file): PlannedFile => ({ path: file.path, content: file.content, mode: file.mode }));
      // Before the record (the last file): the module counts as installed only once everything else is in place.
      files.splice(files.length - 1, 0, ...extra);
      nextSteps = runtimeNextSteps(runtime, rendered);
    }
    return { licence, files: await writeAll(io, files), values, listeners, service, nextSteps };
  });
  report(io, options.json === true, module, result, now);
}

function shownAddress(listener: ResolvedListener): string {
  const { host, port } = listener.address;
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function report(io: CliIo, json: boolean, module: string, result: InstallResult, now: Date): void {
  const summary = licenceSummary(result.licence, now);
  const secretRows = installRows(module).filter(
    (row) => settings[row.key].secret || row.install.generateBytes !== undefined,
  );
  const secrets = Object.fromEntries(
    secretRows.map((row) => [row.env, { source: result.values.get(row.env)?.source ?? 'unset', value: '***' }]),
  );
  const answers = Object.fromEntries(
    installRows(module)
      .filter((row) => row.install.confirm)
      .map((row) => [
        row.env,
        { source: result.values.get(row.env)?.source, value: result.values.get(row.env)?.value === 'true' },
      ]),
  );
  const listeners = Object.fromEntries(
    result.listeners.map((l) => [l.env, { source: l.source, value: shownAddress(l) }]),
  );
  const service = Object.fromEntries(result.service.map((v) => [v.env, { source: v.source, value: v.shown }]));
  if (json) {
    io.out(
      `${JSON.stringify({ module, installed: true, ...summary, answers, secrets, listeners, service, files: result.files, nextSteps: result.nextSteps }, null, 2)}\n`,
    );
    return;
  }
  io.out(
    `${paint(io, 'green', module)} installed for ${summary.customer}, valid until ${summary.expiresAt} (${summary.daysLeft} days)\n`,
  );
  for (const file of result.files) io.out(`  ${file.status.padEnd(10)} ${file.path}\n`);
  for (const [name, secret] of Object.entries(secrets)) io.out(`  ${name}: *** (${secret.source})\n`);
  for (const [name, answer] of Object.entries(answers))
    io.out(`  ${name}=${String(answer.value)} (${answer.source})\n`);
  for (const [name, listener] of Object.entries(listeners))
    io.out(`  ${name}=${listener.value} (${listener.source})\n`);
  for (const [name, value] of Object.entries(service)) io.out(`  ${name}=${value.value} (${value.source})\n`);
  for (const line of result.nextSteps) io.out(`next: ${line}\n`);
}

async function uninstall(module: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  checkModule(module);
  const context = installContext(options, io);
  const files = await underInstallLock(context.paths.configDir, async () => {
    const fresh = installContext(options, io);
    const plannedFiles = planned(() =>
      compatUninstallFiles({
        paths: fresh.paths,
        existingEnv: fresh.existingEnv,
        existingRoomDefaults: fresh.existingRoomDefaults,
      }),
    );
    return writeAll(io, plannedFiles);
  });
  const changed = files.some((file) => file.status !== 'unchanged' && file.status !== 'absent');
  if (options.json === true) {
    io.out(`${JSON.stringify({ module, installed: false, changed, files, kept: [context.paths.dataDir] }, null, 2)}\n`);
    return;
  }
  io.out(
    changed
      ? `${module} uninstalled; the data in ${context.paths.dataDir} is kept\n`
      : `${module} was not installed; nothing changed\n`,
  );
  for (const file of files) io.out(`  ${file.status.padEnd(10)} ${file.path}\n`);
}

export function installCommands(program: Command, io: CliIo): void {
  const rows = installRows(compatModule);
  const installCommand = program
    .command('install')
    .argument('<module>', `module to install (${knownModules.join(', ')})`)
    .description(
      'install a module with its server key: verify the key offline, write the env file, room-defaults.toml and the installation record (nothing is written when the key is refused)',
    )
    .option('--key <key>', 'the server key issued by the licence authority (or --key-file, or SERVICE_SERVER_KEY)')
    .option('--key-file <path>', 'file holding the server key')
    .addOption(
      new Option('--runtime <runtime>', 'also write the files that run the service').choices(['native', 'container']),
    )
    .option(
      '--runtime-dir <dir>',
      'where the runtime files go (default: /etc/systemd/system for native, the config directory for container)',
    )
    .option('--service-user <name>', 'user the native service runs as (default meet)')
    .option('-y, --yes', 'never prompt: a question no flag answered is an error naming the flag')
    .option('--json', 'print a JSON summary (secrets masked) on standard output');
  for (const row of rows) {
    const question = row.install.confirm;
    if (question) {
      installCommand.option(question.flag, `answer yes to "${question.question}" [${row.env}=true]`);
      installCommand.option(
        `--no-${question.flag.slice(2)}`,
        `answer no to it [${row.env}=false]; without either, asked on a terminal or kept from an earlier install`,
      );
    } else if (row.install.file === 'room-defaults' || (row.install.ask && row.flag !== null)) {
      addSettingOption(installCommand, row.key);
    }
  }
  // Loopback by default (nginx on this machine is the edge); these name other addresses.
  for (const key of listenerKeys) {
    const row = settings[key];
    installCommand.option(
      `${row.flag} <host:port>`,
      `${row.description} [${row.env}] (default: ${loopbackDefault(key)}, behind nginx; kept on later runs)`,
    );
  }
  addLocationOptions(installCommand);
  for (const key of asGivenKeys(rows)) addSettingOption(installCommand, key);
  installCommand.action((module: string, options: Record<string, unknown>) => install(module, options, io));

  const uninstallCommand = program
    .command('uninstall')
    .argument('<module>', `module to uninstall (${knownModules.join(', ')})`)
    .description(
      "remove a module's installation record, its env-file secrets and its room-defaults values; its data is kept",
    )
    .option('--json', 'print a JSON summary on standard output');
  addLocationOptions(uninstallCommand);
  uninstallCommand.action((module: string, options: Record<string, unknown>) => uninstall(module, options, io));
}
