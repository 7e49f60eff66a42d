import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { issueServerKey, licenceKeyPair, type LicenceFault } from '../../src/licence/server-key.js';
import { testAuthority, testServerKey } from './licence.js';

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Claims the test authority signs as they are given (missing or odd claims included). */
async function signedRaw(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA' }).sign(createPrivateKey(testAuthority().privateKeyPem));
}

/**
 * Server keys that must be refused, each with the fault install and serve must name.
 * Every one of them is refused before anything is written.
 */
export async function badKeys(): Promise<{ name: string; key: string; fault: LicenceFault }[]> {
  const now = Math.floor(Date.now() / 1000);
  const good = await testServerKey({ customer: 'Honest school' });
  const [header, , signature] = good.split('.');
  const other = licenceKeyPair();
  return [
    { name: 'garbage', key: 'this-is-not-a-key', fault: 'malformed' },
    { name: 'two parts', key: good.split('.').slice(0, 2).join('.'), fault: 'malformed' },
    { name: 'bad base64', key: `${header}.@@not*base64@@.${signature}`, fault: 'malformed' },
    { name: 'payload not JSON', key: `${header}.${b64('not json')}.${signature}`, fault: 'malformed' },
    {
      name: 'missing sub',
      key: await signedRaw({ modules: ['compat'], iat: now, exp: now + 86_400 }),
      fault: 'malformed',
    },
    { name: 'missing exp', key: await signedRaw({ sub: 'x', modules: ['compat'], iat: now }), fault: 'malformed' },
    {
      name: 'modules not a list',
      key: await signedRaw({ sub: 'x', modules: 'compat', iat: now, exp: now + 86_400 }),
      fault: 'malformed',
    },
    {
      name: 'signed by another pair',
      key: await issueServerKey(
        other.privateKeyPem,
        { customer: 'Mallory', modules: ['compat'], days: 365 },
        new Date(),
      ),
      fault: 'forged',
    },
    {
      name: 'HS256 with the public key as secret',
      key: await new SignJWT({ modules: ['compat'] })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('Mallory')
        .setIssuedAt(now)
        .setExpirationTime(now + 86_400)
        .sign(Buffer.from(testAuthority().publicKeyPem)),
      fault: 'forged',
    },
    {
      name: 'alg none',
      key: `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'Mallory', modules: ['compat'], iat: now, exp: now + 86_400 })}.`,
      fault: 'forged',
    },
    {
      name: 'payload swapped under a real signature',
      key: `${header}.${b64({ sub: 'Mallory', modules: ['compat'], iat: now, exp: now + 10 * 365 * 86_400 })}.${signature}`,
      fault: 'forged',
    },
    { name: 'expired', key: await testServerKey({ days: 1 }, new Date(Date.now() - 3 * 86_400_000)), fault: 'expired' },
    { name: 'another module only', key: await testServerKey({ modules: ['recording'] }), fault: 'module' },
    { name: 'no module at all', key: await testServerKey({ modules: [] }), fault: 'module' },
  ];
}

/** The words of each fault's message (what install prints after "meetctl: "). */
export const faultWords: Record<LicenceFault, RegExp> = {
  malformed: /server key is malformed/,
  forged: /server key is forged/,
  expired: /server key expired on \d{4}-\d\d-\d\dT/,
  module: /server key does not include the compat module/,
};
