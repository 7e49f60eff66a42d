import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { invalidField } from '../errors.js';
import { commonPasswords } from './common-passwords.js';

export const passwordBounds = { min: 12, max: 256 } as const;

export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** scrypt's cost (N = 2^15, r = 8: 32 MiB and some tens of milliseconds a hash), kept in each hash so it can grow. */
export const passwordCost: ScryptCost = { N: 1 << 15, r: 8, p: 1 };
const keyBytes = 32;

function derive(password: string, salt: Buffer, options: ScryptCost): Promise<Buffer> {
  // Node's own scrypt on the thread pool: never on the event loop, never hand-rolled.
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      keyBytes,
      { ...options, maxmem: 256 * options.N * options.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

const keyboardRows = [
  '1234567890',
  'qwertyuiopasdfghjklzxcvbnm',
  'qwertzuiopasdfghjklyxcvbnm',
  'azertyuiopqsdfghjklmwxcvbn',
  'abcdefghijklmnopqrstuvwxyz',
];

/** A run along a keyboard row or the alphabet, forwards or backwards (qwertyuiopas, 0987654321…). */
function isRun(lower: string): boolean {
  const rows = keyboardRows.flatMap((row) => [row.repeat(3), [...row].reverse().join('').repeat(3)]);
  return rows.some((row) => row.includes(lower));
}

/** Refuses a password people or lists would guess first; field `password`. */
export function checkPassword(password: string): void {
  if ([...password].length < passwordBounds.min)
    throw invalidField('password', `password must be at least ${passwordBounds.min} characters`);
  if (password.length > passwordBounds.max)
    throw invalidField('password', `password must be at most ${passwordBounds.max} characters`);
  const lower = password.normalize('NFC').toLowerCase();
  if (commonPasswords.has(lower) || new Set(lower).size <= 2 || isRun(lower))
    throw invalidField('password', 'password is one of the most common passwords; choose another');
}

export async function hashPassword(password: string, cost: ScryptCost = passwordCost): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; compared in constant time. A malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const derived = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}
