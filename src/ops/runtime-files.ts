import type { ListenAddress } from '../config/parsers.js';
import { settings as settingsTable, type PortRange } from '../config/settings.js';
import { containerFiles, containerNextSteps } from './container-files.js';
import { RuntimeSettingsError } from './runtime-checks.js';
import { nativeNextSteps, systemdUnit } from './systemd-unit.js';

export { RuntimeSettingsError } from './runtime-checks.js';

/**
 * The files that run the service under a runtime: a systemd unit (native) or a Dockerfile
 * and compose.yaml (container). `meetctl install --runtime` writes what this returns.
 */
export type Runtime = 'native' | 'container';

export interface RuntimeSettings {
  readonly runtime: Runtime;
  /** Absolute paths. */
  readonly configDir: string;
  readonly envFile: string;
  readonly dataDir: string;
  readonly engineAddr: ListenAddress;
  readonly compatAddr: ListenAddress;
  /** The package root (holds bin/meetctl.js). */
  readonly installDir: string;
  /** Absolute path of the node binary the unit runs (native). */
  readonly node: string;
  /** The user the service runs as (native). */
  readonly user: string;
  /**
   * SERVICE_SHUTDOWN_GRACE_SECS (default: the settings table's). The files pass it to
   * `meetctl serve` as a flag and size the supervisor's stop timeout from it, so both agree.
   */
  readonly shutdownGraceSecs?: number;
  /**
   * SERVICE_RTP_PORTS (default: the settings table's): the UDP ports the daemon's Janus uses.
   * The container publishes exactly these and passes them to `meetctl serve` as a flag.
   */
  readonly rtpPorts?: PortRange;
}

export interface RuntimeFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

function graceOf(settings: RuntimeSettings): number {
  const grace = settings.shutdownGraceSecs ?? settingsTable.shutdownGraceSecs.parse(settingsTable.shutdownGraceSecs.fallback);
  try {
    return settingsTable.shutdownGraceSecs.parse(grace);
  } catch (err) {
    throw new RuntimeSettingsError('shutdownGraceSecs', (err as Error).message);
  }
}

/** The RTP port range of the runtime files: the setting's parser checks a given one too. */
export function rtpPortsOf(settings: RuntimeSettings): PortRange {
  const given = settings.rtpPorts;
  try {
    return settingsTable.rtpPorts.parse(given ? `${given.min}-${given.max}` : settingsTable.rtpPorts.fallback);
  } catch (err) {
    throw new RuntimeSettingsError('rtpPorts', (err as Error).message);
  }
}

/**
 * The files to write into `outDir` (native: meet.service; container: Dockerfile, its
 * .dockerignore, compose.yaml). Throws RuntimeSettingsError naming the field that cannot be
 * written into them (a path with spaces or `%`, a privileged port, root as the user...).
 */
export function runtimeFiles(settings: RuntimeSettings, outDir: string): RuntimeFile[] {
  const grace = graceOf(settings);
  switch (settings.runtime) {
    case 'native':
      return [systemdUnit(settings, grace, outDir)];
    case 'container':
      return containerFiles(settings, grace, outDir);
    default:
      throw new RuntimeSettingsError('runtime', `must be native or container (got ${JSON.stringify(settings.runtime)})`);
  }
}

/** What the operator runs next (systemctl or docker compose commands), one per line. */
export function runtimeNextSteps(settings: RuntimeSettings, files: readonly RuntimeFile[]): string[] {
  switch (settings.runtime) {
    case 'native': {
      const unit = files.find((file) => file.path.endsWith('.service'));
      return unit ? nativeNextSteps(settings, unit) : [];
    }
    case 'container':
      return containerNextSteps(settings, files);
    default:
      return [];
  }
}
