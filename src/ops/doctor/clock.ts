import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { installationFile } from '../../licence/installation.js';
import { check, fail, ok, warn, type DoctorContext } from './check.js';

/** A moment the clock cannot be before: something written or issued then. */
export interface Evidence {
  readonly what: string;
  readonly at: Date;
}

export interface ClockEvidence {
  /** Moments already past: the clock reading earlier than one of them is behind. */
  readonly past: readonly Evidence[];
  /** The battery-backed hardware clock, when the machine exposes one. */
  readonly rtc: Date | null;
  /** When the installed licence expires: a clock years ahead makes it look expired. */
  readonly licenceExpires: Date | null;
}

/** Minutes of disagreement are an NTP matter; the check is after months and years. */
const slackMs = 60 * 60_000;
const rtcSlackMs = 86_400_000;
/** Where the package's build wrote the date it was built (scripts/copy-assets.mjs). */
export const buildInfoFile = new URL('../../build-info.json', import.meta.url);
const rtcFile = '/sys/class/rtc/rtc0/since_epoch';

const stamp = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const fixClock =
  'set the clock (timedatectl set-ntp true, or date -s with the real UTC time), then run the command again';

function dateOf(value: unknown): Date | null {
  const date = typeof value === 'string' ? new Date(value) : null;
  return date && Number.isFinite(date.getTime()) ? date : null;
}

/** What this machine knows offline about the time: the package's build, the licence's issue, the data directory's writes, the RTC. */
export function clockEvidence(ctx: Pick<DoctorContext, 'config'>, rtcPath = rtcFile): ClockEvidence {
  const past: Evidence[] = [];
  let licenceExpires: Date | null = null;
  try {
    const built = dateOf((JSON.parse(readFileSync(buildInfoFile, 'utf8')) as { builtAt?: unknown }).builtAt);
    if (built) past.push({ what: 'this package was built', at: built });
  } catch {
    // a package without build-info.json only has less evidence
  }
  if (ctx.config !== null) {
    const dataDir = ctx.config.dataDir;
    try {
      const record = JSON.parse(readFileSync(installationFile(dataDir, 'compat'), 'utf8')) as {
        issued_at?: unknown;
        expires_at?: unknown;
      };
      const issued = dateOf(record.issued_at);
      if (issued) past.push({ what: 'the compat licence was issued', at: issued });
      licenceExpires = dateOf(record.expires_at);
    } catch {
      // no licence installed (or unreadable: the licence check says so)
    }
    try {
      let newest: Evidence | null = null;
      for (const name of readdirSync(dataDir)) {
        const at = statSync(join(dataDir, name)).mtime;
        if (newest === null || at > newest.at) newest = { what: `${join(dataDir, name)} was last written`, at };
      }
      if (newest) past.push(newest);
    } catch {
      // the data-dir check reports a directory it cannot read
    }
  }
  let rtc: Date | null = null;
  try {
    const seconds = Number(readFileSync(rtcPath, 'utf8').trim());
    if (Number.isFinite(seconds) && seconds > 0) rtc = new Date(seconds * 1000);
  } catch {
    // containers and many VMs expose no RTC
  }
  return { past, rtc, licenceExpires };
}

/** Behind what already happened, or a day off the hardware clock: licences, certificates and tokens are all judged by this clock. */
export function judgeClock(now: Date, evidence: ClockEvidence) {
  const ahead = evidence.past
    .filter((e) => e.at.getTime() - slackMs > now.getTime())
    .sort((a, b) => b.at.getTime() - a.at.getTime());
  if (ahead.length > 0) {
    const e = ahead[0]!;
    return fail(`the clock reads ${stamp(now)}, but ${e.what} at ${stamp(e.at)}: the clock is behind`, fixClock);
  }
  if (evidence.rtc !== null && Math.abs(evidence.rtc.getTime() - now.getTime()) > rtcSlackMs) {
    return fail(
      `the clock reads ${stamp(now)}, the hardware clock ${stamp(evidence.rtc)}: one of them is wrong`,
      `${fixClock}; hwclock --systohc then keeps the hardware clock`,
    );
  }
  if (evidence.licenceExpires !== null && evidence.licenceExpires.getTime() < now.getTime()) {
    return warn(
      `the clock reads ${stamp(now)}, after the compat licence's end (${stamp(evidence.licenceExpires)}): if that is not today, the clock is ahead and the licence only looks expired`,
      `compare with a trusted clock (date -u); if it is wrong, ${fixClock}`,
    );
  }
  return ok(
    `${stamp(now)}${evidence.past.length > 0 ? `, not before ${evidence.past.map((e) => e.what).join(', ')}` : ''}`,
  );
}

export const clockCheck = check('clock', 'Clock', (ctx) => judgeClock(ctx.now, clockEvidence(ctx)));
