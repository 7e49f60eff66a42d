import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { serviceVersion } from '../config/version.js';
import { EngineError } from '../engine/errors.js';
import { backupCommands } from './backup.js';
import { clusterCommands } from './cluster.js';
import { environmentFault } from '../ops/environment-faults.js';
import { dbCommands } from './db.js';
import { doctorCommand } from './doctor.js';
import { CliError, cliErrorKinds, renderCliError } from './errors.js';
import { installCommands } from './install.js';
import { processIo, type CliIo } from './io.js';
import { licenseCommands } from './license.js';
import { migrateCommand } from './migrate.js';
import { nginxCommand } from './nginx.js';
import { serveCommand } from './serve.js';
import { tenantCommands } from './tenant.js';
import { tokenCommands } from './token.js';
import { userCommands } from './user.js';

/** Subcommands inherit neither exitOverride nor output settings unless copied down. */
function configureTree(command: Command, io: CliIo): void {
  command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const sub of command.commands) configureTree(sub, io);
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('meetctl')
    .description('install, configure and run the meeting service')
    .version(serviceVersion, '-V, --version', 'print the version of the meeting service')
    .showHelpAfterError();
  // The operator's path, in order: install → nginx → tenant → serve; then doctor, token, license.
  installCommands(program, io);
  nginxCommand(program, io);
  tenantCommands(program, io);
  serveCommand(program, io);
  doctorCommand(program, io);
  tokenCommands(program, io);
  userCommands(program, io);
  licenseCommands(program, io);
  backupCommands(program, io);
  migrateCommand(program, io);
  dbCommands(program, io);
  clusterCommands(program, io);
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
    await buildProgram(io).parseAsync(argv);
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
