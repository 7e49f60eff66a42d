// Tokens as embedding applications mint them, and the wrong ones an attacker would try:
// header and payload are given as JSON text, so duplicate names and odd headers are possible.
import { createHmac, generateKeyPairSync, sign as signRsa } from 'node:crypto';

export const mainAppId = 'main-app';
export const mainSecret = 'main-app-secret-0123456789abcdefghijkl';
export const acmeAppId = 'acme-app';
export const acmeSecret = 'acme-app-secret-0123456789abcdefghijkl';
export const betaAppId = 'beta-app';
export const betaSecret = 'beta-app-secret-0123456789abcdefghijkl';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export interface MintOptions {
  /** The header's JSON text (default HS256, typ JWT). */
  readonly header?: string;
  readonly secret?: string;
  /** hmac algorithm of the signature (sha256 for HS256). */
  readonly hash?: 'sha256' | 'sha384' | 'sha512';
}

/** A compact JWS over the payload's JSON text (an object is stringified). */
export function mint(payload: string | Record<string, unknown>, options: MintOptions = {}): string {
  const header = options.header ?? '{"alg":"HS256","typ":"JWT"}';
  const input = `${b64(header)}.${b64(typeof payload === 'string' ? payload : JSON.stringify(payload))}`;
  const signature = createHmac(options.hash ?? 'sha256', options.secret ?? mainSecret)
    .update(input)
    .digest('base64url');
  return `${input}.${signature}`;
}

let rsaKey: ReturnType<typeof generateKeyPairSync> | null = null;

/** An RS256 token (what the cloud offering uses): refused here whatever it says. */
export function mintRs256(payload: Record<string, unknown>): string {
  rsaKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = `${b64('{"alg":"RS256","typ":"JWT"}')}.${b64(JSON.stringify(payload))}`;
  return `${input}.${signRsa('sha256', Buffer.from(input), rsaKey.privateKey).toString('base64url')}`;
}

/** A valid payload of the primary app for `room`, valid for an hour. */
export function claims(
  room: string,
  extra: Record<string, unknown> = {},
  now = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  return {
    iss: mainAppId,
    aud: 'jitsi',
    sub: 'meet.example.org',
    room,
    iat: now,
    exp: now + 3600,
    context: { user: { name: 'Ann Example', moderator: false } },
    ...extra,
  };
}

export function without(payload: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...payload };
  delete copy[key];
  return copy;
}
