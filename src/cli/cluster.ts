import type { Command } from 'commander';
import type { ClusterStatus, NodeLine } from '../daemon/cluster-status.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';

function nodeTable(rows: readonly NodeLine[]): string {
  if (rows.length === 0) return 'no node has registered in this database (is SERVICE_NATS_URL set on the daemons?)\n';
  const lines = [
    ['NODE', 'ADDRESS', 'STATE', 'LAST BEAT', 'ROOMS OWNED', 'OPEN ROOMS', 'LIVE SOCKETS'],
    ...rows.map((r) => [
      r.node_id,
      r.address,
      r.state,
      r.last_beat_at,
      String(r.rooms_owned),
      String(r.open_rooms),
      String(r.live_sockets),
    ]),
  ];
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return `${lines
    .map((l) =>
      l
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** The text of the status: one table per section (the nodes; the Janus servers of point 6 join as a second). */
function text(status: ClusterStatus): string {
  return nodeTable(status.nodes);
}

/** `meetctl cluster status`: the nodes sharing this PostgreSQL database, alive or gone, with their last beat and load. */
export function clusterCommands(program: Command, io: CliIo): void {
  const cluster = program.command('cluster').description('the nodes of a cluster (several daemons on one PostgreSQL)');
  const status = cluster
    .command('status')
    .description(
      'list the nodes registered in the database: address, alive or gone, last beat, rooms owned (unexpired leases), load',
    )
    .option('--json', 'print JSON instead of a table')
    .action(async (options: Record<string, unknown>) => {
      const { config } = loadServiceConfig(options, io);
      // Loaded here: the other commands start without the database driver.
      const { clusterStatus } = await import('../daemon/cluster-status.js');
      const status = await clusterStatus(config);
      if (status === null)
        throw new CliError(
          'refused',
          'a cluster needs PostgreSQL: this service stores its state in SQLite (SERVICE_DATABASE_URL), which serves one node',
          'set SERVICE_DATABASE_URL=postgres://… and SERVICE_NATS_URL on every node (docs/operating.md, "Several machines")',
        );
      io.out(options.json ? `${JSON.stringify(status, null, 2)}\n` : text(status));
    });
  addConfigOptions(status, ['dataDir', 'databaseUrl']);
  addServiceConfigOptions(status);
}
