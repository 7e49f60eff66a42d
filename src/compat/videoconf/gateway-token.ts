import { compactVerify, errors } from 'jose';
import { hasDuplicateKeys } from './duplicate-keys.js';
import { GatewayRefusal } from './refusals.js';

/** A token longer than this is refused before anything of it is decoded. */
export const maxTokenChars = 8 * 1024;
/** `nbf` or `iat` a little ahead of our clock is accepted: the application's clock may run fast. */
export const notBeforeToleranceSecs = 30;
/**
 * The longest validity a token may claim by default (COMPAT_JITSI_MAX_TOKEN_LIFETIME), counted
 * from now (and from `iat` when that lies in the past): an `iat` in the future would otherwise
 * move the start of the count with it.
 */
export const defaultMaxLifetimeSecs = 24 * 60 * 60;

/** An application's key: the primary pair (COMPAT_JITSI_*) or a registry tenant's. */
export interface GatewayPair {
  readonly tenantId: string;
  readonly secret: Uint8Array;
  /** The secret a rotation replaced, accepted beside `secret` until `until` (ms since the epoch). */
  readonly previous?: { readonly secret: Uint8Array; readonly until: number };
  /** Issuers accepted with this secret; `*` accepts any. */
  readonly acceptedIssuers: readonly string[];
  /** Origins that may frame this application's pages; `*` any. */
  readonly embedOrigins: readonly string[];
}

export interface TokenRules {
  /** The pair whose secret checks a token of this issuer, in one lookup; null: nobody accepts it. */
  pairFor(iss: string): GatewayPair | null;
  readonly acceptedAudiences: readonly string[];
  readonly now: Date;
  /** COMPAT_JITSI_MAX_TOKEN_LIFETIME: the longest validity accepted, in seconds; 0: no cap. */
  readonly maxLifetimeSecs: number;
}

/** What a valid token says about the person. */
export interface GatewayIdentity {
  readonly pair: GatewayPair;
  readonly sub: string;
  readonly name: string | null;
  readonly moderator: boolean;
  readonly userId: string | null;
  readonly avatar: string | null;
  readonly email: string | null;
}

/**
 * The one canonical form rooms are compared and keyed in: NFC, then lower case (String
 * toLowerCase, which is locale-independent). `Math`, `MATH` and `math` are one room; a name
 * typed with a combining accent and the same name precomposed are one room.
 */
export function canonicalRoom(room: string): string {
  return room.normalize('NFC').toLowerCase();
}

function decodedJson(segment: string): Record<string, unknown> {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) throw new GatewayRefusal('token_malformed');
  const text = Buffer.from(segment, 'base64url').toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayRefusal('token_malformed');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GatewayRefusal('token_malformed');
  if (hasDuplicateKeys(text)) throw new GatewayRefusal('duplicate_claim');
  return value as Record<string, unknown>;
}

function optionalNumber(value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new GatewayRefusal('token_malformed');
  return value;
}

function accepts(list: readonly string[], value: string): boolean {
  return list.includes('*') || list.includes(value);
}

function table(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function shortString(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.trim() !== '' && value.length <= max ? value : null;
}

function httpUrl(value: unknown): string | null {
  const text = shortString(value, 2048);
  if (text === null) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? text : null;
  } catch {
    return null;
  }
}

/**
 * Verifies an application's token for `roomName`, upstream's HS256 rules made strict:
 * size first, then the header (HS256 exactly; `typ` absent or JWT; no `crit`, no `b64`),
 * no name twice in header or payload, the issuer's secret (one lookup), the signature (jose,
 * HS256 locked), then exp (required), nbf and iat (30 s tolerance), the lifetime from now, sub, aud and room.
 * Throws GatewayRefusal with the code of the first failed rule.
 */
export async function verifyGatewayToken(token: string, roomName: string, rules: TokenRules): Promise<GatewayIdentity> {
  if (token.length > maxTokenChars) throw new GatewayRefusal('token_too_large');
  const parts = token.split('.');
  if (parts.length !== 3) throw new GatewayRefusal('token_malformed');
  const header = decodedJson(parts[0]!);
  if (header.alg !== 'HS256') throw new GatewayRefusal('algorithm_refused');
  // Extensions change how a JWS is read (b64:false signs the raw payload): none is understood here.
  if ('crit' in header || 'b64' in header) throw new GatewayRefusal('algorithm_refused');
  if (parts[2] === '') throw new GatewayRefusal('signature_invalid');
  if (header.typ !== undefined && header.typ !== 'JWT') throw new GatewayRefusal('token_malformed');
  const claims = decodedJson(parts[1]!);

  if (claims.iss === undefined) throw GatewayRefusal.missing('iss');
  if (typeof claims.iss !== 'string') throw new GatewayRefusal('token_malformed');
  const pair = rules.pairFor(claims.iss);
  if (!pair || !accepts(pair.acceptedIssuers, claims.iss)) throw new GatewayRefusal('issuer_not_accepted');
  const previous =
    pair.previous !== undefined && rules.now.getTime() < pair.previous.until ? [pair.previous.secret] : [];
  let signed = false;
  // During a rotation's grace both secrets are always tried, so the time does not say which one signed.
  for (const secret of [pair.secret, ...previous]) {
    try {
      await compactVerify(token, secret, { algorithms: ['HS256'] });
      signed = true;
    } catch (err) {
      if (err instanceof errors.JWSSignatureVerificationFailed) continue;
      if (err instanceof errors.JOSEError) throw new GatewayRefusal('token_malformed');
      throw err;
    }
  }
  if (!signed) throw new GatewayRefusal('signature_invalid');

  const now = Math.floor(rules.now.getTime() / 1000);
  const exp = optionalNumber(claims.exp);
  const nbf = optionalNumber(claims.nbf);
  const iat = optionalNumber(claims.iat);
  if (exp === null) throw GatewayRefusal.missing('exp');
  if (now >= exp) throw new GatewayRefusal('token_expired');
  if (nbf !== null && now + notBeforeToleranceSecs < nbf) throw new GatewayRefusal('token_not_yet_valid');
  // A token cannot have been issued later than now; beyond the clock skew, its iat is a lie.
  if (iat !== null && now + notBeforeToleranceSecs < iat) throw new GatewayRefusal('issued_in_future');
  if (rules.maxLifetimeSecs > 0 && exp - Math.min(iat ?? now, now) > rules.maxLifetimeSecs)
    throw GatewayRefusal.tooLong(rules.maxLifetimeSecs);

  for (const claim of ['sub', 'aud', 'room'] as const)
    if (claims[claim] === undefined) throw GatewayRefusal.missing(claim);
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new GatewayRefusal('token_malformed');
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (audiences.length === 0 || !audiences.every((a) => typeof a === 'string'))
    throw new GatewayRefusal('token_malformed');
  if (!audiences.some((a) => accepts(rules.acceptedAudiences, a))) throw new GatewayRefusal('audience_not_accepted');
  if (typeof claims.room !== 'string') throw new GatewayRefusal('token_malformed');
  if (claims.room !== '*' && canonicalRoom(claims.room) !== canonicalRoom(roomName))
    throw new GatewayRefusal('wrong_room');

  const user = table(table(claims.context).user);
  return {
    pair,
    sub: claims.sub,
    name: shortString(user.name, 256),
    // Only these two spellings: "yes", 1 or "false" make nobody a moderator.
    moderator: user.moderator === true || user.moderator === 'true',
    userId: shortString(user.id, 256),
    avatar: httpUrl(user.avatar ?? user.avatarUrl),
    email: shortString(user.email, 254),
  };
}
