import type { Command } from 'commander';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';
import type { CliIo } from './io.js';
import { preflight } from './preflight.js';

export function serveCommand(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description('start the daemon in the foreground: engine listener, store migrations, JSON log on standard output')
    .action(async (options: Record<string, unknown>) => {
      // Under systemd the unit's EnvironmentFile= already put the file's values in the
      // environment, which wins over the file: an unreadable default file changes nothing then.
      const { config } = loadServiceConfig(options, io, { unreadableDefault: 'ignore' });
      // Before the daemon's modules load: a clock years off or a full disk stops the start with doctor's hint (exit 69).
      await preflight('serve', config, io, { quiet: true });
      // Loaded here, not at the top: the daemon's modules (Fastify, SQLite, the compat module) are
      // most of meetctl's start-up time, and the other commands need none of them.
      const { startDaemon, stopOnSignals } = await import('../daemon/run.js');
      const daemon = await startDaemon(config).catch((err: unknown) => {
        // A live node holds SERVICE_NODE_ID (issue 35): refused (exit 1), not a fault of the machine.
        if (err instanceof Error && err.name === 'DuplicateNodeError')
          throw new CliError('refused', err.message, 'stop the other node, or give this one another SERVICE_NODE_ID');
        throw err;
      });
      stopOnSignals(daemon);
    });
  addConfigOptions(command);
  addServiceConfigOptions(command);
}
