import { decodeJwt } from 'jose';
import { writeInstallation } from '../../src/licence/installation.js';
import { issueServerKey, licenceKeyPair, verifyServerKey, licencePublicKey } from '../../src/licence/server-key.js';

/** One licence authority per test process: a pair is cheap, but one is enough. */
let pair: { privateKeyPem: string; publicKeyPem: string } | null = null;

export function testAuthority(): { privateKeyPem: string; publicKeyPem: string } {
  pair ??= licenceKeyPair();
  return pair;
}

/** A server key of the test authority (compat, a year, unless told otherwise). */
export function testServerKey(
  grant: { customer?: string; modules?: readonly string[]; days?: number } = {},
  now = new Date(),
): Promise<string> {
  return issueServerKey(
    testAuthority().privateKeyPem,
    { customer: grant.customer ?? 'Test customer', modules: grant.modules ?? ['compat'], days: grant.days ?? 365 },
    now,
  );
}

/**
 * Installs a valid compat licence of the test authority in `dataDir` (what `meetctl install
 * compat` records) and returns the environment a daemon needs to trust it.
 */
export async function installTestLicence(
  dataDir: string,
  grant: Parameters<typeof testServerKey>[0] = {},
): Promise<{ SERVICE_LICENSE_PUBLIC_KEY: string }> {
  const key = await testServerKey(grant);
  const { publicKeyPem } = testAuthority();
  writeInstallation(
    dataDir,
    'compat',
    key,
    await verifyServerKey(key, licencePublicKey(publicKeyPem), 'compat', new Date()),
  );
  return { SERVICE_LICENSE_PUBLIC_KEY: publicKeyPem };
}

/**
 * Records any key (valid, expired, forged...) as `meetctl install` would, with the readable
 * fields copied from the key's own claims, so the record itself is never "edited".
 */
export function recordServerKey(dataDir: string, key: string): void {
  const claims = decodeJwt(key) as { sub: string; modules: string[]; iat: number; exp: number };
  writeInstallation(dataDir, 'compat', key, {
    customer: claims.sub,
    modules: claims.modules,
    issuedAt: new Date(claims.iat * 1000),
    expiresAt: new Date(claims.exp * 1000),
  });
}
