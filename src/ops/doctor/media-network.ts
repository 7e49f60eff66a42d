import { hasTurn } from '../../config/ice-servers.js';
import type { Config } from '../../config/settings.js';
import { check, configMissing, ok, warn } from './check.js';

/**
 * Whether people behind different NATs can see each other. Browser-to-browser media finds a
 * path by itself on one network, and through most home routers with STUN; behind symmetric
 * NATs and firewalls that allow only outgoing web traffic (schools, companies, mobile
 * networks) only a TURN relay gets through. This service has no public media address of its
 * own (the mesh relays no media), so TURN is the one answer.
 */
export function judgeMediaNetwork(config: Pick<Config, 'iceServers' | 'turnSecret' | 'turnCredentialTtlSecs'>) {
  const count = (scheme: string) => config.iceServers.filter((url) => url.startsWith(`${scheme}:`)).length;
  if (hasTurn(config.iceServers) && config.turnSecret !== null) {
    return ok(
      `TURN configured (${count('turn') + count('turns')} TURN, ${count('stun')} STUN address(es)), credentials valid ${config.turnCredentialTtlSecs} s, renewed while a participant stays`,
    );
  }
  const hint =
    'run a TURN server (coturn with use-auth-secret) and set SERVICE_ICE_SERVERS=turn:<host>:3478,turns:<host>:5349 and SERVICE_TURN_SECRET to its static-auth-secret';
  if (count('stun') > 0)
    return warn(
      `only STUN is configured (no public media address, no TURN): people behind strict NATs or firewalls will not see each other`,
      hint,
    );
  return warn(
    'neither a public media address nor TURN is configured: only people on networks that reach each other directly will see each other',
    hint,
  );
}

export const mediaNetworkCheck = check('media-network', 'Media network', (ctx) =>
  ctx.config ? judgeMediaNetwork(ctx.config) : configMissing,
);
