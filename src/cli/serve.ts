import type { Command } from 'commander';
import { startDaemon, stopOnSignals } from '../daemon/run.js';
import { addConfigOptions, configFromOptions } from './config-options.js';
import type { CliIo } from './io.js';

export function serveCommand(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description('start the daemon in the foreground: engine listener, store migrations, JSON log on standard output')
    .action(async (options: Record<string, unknown>) => {
      const config = configFromOptions(options, io);
      const daemon = await startDaemon(config);
      stopOnSignals(daemon);
    });
  addConfigOptions(command);
}
