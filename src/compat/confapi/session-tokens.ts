import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { inGrace, type Tenant } from '../tenants/parse.js';

/**
 * The `session_token` a join hands out (upstream's handle on the joined person, which
 * getJoinUrl and learningDashboard take back): what the join decided, an HS256 JWT (jose)
 * signed with the tenant's meeting-API secret, so it is checked without a table and survives a
 * restart; a forged or altered one, or one of another tenant, fails. It admits nobody by
 * itself: getJoinUrl checks it and makes a fresh join token for the same person and role.
 */
export interface JoinSession {
  /** The meeting's internal id. */
  readonly meeting: string;
  readonly role: 'moderator' | 'participant';
  /** A guest's link (source `link`): she meets the waiting room again. */
  readonly guest: boolean;
  readonly name: string;
  readonly uid?: string;
  readonly avatar?: string;
}

/** A session token longer than this is refused before it is decoded. */
const maxTokenChars = 4096;
/**
 * Its JWT type: the tenant's secret also signs the recording-ready callbacks' tokens, which must
 * never pass for a session (and a session never for one of them).
 */
const sessionType = 'confapi-session+jwt';

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** A new token for every join (a random id), as upstream hands out a new one each time: an HS256 JWT. */
export function signJoinSession(secret: string, session: JoinSession): Promise<string> {
  return new SignJWT({ ...session })
    .setProtectedHeader({ alg: 'HS256', typ: sessionType })
    .setJti(randomBytes(12).toString('base64url'))
    .sign(keyOf(secret));
}

function sessionOf(value: Record<string, unknown>): JoinSession | null {
  const v = value;
  if (typeof v.meeting !== 'string' || typeof v.name !== 'string' || typeof v.guest !== 'boolean') return null;
  if (v.role !== 'moderator' && v.role !== 'participant') return null;
  if (v.uid !== undefined && typeof v.uid !== 'string') return null;
  if (v.avatar !== undefined && typeof v.avatar !== 'string') return null;
  return {
    meeting: v.meeting,
    role: v.role,
    guest: v.guest,
    name: v.name,
    ...(v.uid !== undefined ? { uid: v.uid } : {}),
    ...(v.avatar !== undefined ? { avatar: v.avatar } : {}),
  };
}

/**
 * The session a token stands for, when the tenant's secret (or the one a rotation replaced, in
 * its grace) signed it as a session: HS256 only, its own type.
 */
export async function verifyJoinSession(tenant: Tenant, token: string, nowMs: number): Promise<JoinSession | null> {
  if (token.length > maxTokenChars) return null;
  const secrets = [tenant.apiSecret, inGrace(tenant.previousApiSecret, nowMs) ? tenant.previousApiSecret.secret : null];
  let found: JoinSession | null = null;
  // Every secret is tried, so the time taken does not say which one matched.
  for (const secret of secrets) {
    if (!secret) continue;
    try {
      const { payload } = await jwtVerify(token, keyOf(secret), {
        algorithms: ['HS256'],
        typ: sessionType,
        currentDate: new Date(nowMs),
      });
      found ??= sessionOf(payload);
    } catch {
      // Not signed by this secret, not a session, or not a JWT at all.
    }
  }
  return found;
}
