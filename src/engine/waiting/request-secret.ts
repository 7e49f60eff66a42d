import { hash } from 'node:crypto';
import { randomBase64url } from '../random-text.js';

/** The cookie value that names a request: 256 random bits, never stored in clear. */
export function newSecret(): string {
  return randomBase64url(32);
}

/**
 * SHA-256 of a secret, in base64url: kept as text in memory (the key of its request in the room's
 * queue, and no Buffer per waiting request), stored as its 32 bytes.
 */
export function hashSecret(secret: string): string {
  // One-shot: every poll hashes its cookie, and a streaming Hash object costs more than the hash.
  return hash('sha256', secret, 'base64url');
}

/** A cookie that cannot be one of ours is not hashed at all (43 chars of base64url). */
export function plausibleSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
