import { posix } from 'node:path';
import type { ListenAddress } from '../config/parsers.js';
import { settings as settingsTable, type PortRange } from '../config/settings.js';

/** A runtime setting that cannot go into a unit or compose file; `field` names the RuntimeSettings key. */
export class RuntimeSettingsError extends Error {
  override readonly name = 'RuntimeSettingsError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

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
 * Characters a path may hold to be written into a unit (where spaces split arguments, `%` is a
 * specifier, `$` expands and a newline starts a new directive) and a compose file (where `$`
 * interpolates) with the same meaning everywhere. Anything else is refused, not escaped.
 */
const plainPath = /^\/[A-Za-z0-9._@+\/-]*$/;

export function checkPath(field: string, value: string): string {
  if (!plainPath.test(value)) {
    throw new RuntimeSettingsError(
      field,
      `must be an absolute path of letters, digits and . _ @ + - / only (got ${JSON.stringify(value)})`,
    );
  }
  if (value === '/' || posix.normalize(value) !== value || value.endsWith('/')) {
    throw new RuntimeSettingsError(
      field,
      `must be a normalized absolute path other than / (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

/** ProtectHome=yes hides these from the service: a path under them would vanish at start. */
const hiddenByProtectHome = ['/home', '/root', '/run/user'];

export function checkVisibleToUnit(field: string, value: string): string {
  checkPath(field, value);
  const under = hiddenByProtectHome.find((dir) => value === dir || value.startsWith(`${dir}/`));
  if (under)
    throw new RuntimeSettingsError(
      field,
      `${value} is under ${under}, which the unit hides (ProtectHome=yes); use /opt, /srv, /var/lib or /etc`,
    );
  return value;
}

/** Debian's NAME_REGEX; root is refused: the service never needs it. */
export function checkUser(value: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(value))
    throw new RuntimeSettingsError('user', `must be a system user name such as meet (got ${JSON.stringify(value)})`);
  if (value === 'root')
    throw new RuntimeSettingsError('user', 'the service does not run as root; use a system user such as meet');
  return value;
}

/** The unit drops every capability (no CAP_NET_BIND_SERVICE), and a random port cannot be proxied to. */
export function checkPort(field: string, address: ListenAddress): number {
  if (!Number.isInteger(address.port) || address.port < 1024 || address.port > 65535) {
    throw new RuntimeSettingsError(
      field,
      `port must be from 1024 to 65535: the service runs without privileges behind nginx (got ${address.port})`,
    );
  }
  return address.port;
}

/** `systemd-dir` for StateDirectory=/ConfigurationDirectory=: `dir` relative to `base`, or null when outside it. */
export function relativeUnder(base: string, dir: string): string | null {
  return dir.startsWith(`${base}/`) ? dir.slice(base.length + 1) : null;
}

/** host:port for a URL or a port mapping (IPv6 in brackets); a wildcard host is asked on loopback. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function loopbackFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}
