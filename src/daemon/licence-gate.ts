import type { Logger } from 'pino';
import { installedLicence, type InstalledLicence } from '../licence/installation.js';
import { daysLeft, expiresSoon, expiryWarningDays } from '../licence/licence-status.js';
import type { Licence } from '../licence/server-key.js';

/**
 * Whether `meetctl serve` starts a licensed module, decided once at start from the
 * installation record (its key re-verified against the configured public key). A licence
 * that ends while the daemon runs does not stop the module: meetings in progress keep being
 * served; the daily check only warns, and the next start refuses.
 */

export interface GateDecision {
  readonly start: boolean;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export function gateDecision(module: string, installed: InstalledLicence, now: Date): GateDecision {
  if (installed.status === 'absent') {
    return {
      start: false,
      level: 'warn',
      message: `${module} module not installed: it does not start (the engine serves alone); run \`meetctl install ${module} --key KEY\` with the server key`,
      fields: { module, licence: 'absent' },
    };
  }
  if (installed.status === 'invalid') {
    return {
      start: false,
      level: 'error',
      message: `${module} module refused to start: ${installed.error.message} (the engine still serves); run \`meetctl install ${module}\` with a valid key`,
      fields: { module, licence: 'invalid', fault: installed.error.fault },
    };
  }
  const { licence } = installed;
  const days = daysLeft(licence, now);
  const fields = {
    module,
    licence: 'valid',
    customer: licence.customer,
    expiresAt: licence.expiresAt.toISOString(),
    daysLeft: days,
  };
  if (expiresSoon(licence, now)) {
    return {
      start: true,
      level: 'warn',
      message: `${module} licence of ${licence.customer} expires on ${fields.expiresAt} (${days} days left, under ${expiryWarningDays}): ask for a new key and run meetctl install ${module} with it`,
      fields,
    };
  }
  return {
    start: true,
    level: 'info',
    message: `${module} licence of ${licence.customer}, valid until ${fields.expiresAt} (${days} days left)`,
    fields,
  };
}

/** What the daily check says while the module runs: nothing while far from expiry, a warning near it, an error after. */
export function runningCheck(module: string, installed: InstalledLicence, now: Date): GateDecision | null {
  if (installed.status === 'valid') {
    const decision = gateDecision(module, installed, now);
    return decision.level === 'info' ? null : decision;
  }
  const why = installed.status === 'absent' ? 'its installation record is gone' : installed.error.message;
  return {
    start: false,
    level: 'error',
    message: `${module} licence no longer valid: ${why}; the running ${module} module keeps serving until this process stops, and will not start again`,
    fields: {
      module,
      licence: installed.status,
      ...(installed.status === 'invalid' ? { fault: installed.error.fault } : {}),
    },
  };
}

function logDecision(log: Logger, decision: GateDecision): void {
  log[decision.level](decision.fields, decision.message);
}

export interface LicenceSource {
  readonly dataDir: string;
  readonly licensePublicKey: string | null;
}

/** Told of each valid licence a check read (the metrics' days left). */
export type LicenceSeen = (licence: Licence) => void;

/** Reads the installation and logs the decision; true when the module may start. */
export async function licensedAtStart(
  module: string,
  source: LicenceSource,
  log: Logger,
  now: Date,
  seen?: LicenceSeen,
): Promise<boolean> {
  let installed: InstalledLicence;
  try {
    installed = await installedLicence(source.dataDir, module, source.licensePublicKey, now);
  } catch (err) {
    // An unreadable record (permissions, I/O) refuses the module, never the engine.
    log.error(
      { err, module },
      `${module} module refused to start: its installation record cannot be read (the engine still serves)`,
    );
    return false;
  }
  const decision = gateDecision(module, installed, now);
  logDecision(log, decision);
  if (decision.start && installed.status === 'valid') seen?.(installed.licence);
  return decision.start;
}

/** Re-checks every `intervalMs` (daily) and only logs; the timer never keeps the process alive. Returns its stop. */
export function watchLicence(
  module: string,
  source: LicenceSource,
  log: Logger,
  now: () => Date,
  intervalMs = 86_400_000,
  seen?: LicenceSeen,
): () => void {
  const timer = setInterval(() => {
    const at = now();
    installedLicence(source.dataDir, module, source.licensePublicKey, at).then(
      (installed) => {
        if (installed.status === 'valid') seen?.(installed.licence);
        const decision = runningCheck(module, installed, at);
        if (decision) logDecision(log, decision);
      },
      (err: unknown) => log.error({ err, module }, `${module} licence check failed`),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
