import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { serviceVersion } from '../config/version.js';
import { EngineError } from '../engine/errors.js';
import { environmentFault } from '../ops/environment-faults.js';
import { CliError, cliErrorKinds, renderCliError } from './errors.js';
import { processIo, type CliIo } from './io.js';

type Register = (program: Command, io: CliIo) => void;

/**
 * The top-level commands, in the operator's order (install → nginx → tenant → serve; then doctor,
 * token, user, license, backup, migrate, db, cluster), each with the module that registers it.
 * A run that names one loads that module alone: `serve` then loads neither the install's prompts
 * nor the tenants' watcher, and every daemon and CLI start pays for what it runs. Help, a version
 * or an unknown name loads them all, so the listing and commander's suggestions stay whole.
 */
const commandGroups: readonly { readonly names: readonly string[]; readonly load: () => Promise<Register> }[] = [
  { names: ['install', 'uninstall'], load: async () => (await import('./install.js')).installCommands },
  { names: ['nginx'], load: async () => (await import('./nginx.js')).nginxCommand },
  { names: ['tenant'], load: async () => (await import('./tenant.js')).tenantCommands },
  { names: ['serve'], load: async () => (await import('./serve.js')).serveCommand },
  { names: ['doctor'], load: async () => (await import('./doctor.js')).doctorCommand },
  { names: ['token'], load: async () => (await import('./token.js')).tokenCommands },
  { names: ['user'], load: async () => (await import('./user.js')).userCommands },
  { names: ['license'], load: async () => (await import('./license.js')).licenseCommands },
  { names: ['backup', 'restore'], load: async () => (await import('./backup.js')).backupCommands },
  { names: ['migrate'], load: async () => (await import('./migrate.js')).migrateCommand },
  { names: ['db'], load: async () => (await import('./db.js')).dbCommands },
  { names: ['cluster'], load: async () => (await import('./cluster.js')).clusterCommands },
];

/** Subcommands inherit neither exitOverride nor output settings unless copied down. */
function configureTree(command: Command, io: CliIo): void {
  command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const sub of command.commands) configureTree(sub, io);
}

/** The program with the command group `argv` names (its first word after node and the script), or with every group. */
export async function buildProgram(io: CliIo, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('meetctl')
    .description('install, configure and run the meeting service')
    .version(serviceVersion, '-V, --version', 'print the version of the meeting service')
    .showHelpAfterError();
  const named = argv.slice(2).find((word) => !word.startsWith('-'));
  const chosen = commandGroups.filter((group) => named !== undefined && group.names.includes(named));
  for (const register of await Promise.all((chosen.length > 0 ? chosen : commandGroups).map((group) => group.load())))
    register(program, io);
  configureTree(program, io);
  return program;
}

/** commander's own exits that are not failures: --help, --version, help of a command group. */
const commanderSuccess = new Set([
  'commander.helpDisplayed',
  'commander.help',
  'commander.version',
  'commander.executeSubCommandAsync',
]);

/** Runs meetctl and returns the exit code (see cliErrorKinds: 0 done, 1 refused, 2 configuration, 64 usage, 69 environment, 70 internal). */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await (await buildProgram(io, argv)).parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has printed the usage problem and the help already.
      return commanderSuccess.has(err.code) || err.exitCode === 0 ? 0 : cliErrorKinds.usage.exitCode;
    }
    if (err instanceof CliError) {
      io.err(renderCliError(err));
      return err.exitCode;
    }
    if (err instanceof ConfigError) {
      io.err(`meetctl: configuration error:\n${err.message}\n  hint: ${cliErrorKinds.config.hint}\n`);
      return err.exitCode;
    }
    if (err instanceof EngineError) {
      io.err(`meetctl: ${err.message}\n`);
      return cliErrorKinds.refused.exitCode;
    }
    // A system call that failed (port taken, permission, read-only or full disk, a missing program), SQLite
    // unable to write its files, Janus required but absent: the machine's problem, not a bug.
    const fault = environmentFault(err);
    if (fault) {
      io.err(renderCliError(new CliError('environment', fault.message, fault.hint)));
      return cliErrorKinds.environment.exitCode;
    }
    io.err(
      `meetctl: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n  hint: ${cliErrorKinds.internal.hint}\n`,
    );
    return cliErrorKinds.internal.exitCode;
  }
}
