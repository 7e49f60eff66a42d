import { createHmac } from 'node:crypto';
import type { Clock } from '../../engine/clock.js';
import type { IceCredentials } from '../../engine/live/ice-renewal.js';
import type { IceServer } from '../../protocol/live.js';

export type { IceServer } from '../../protocol/live.js';

export interface IceSettings {
  readonly iceServers: readonly string[];
  readonly turnSecret: string | null;
  /** How long a TURN credential is valid (SERVICE_TURN_CREDENTIAL_TTL_SECS); renewed over the live socket while she stays. */
  readonly turnCredentialTtlSecs: number;
}

/** The TURN credential's lifetime when a caller gives none (the setting's default). */
export const defaultTurnCredentialTtlSecs = 3600;

/**
 * TURN REST credentials, as coturn's `use-auth-secret` checks them: the user name is
 * `<expiry unix time>:<who>` and the password base64(HMAC-SHA1(secret, user name)). The TURN
 * server needs no call from us, so it cannot be told that someone left: a credential works
 * until its expiry, which is why it is short (an hour) and renewed only while she stays.
 */
export function turnCredential(
  secret: string,
  who: string,
  expiresAtSecs: number,
): { username: string; credential: string } {
  const username = `${expiresAtSecs}:${who}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

const hasTurnCredentials = (settings: IceSettings): boolean =>
  settings.turnSecret !== null && settings.iceServers.some((url) => !url.startsWith('stun:'));

/**
 * The servers for one admitted participant: STUN addresses as they are, TURN addresses with a
 * credential of her own (a shared password would let anyone who saw one page relay forever).
 * Empty when none are configured: the page then finds only direct and local paths.
 */
export function iceServersFor(settings: IceSettings, participantId: string, clock: Clock): IceServer[] {
  const stun = settings.iceServers.filter((url) => url.startsWith('stun:'));
  const turn = settings.iceServers.filter((url) => !url.startsWith('stun:'));
  const servers: IceServer[] = [];
  if (stun.length > 0) servers.push({ urls: stun });
  if (turn.length > 0 && settings.turnSecret !== null) {
    const expires = Math.floor(clock.now().getTime() / 1000) + settings.turnCredentialTtlSecs;
    servers.push({ urls: turn, ...turnCredential(settings.turnSecret, participantId, expires) });
  }
  return servers;
}

/** What the live hub renews with: the same servers, minted afresh; nothing when no TURN credential is handed out. */
export function iceCredentials(settings: IceSettings, clock: Clock): IceCredentials {
  return {
    serversFor: (participantId) =>
      hasTurnCredentials(settings) ? iceServersFor(settings, participantId, clock) : null,
    lifetimeMs: settings.turnCredentialTtlSecs * 1000,
  };
}
