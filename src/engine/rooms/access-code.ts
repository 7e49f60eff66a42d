import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

// Codes are short (4+ characters), so a fast hash would fall to an offline guess; scrypt
// with a per-room salt makes a leaked database much less useful.
const keyLength = 32;

export function hashAccessCode(code: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(code, salt, keyLength);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export function accessCodeMatches(code: string, stored: string): boolean {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(code, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}
