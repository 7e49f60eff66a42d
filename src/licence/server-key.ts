import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';

/**
 * The server installation key: a compact JWS signed by the licence authority with Ed25519
 * (alg EdDSA, the only one accepted), verified offline against a public key.
 * Claims: sub (customer), modules (array of module names), iat, exp.
 */

/**
 * The vendor's public key, built into the product. Its private half is kept by the vendor,
 * offline, and never in this repository; SERVICE_LICENSE_PUBLIC_KEY replaces it for private
 * deployments that run their own authority (and for tests).
 */
export const builtInLicencePublicKey = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEA1WdsQfeWClGClsxK3zc8HaPTcEi8lqcTMR31p4yjB7w=
-----END PUBLIC KEY-----
`;

export const licenceAlgorithm = 'EdDSA';

/** Why a key was refused; each has its own sentence for the operator. */
export type LicenceFault = 'malformed' | 'forged' | 'expired' | 'module';

export class LicenceError extends Error {
  override readonly name = 'LicenceError';
  constructor(
    readonly fault: LicenceFault,
    message: string,
  ) {
    super(message);
  }
}

export interface Licence {
  readonly customer: string;
  readonly modules: readonly string[];
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** An Ed25519 public key from PEM; throws when the PEM is not one. */
export function licencePublicKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`the licence public key must be Ed25519 (got ${key.asymmetricKeyType ?? 'unknown'})`);
  return key;
}

function claimsOf(key: string): { sub: string; modules: string[]; iat: number; exp: number } {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(key);
    payload = decodeJwt(key);
  } catch {
    throw new LicenceError(
      'malformed',
      'the server key is malformed: it is not a signed key (three base64url parts with JSON inside)',
    );
  }
  if (header.alg !== licenceAlgorithm) {
    throw new LicenceError(
      'forged',
      `the server key is forged: it is signed with ${JSON.stringify(header.alg ?? null)}, and only ${licenceAlgorithm} keys of the licence authority are accepted`,
    );
  }
  const { sub, modules, iat, exp } = payload as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof sub !== 'string' || sub.trim() === '') problems.push('sub (the customer) is missing');
  if (!Array.isArray(modules) || !modules.every((m) => typeof m === 'string'))
    problems.push('modules is not a list of module names');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) problems.push('iat is missing');
  if (typeof exp !== 'number' || !Number.isFinite(exp)) problems.push('exp is missing');
  if (problems.length > 0) throw new LicenceError('malformed', `the server key is malformed: ${problems.join(', ')}`);
  return { sub: sub as string, modules: modules as string[], iat: iat as number, exp: exp as number };
}

/**
 * Verifies a server key offline and returns what it grants. Throws LicenceError saying
 * which of the four faults it has: malformed, forged (signature or algorithm), expired, or
 * lacking `module`. The signature is checked before the dates, so a forged key is never
 * reported as merely expired.
 */
export async function verifyServerKey(key: string, publicKey: KeyObject, module: string, now: Date): Promise<Licence> {
  const trimmed = key.trim();
  const claims = claimsOf(trimmed);
  try {
    await jwtVerify(trimmed, publicKey, { algorithms: [licenceAlgorithm], currentDate: now, clockTolerance: 0 });
  } catch (err) {
    if (err instanceof errors.JWTExpired) {
      throw new LicenceError(
        'expired',
        `the server key expired on ${new Date(claims.exp * 1000).toISOString()}; ask for a new one`,
      );
    }
    if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JOSEAlgNotAllowed) {
      throw new LicenceError(
        'forged',
        "the server key is forged: its signature does not match the licence authority's public key",
      );
    }
    throw new LicenceError('malformed', `the server key is malformed: ${(err as Error).message}`);
  }
  if (!claims.modules.includes(module)) {
    throw new LicenceError(
      'module',
      `the server key does not include the ${module} module (it grants: ${claims.modules.length > 0 ? claims.modules.join(', ') : 'no module'})`,
    );
  }
  return Object.freeze({
    customer: claims.sub,
    modules: Object.freeze([...claims.modules]),
    issuedAt: new Date(claims.iat * 1000),
    expiresAt: new Date(claims.exp * 1000),
  });
}

/** The authority's side: a new Ed25519 pair as PEM (PKCS#8 private, SPKI public). */
export function licenceKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The authority's side: signs a server key for `customer` granting `modules` for `days`. */
export async function issueServerKey(
  privateKeyPem: string,
  grant: { customer: string; modules: readonly string[]; days: number },
  now: Date,
): Promise<string> {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`the private key must be Ed25519 (got ${privateKey.asymmetricKeyType ?? 'unknown'})`);
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ modules: [...grant.modules] })
    .setProtectedHeader({ alg: licenceAlgorithm, typ: 'JWT' })
    .setSubject(grant.customer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.round(grant.days * 86_400))
    .sign(privateKey);
}
