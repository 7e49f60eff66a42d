import { createSecretKey, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';

/**
 * Join tokens (who may arrive, and as what) and session tokens (who is in, after
 * admission) are both HS256 JWTs signed with the service's own key. Each kind has its own
 * `typ` header, checked on verify, so a join token can never pass for a session.
 */
export const tokenTypes = { join: 'meet-join+jwt', session: 'meet-session+jwt' } as const;

const algorithms = ['HS256'];
const issuer = 'meet';

export type Role = 'moderator' | 'participant';
export type ArrivalSource = 'link' | 'lms' | 'integration';

export interface JoinClaims {
  readonly room: string;
  readonly role: Role;
  readonly source: ArrivalSource;
  readonly name?: string;
  /** The platform's id of the person (the meeting API's `userID`). */
  readonly uid?: string;
  /** Her picture (an http(s) URL): the meeting API's `avatarURL`, a gateway token's `context.user.avatar`. */
  readonly avatar?: string;
  /**
   * Origins that may frame the room page this token opens (`*`: any): set only by the embed
   * gateway after it verified the application's token, so framing follows something signed,
   * never a query parameter.
   */
  readonly embed?: readonly string[];
}

export interface SessionClaims {
  readonly room: string;
  readonly meeting: string;
  readonly participant: string;
  readonly role: Role;
  readonly name: string;
}

const roles: readonly string[] = ['moderator', 'participant'];
const sources: readonly string[] = ['link', 'lms', 'integration'];

function isString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** `*` or an http(s) origin: what a frame-ancestors list may hold, nothing that could end the directive. */
const embedOrigin = /^(\*|https?:\/\/[A-Za-z0-9.*-]+(:\d{1,5})?)$/;

/** An http(s) URL of at most 2048 characters, else null: anything else is never shown as a picture. */
function avatarUrl(value: unknown): string | null {
  if (!isString(value) || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

function embedList(value: unknown): readonly string[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > 32) return null;
  return value.every((origin) => typeof origin === 'string' && embedOrigin.test(origin)) ? (value as string[]) : null;
}

export class TokenService {
  // A key object made once: given raw bytes, every sign and verify would import the key again.
  private readonly key: KeyObject;

  constructor(
    key: Uint8Array,
    private readonly clock: Clock,
  ) {
    if (key.length < 32) throw new Error('the signing key must hold at least 32 bytes');
    this.key = createSecretKey(key);
  }

  private sign(type: string, claims: JWTPayload, ttlSecs: number): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: type })
      .setIssuer(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSecs)
      .sign(this.key);
  }

  /** The payload when the token is ours, of this kind, unexpired (or expired less than `graceSecs` ago); null for anything else. */
  private async verify(token: string, type: string, graceSecs = 0): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms,
        typ: type,
        issuer,
        currentDate: this.clock.now(),
        clockTolerance: graceSecs,
      });
      return payload;
    } catch (err) {
      if (err instanceof errors.JOSEError) return null;
      throw err;
    }
  }

  signJoin(claims: JoinClaims, ttlSecs: number): Promise<string> {
    return this.sign(tokenTypes.join, { ...claims }, ttlSecs);
  }

  /**
   * The claims of a join token for arriving. `openSince`, when the token's room has a meeting
   * open, is when that meeting began: a link that was good then stays good until the meeting
   * ends (issue 31: a teacher who leaves comes back in with the link she came with), while an
   * expired link never opens a new meeting.
   */
  async verifyJoin(token: string, openSince: Date | null = null): Promise<JoinClaims | null> {
    const p = await this.verify(token, tokenTypes.join, openSince ? this.secondsSince(openSince) : 0);
    if (p && openSince && (typeof p.exp !== 'number' || p.exp * 1000 < openSince.getTime())) return null;
    if (!p || !isString(p.room) || !roles.includes(p.role as string) || !sources.includes(p.source as string))
      return null;
    const embed = embedList(p.embed);
    return {
      room: p.room,
      role: p.role as Role,
      source: p.source as ArrivalSource,
      ...(isString(p.name) ? { name: p.name } : {}),
      ...(isString(p.uid) && p.uid.length <= 256 ? { uid: p.uid } : {}),
      ...(avatarUrl(p.avatar) !== null ? { avatar: avatarUrl(p.avatar)! } : {}),
      ...(embed ? { embed } : {}),
    };
  }

  /**
   * The room and the framing origins of a join token of the embed gateway, for the page's
   * `frame-ancestors` only: still read up to `graceSecs` after the token expired, because a
   * reload inside the frame presents the token the frame was opened with, and the page must
   * stay framable for the meeting's length. It admits nobody (`verifyJoin` refuses it then).
   */
  async framingOf(
    token: string,
    graceSecs: number,
  ): Promise<{ readonly room: string; readonly embed: readonly string[] } | null> {
    const p = await this.verify(token, tokenTypes.join, graceSecs);
    const embed = p ? embedList(p.embed) : null;
    return p && isString(p.room) && embed ? { room: p.room, embed } : null;
  }

  /** Whole seconds from `since` to now (at least 0): how far past its expiry a token may be and still count. */
  private secondsSince(since: Date): number {
    return Math.max(0, Math.ceil((this.clock.now().getTime() - since.getTime()) / 1000));
  }

  signSession(claims: SessionClaims, ttlSecs: number): Promise<string> {
    return this.sign(tokenTypes.session, { ...claims }, ttlSecs);
  }

  async verifySession(token: string): Promise<SessionClaims | null> {
    const p = await this.verify(token, tokenTypes.session);
    if (
      !p ||
      !isString(p.room) ||
      !isString(p.meeting) ||
      !isString(p.participant) ||
      !roles.includes(p.role as string) ||
      typeof p.name !== 'string'
    ) {
      return null;
    }
    return { room: p.room, meeting: p.meeting, participant: p.participant, role: p.role as Role, name: p.name };
  }
}
