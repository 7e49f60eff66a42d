import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/settings.js';
import type { DoctorContext } from '../ops/doctor/check.js';
import { defaultNginxFile } from '../ops/doctor/nginx.js';
import { preflights, runPreflight } from '../ops/doctor/preflight.js';
import { defaultUnitFile } from '../ops/doctor/systemd.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { paint } from './ui.js';

/** The doctor context of a command about to run with `config` (the command has loaded it already, from its own sources). */
function contextOf(config: Config, io: CliIo, nginxFile = defaultNginxFile): DoctorContext {
  return {
    env: io.env,
    config,
    configError: null,
    configFile: null,
    configDir: '',
    envFile: { path: '', status: 'absent', ignoredLines: [], mode: null },
    nginxFile,
    unitFile: defaultUnitFile,
    nginxBin: null,
    serviceUser: null,
    nodeVersion: process.versions.node,
    now: new Date(),
  };
}

/**
 * Runs the command's preflight checks: a failure stops it before it changes anything, with
 * doctor's own line and hint and the exit code of its kind; warnings are printed and it goes on.
 */
export async function preflight(
  command: keyof typeof preflights,
  config: Config,
  io: CliIo,
  options: { site?: string; quiet?: boolean } = {},
): Promise<void> {
  let dir: string | null = null;
  let nginxFile: string | undefined;
  if (options.site !== undefined) {
    // The site checks read a file: the one about to be installed is judged before it replaces anything.
    dir = mkdtempSync(join(tmpdir(), 'meet-preflight-'));
    nginxFile = join(dir, 'meet.conf');
    writeFileSync(nginxFile, options.site, { mode: 0o600 });
  }
  try {
    const { failure, warnings } = await runPreflight(preflights[command], contextOf(config, io, nginxFile));
    if (!options.quiet)
      for (const w of warnings)
        io.err(
          `${paint(io, 'yellow', 'meetctl: warning:')} ${w.title}: ${w.detail}${w.hint ? `\n  hint: ${w.hint}` : ''}\n`,
        );
    if (failure !== null) throw new CliError(failure.kind, `${failure.title}: ${failure.detail}`, failure.hint);
  } finally {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}
