import type { Command } from 'commander';
import type { ClusterStatus, JanusLine, NodeLine } from '../daemon/cluster-status.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { addServiceConfigOptions, loadServiceConfig } from './service-config.js';

function nodeTable(rows: readonly NodeLine[]): string {
  if (rows.length === 0) return 'no node has registered in this database (is SERVICE_NATS_URL set on the daemons?)\n';
  return columns([
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
  ]);
}

function janusTable(rows: readonly JanusLine[]): string {
  if (rows.length === 0) return 'JANUS: none listed (SERVICE_JANUS_URLS is not set on the nodes)\n';
  return columns([
    ['JANUS', 'LOAD', 'STATE'],
    ...rows.map((r) => [r.url, String(r.load), r.down_since === null ? 'up' : `down since ${r.down_since}`]),
  ]);
}

function columns(lines: readonly (readonly string[])[]): string {
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

/** The text of the status: one table per section, the nodes then the Janus servers, a blank line between. */
function text(status: ClusterStatus): string {
  return `${nodeTable(status.nodes)}\n${janusTable(status.janus_servers)}`;
}

/** `meetctl cluster status`: the nodes sharing this PostgreSQL database, alive or gone, with their last beat and load, and the Janus servers. */
export function clusterCommands(program: Command, io: CliIo): void {
  const cluster = program.command('cluster').description('the nodes of a cluster (several daemons on one PostgreSQL)');
  const status = cluster
    .command('status')
    .description(
      'list the nodes registered in the database (address, alive or gone, last beat, rooms owned (unexpired leases), load) and the Janus servers (load, up or down since when)',
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
