import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { EngineError } from '../engine/errors.js';
import { processIo, type CliIo } from './io.js';
import { serveCommand } from './serve.js';
import { tokenCommands } from './token.js';

export function buildProgram(io: CliIo): Command {
  const program = new Command('meetctl')
    .description('install, configure and run the meeting service')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  serveCommand(program, io);
  tokenCommands(program, io);
  // Subcommands inherit neither exitOverride nor output settings unless copied down.
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
    for (const sub of command.commands) sub.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  }
  return program;
}

/** Runs meetctl and returns the exit code: 0 done, 1 refused, 2 bad configuration. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(argv as string[]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ConfigError) {
      io.err(`meetctl: configuration error:\n${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof EngineError) {
      io.err(`meetctl: ${err.message}\n`);
      return 1;
    }
    io.err(`meetctl: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
