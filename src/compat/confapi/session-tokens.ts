import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inGrace, type Tenant } from '../tenants/parse.js';

/**
 * The `session_token` a join hands out (upstream's handle on the joined person, which
 * getJoinUrl and learningDashboard take back): what the join decided, signed with HMAC-SHA256
 * under the tenant's meeting-API secret, so it is checked without a table and survives a
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
const label = 'confapi-session-v1.';

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret)
    .update(label + payload)
    .digest('base64url');
}

/** A new token for every join (a random nonce first), as upstream hands out a new one each time. */
export function signJoinSession(secret: string, session: JoinSession): string {
  const nonce = randomBytes(12).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ nonce, ...session }), 'utf8').toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

function sessionOf(value: unknown): JoinSession | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
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

/** The session a token stands for, when the tenant's secret (or the one a rotation replaced, in its grace) signed it. */
export function verifyJoinSession(tenant: Tenant, token: string, nowMs: number): JoinSession | null {
  if (token.length > maxTokenChars) return null;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, payload, signature] = match as unknown as [string, string, string];
  const secrets = [tenant.apiSecret, inGrace(tenant.previousApiSecret, nowMs) ? tenant.previousApiSecret.secret : null];
  let signed = false;
  // Every secret is tried, so the time taken does not say which one matched.
  for (const secret of secrets)
    if (secret !== null && timingSafeEqual(Buffer.from(mac(secret, payload)), Buffer.from(signature))) signed = true;
  if (!signed) return null;
  try {
    return sessionOf(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return null;
  }
}
