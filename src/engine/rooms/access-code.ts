import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

// Codes are short (4+ characters), so a fast hash would fall to an offline guess; scrypt
// with a per-room salt makes a leaked database much less useful.
const keyLength = 32;

/** Only the rooms API (bearer token holders) sets a code, so hashing it inline stays an admin's cost. */
export function hashAccessCode(code: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(code, salt, keyLength);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Checks codes on the libuv pool, not the event loop: a guesser sends codes for free, and each
 * costs tens of milliseconds of scrypt that every other request would otherwise wait for. At
 * most `concurrency` hashes run at once (one by default), so guesses cannot take every core
 * from the loop either; the rest queue.
 */
export class AccessCodeChecker {
  private running = 0;
  private readonly queued: (() => void)[] = [];

  constructor(private readonly concurrency = 1) {}

  async matches(code: string, stored: string): Promise<boolean> {
    const [scheme, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
    const expected = Buffer.from(hash, 'base64url');
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.queued.push(resolve));
    this.running++;
    try {
      const actual = await new Promise<Buffer>((resolve, reject) =>
        scrypt(code, Buffer.from(salt, 'base64url'), expected.length, (err, key) => (err ? reject(err) : resolve(key))),
      );
      return timingSafeEqual(actual, expected);
    } finally {
      this.running--;
      this.queued.shift()?.();
    }
  }
}
