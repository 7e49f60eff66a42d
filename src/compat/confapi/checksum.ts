import { hash, timingSafeEqual } from 'node:crypto';
import type { ReadQuery } from './query.js';

/** The hash is chosen by the length of the hex checksum the client sent. */
export const algorithmByLength: Readonly<Record<number, string>> = { 40: 'sha1', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

/** `hex(HASH(callName + query + secret))`, the value a client signs with. */
export function checksumOf(algorithm: string, callName: string, query: string, secret: string): string {
  return hash(algorithm, callName + query + secret, 'hex');
}

/**
 * Whether `checksum` (hex, either case) is HASH(callName + one of the candidate strings +
 * secret). Compared in constant time over equal-length digests.
 */
export function checksumMatches(checksum: string, callName: string, candidates: readonly string[], secret: string): boolean {
  const algorithm = algorithmByLength[checksum.length];
  if (!algorithm) return false;
  // Buffer.from stops at the first character that is not hex, so a checksum with one decodes short.
  const provided = Buffer.from(checksum, 'hex');
  if (provided.length * 2 !== checksum.length) return false;
  let matched = false;
  for (const query of candidates) {
    const expected = hash(algorithm, callName + query + secret, 'buffer');
    // Every candidate is computed and compared: the time does not say which one matched.
    if (expected.length === provided.length && timingSafeEqual(expected, provided)) matched = true;
  }
  return matched;
}

/**
 * The texts a call's checksum may be over; it must match one. The rule: the checksum covers
 * the parameters the call uses, wherever they were sent.
 * - Parameters in the query string (every GET, and a create POSTing XML, whose body upstream
 *   never signs): the raw query minus its checksum pair.
 * - Parameters in a form body, the query holding at most the checksum: the raw body minus its
 *   checksum pair (what a client that POSTs the string it would have put in the URL signed),
 *   or the body's pairs sorted by name and form-encoded as Java's URLEncoder does (upstream's
 *   older POST rule; it is over decoded pairs, so a re-encoded body with the same pairs still
 *   matches). Never the empty query: a checksum over "" is one string per call name, valid
 *   forever, and would authorise any body.
 * - Parameters in both: the query's text; the call is then refused, the body being unsigned.
 * The route has already required exactly one checksum, sent under its literal name.
 */
export function signedTexts(query: ReadQuery, body: ReadQuery | null): string[] {
  if (body === null || body.params.length === 0 || query.params.length > 0) return [query.signed];
  const sorted = [...body.params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const encoded = new URLSearchParams(sorted).toString();
  return encoded === body.signed ? [body.signed] : [body.signed, encoded];
}
