import { createHash, hash, timingSafeEqual, type Hash } from 'node:crypto';
import type { ReadQuery } from './query.js';

/** The hash is chosen by the length of the hex checksum the client sent. */
export const algorithmByLength: Readonly<Record<number, string>> = {
  40: 'sha1',
  64: 'sha256',
  96: 'sha384',
  128: 'sha512',
};

/** `hex(HASH(callName + query + secret))`, the value a client signs with. */
export function checksumOf(algorithm: string, callName: string, query: string, secret: string): string {
  return hash(algorithm, callName + query + secret, 'hex');
}

/**
 * Whether `checksum` (hex, either case) is HASH(callName + one of the candidate strings +
 * secret). Compared in constant time over equal-length digests.
 */
export function checksumMatches(
  checksum: string,
  callName: string,
  candidates: readonly string[],
  secret: string,
): boolean {
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
 * From this many characters of signed text (call name + query) on, each secret copies a hash
 * state prepared over the text instead of hashing `call + text + secret` in one call. Measured
 * on Node 20 (issue 36): alone, a copy finished with the secret costs 0.8-1.0 µs whatever the
 * length and the one-shot `hash()` passes it from about 250 characters; but in the search
 * (500 copies per call leave 500 Hash objects with native handles to collect, the likely reason)
 * searched creates over 1,000 tenants (separate processes, alternated) cost the same either way at
 * 300 and 450 characters and 25-40% less with the copy at 1,200. So the copy starts at 512.
 */
export const prefixCopyFromBytes = 512;

/**
 * One call's checksum, read once and then tried against secrets one at a time: the hex is
 * decoded once, and the signed text (call name + query) is hashed once into a prefix state
 * that each secret copies and finishes, so trying 1,000 secrets hashes the query once.
 * Gives the same answers as checksumMatches for every secret.
 */
export class SignedCall {
  private readonly algorithm: string | undefined;
  private readonly provided: Buffer | null;
  private readonly texts: readonly string[];
  private prefixes: Hash[] | null = null;

  constructor(checksum: string, callName: string, candidates: readonly string[]) {
    this.algorithm = algorithmByLength[checksum.length];
    const provided = this.algorithm ? Buffer.from(checksum, 'hex') : null;
    // Buffer.from stops at the first character that is not hex, so a checksum with one decodes short.
    this.provided = provided && provided.length * 2 === checksum.length ? provided : null;
    this.texts = candidates.map((query) => callName + query);
  }

  /** Whether `secret` signed this call (over one of the candidate texts). */
  matches(secret: string): boolean {
    const provided = this.provided;
    if (provided === null) return false;
    let matched = false;
    const prefixes = this.prefixStates();
    for (let i = 0; i < this.texts.length; i++) {
      const prefix = prefixes?.[i];
      const expected = prefix
        ? prefix.copy().update(secret).digest()
        : hash(this.algorithm!, this.texts[i]! + secret, 'buffer');
      // Every candidate is computed and compared: the time does not say which one matched.
      if (timingSafeEqual(expected, provided)) matched = true;
    }
    return matched;
  }

  /** Whether the checksum could match any secret at all (a known length of hex digits). */
  get wellFormed(): boolean {
    return this.provided !== null;
  }

  /** The prepared states, made on first use when the texts are long enough to repay them. */
  private prefixStates(): Hash[] | null {
    if (this.prefixes === null && this.texts.some((text) => text.length >= prefixCopyFromBytes)) {
      this.prefixes = this.texts.map((text) => createHash(this.algorithm!).update(text));
    }
    return this.prefixes;
  }
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
