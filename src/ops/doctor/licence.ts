import { installedLicence } from '../../licence/installation.js';
import type { LicenceFault } from '../../licence/server-key.js';
import { check, configMissing, fail, ok, skip, warn } from './check.js';

const dayMs = 86_400_000;
/** The daemon warns this many days before expiry; doctor warns from the same day. */
export const renewalDays = 30;

const faultHints: Record<LicenceFault, string> = {
  malformed: 'install the key again: meetctl install compat --key-file PATH',
  forged:
    'the key was not signed by the authority whose public key this machine uses (SERVICE_LICENSE_PUBLIC_KEY or the built-in one): install a key from that authority, or configure its public key',
  expired:
    'ask for a new server key and run meetctl install compat --key-file PATH; meetings in progress go on, but the module will not start again',
  module: 'the key does not grant the compat module: ask for one that does',
};

/** A forged verdict while no key is configured is, on a real machine, mostly a private authority's key checked against the built-in one. */
const privateAuthorityHint =
  "if the key comes from a private licence authority, set SERVICE_LICENSE_PUBLIC_KEY in the env file to that authority's public key (meetctl install compat records it when its environment names it); otherwise install a key from the vendor";

export const licenceCheck = check('licence', 'Compat licence', async (ctx) => {
  if (ctx.config === null) return configMissing;
  const found = await installedLicence(ctx.config.dataDir, 'compat', ctx.config.licensePublicKey, ctx.now);
  if (found.status === 'absent') return skip('compat module not installed (the engine alone needs no key)');
  if (found.status === 'invalid') {
    const builtIn = found.error.fault === 'forged' && ctx.config.licensePublicKey === null;
    return fail(
      `${found.error.fault}: ${found.error.message}`,
      builtIn ? privateAuthorityHint : faultHints[found.error.fault],
    );
  }
  const { customer, expiresAt } = found.licence;
  const days = Math.floor((expiresAt.getTime() - ctx.now.getTime()) / dayMs);
  const detail = `valid for ${customer}, expires ${expiresAt.toISOString().slice(0, 10)} (${days} day${days === 1 ? '' : 's'} left)`;
  if (days < renewalDays)
    return warn(
      detail,
      'ask for a renewed server key and run meetctl install compat --key-file PATH before it expires',
    );
  return ok(detail);
});
