import type { ListenAddress } from '../config/parsers.js';

/**
 * The files that run the service under a runtime: a systemd unit (native) or a Dockerfile
 * and compose.yaml (container). `meetctl install --runtime` writes what this returns.
 * (Interface first; the rendering is being written.)
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
}

export interface RuntimeFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

/** The files to write into `outDir` (native: meet.service; container: Dockerfile, compose.yaml). */
export function runtimeFiles(_settings: RuntimeSettings, _outDir: string): RuntimeFile[] {
  return [];
}

/** What the operator runs next (systemctl or docker compose commands), one per line. */
export function runtimeNextSteps(_settings: RuntimeSettings, _files: readonly RuntimeFile[]): string[] {
  return [];
}
