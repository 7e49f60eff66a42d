import type { Licence } from './server-key.js';

/** serve, show and doctor warn this many days before a licence ends. */
export const expiryWarningDays = 30;

const dayMs = 86_400_000;

/** Whole days until the licence ends (0 on its last day, negative once it ended). */
export function daysLeft(licence: Licence, now: Date): number {
  return Math.floor((licence.expiresAt.getTime() - now.getTime()) / dayMs);
}

export function expiresSoon(licence: Licence, now: Date): boolean {
  return daysLeft(licence, now) < expiryWarningDays;
}

/** What a licence grants, as printed by `license show --json` and `install --json`. */
export interface LicenceSummary {
  readonly customer: string;
  readonly modules: readonly string[];
  readonly issuedAt: string;
  readonly expiresAt: string;
  readonly daysLeft: number;
}

export function licenceSummary(licence: Licence, now: Date): LicenceSummary {
  return {
    customer: licence.customer,
    modules: [...licence.modules],
    issuedAt: licence.issuedAt.toISOString(),
    expiresAt: licence.expiresAt.toISOString(),
    daysLeft: daysLeft(licence, now),
  };
}
