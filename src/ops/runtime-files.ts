import { settings as settingsTable } from '../config/settings.js';
import { containerFiles, containerNextSteps } from './container-files.js';
import { RuntimeSettingsError, type RuntimeFile, type RuntimeSettings } from './runtime-checks.js';
import { nativeNextSteps, systemdUnit } from './systemd-unit.js';

// The types live in runtime-checks.ts so the unit and container writers need not import this file back.
export { RuntimeSettingsError, type RuntimeFile, type RuntimeSettings } from './runtime-checks.js';

function graceOf(settings: RuntimeSettings): number {
  const grace =
    settings.shutdownGraceSecs ?? settingsTable.shutdownGraceSecs.parse(settingsTable.shutdownGraceSecs.fallback);
  try {
    return settingsTable.shutdownGraceSecs.parse(grace);
  } catch (err) {
    throw new RuntimeSettingsError('shutdownGraceSecs', (err as Error).message);
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
      throw new RuntimeSettingsError(
        'runtime',
        `must be native or container (got ${JSON.stringify(settings.runtime)})`,
      );
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
