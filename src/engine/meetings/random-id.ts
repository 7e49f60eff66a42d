import { randomBytes } from 'node:crypto';

/** 128 random bits, URL-safe: ids that are shown or sent must not be guessable or enumerable. */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}
