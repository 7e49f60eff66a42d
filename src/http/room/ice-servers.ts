import { createHmac } from 'node:crypto';
import type { Clock } from '../../engine/clock.js';
import { sessionTtlSecs } from './session.js';

/** What a page's RTCPeerConnection is given (RTCIceServer, as JSON). */
export interface IceServer {
  readonly urls: readonly string[];
  readonly username?: string;
  readonly credential?: string;
}

export interface IceSettings {
  readonly iceServers: readonly string[];
  readonly turnSecret: string | null;
}

/**
 * TURN REST credentials, as coturn's `use-auth-secret` checks them: the user name is
 * `<expiry unix time>:<who>` and the password base64(HMAC-SHA1(secret, user name)). The TURN
 * server needs no call from us, and a credential stops working at its expiry: as long as the
 * session it came with.
 */
export function turnCredential(secret: string, who: string, expiresAtSecs: number): { username: string; credential: string } {
  const username = `${expiresAtSecs}:${who}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

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
    const expires = Math.floor(clock.now().getTime() / 1000) + sessionTtlSecs;
    servers.push({ urls: turn, ...turnCredential(settings.turnSecret, participantId, expires) });
  }
  return servers;
}
