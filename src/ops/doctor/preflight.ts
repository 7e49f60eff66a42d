import type { CheckResult, DoctorCheck, DoctorContext } from './check.js';
import { certificateCheck } from './certificate.js';
import { clockCheck } from './clock.js';
import { diskSpaceCheck } from './disk-space.js';
import { janusCheck } from './janus.js';
import { nginxAccessLogCheck } from './nginx-access-log.js';
import { nginxUpstreamsCheck } from './nginx-upstreams.js';
import { nodeVersionCheck } from './node-version.js';
import { joinBaseCheck } from './public-url.js';
import { runChecks } from './runner.js';

/** What a failed preflight check means to the command: the machine lacks something (environment) or a file or setting is wrong (config). */
export type PreflightKind = 'environment' | 'config';

export interface PreflightCheck {
  readonly check: DoctorCheck;
  readonly kind: PreflightKind;
}

/**
 * The doctor checks each command runs before it changes anything (as Ghost-CLI does): the
 * ones whose failure would make the command's work fail later, or fail in a misleading way
 * (a clock years ahead refuses a valid server key as expired). Cheap and offline: no nginx -t,
 * no port probe (serve finds a taken port itself, and the running service holds its own).
 */
export const preflights = {
  install: [
    { check: nodeVersionCheck, kind: 'environment' },
    { check: clockCheck, kind: 'environment' },
    { check: diskSpaceCheck, kind: 'environment' },
  ],
  /** Run against the site about to be installed, written to a temporary file first. */
  nginxInstall: [
    { check: clockCheck, kind: 'environment' },
    { check: nginxUpstreamsCheck, kind: 'config' },
    { check: nginxAccessLogCheck, kind: 'config' },
    { check: certificateCheck, kind: 'config' },
    { check: joinBaseCheck, kind: 'config' },
  ],
  // Not the free disk space: a restart on a nearly full disk must still come up (reads go on,
  // /readyz says 503 and why); refusing it would turn a full disk into an outage.
  serve: [
    { check: clockCheck, kind: 'environment' },
    { check: janusCheck, kind: 'environment' },
  ],
} satisfies Record<string, readonly PreflightCheck[]>;

export interface PreflightOutcome {
  /** The first failed check in the list's order, with its kind; null when none failed. */
  readonly failure: (CheckResult & { readonly kind: PreflightKind }) | null;
  readonly warnings: readonly CheckResult[];
}

export async function runPreflight(list: readonly PreflightCheck[], ctx: DoctorContext): Promise<PreflightOutcome> {
  const results = await runChecks(
    list.map((p) => p.check),
    ctx,
  );
  const at = results.findIndex((r) => r.status === 'fail');
  return {
    failure: at < 0 ? null : { ...results[at]!, kind: list[at]!.kind },
    warnings: results.filter((r) => r.status === 'warn'),
  };
}
