import { randomBase64url } from '../random-text.js';

/** 128 random bits, URL-safe: ids that are shown or sent must not be guessable or enumerable. */
export function randomId(): string {
  return randomBase64url(16);
}
