import { hash, timingSafeEqual } from 'node:crypto';

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
 * What a POST whose parameters are all in a form body may have been signed over: the empty
 * query string (the documented rule) and the body's parameters sorted by name and
 * form-encoded (what upstream's code rebuilds; URLSearchParams encodes as Java's URLEncoder).
 */
export function formBodyCandidates(pairs: readonly (readonly [string, string])[]): string[] {
  const sorted = pairs.filter(([name]) => name !== 'checksum').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const encoded = new URLSearchParams(sorted.map(([k, v]): [string, string] => [k, v])).toString();
  return encoded === '' ? [''] : ['', encoded];
}
