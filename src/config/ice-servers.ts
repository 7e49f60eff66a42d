import { InvalidValue, list, secret } from './parsers.js';

/**
 * STUN and TURN servers the browsers use to find a path to each other (RFC 7064 and 7065 URIs):
 * `stun:host[:port]`, `turn:host[:port][?transport=udp|tcp]`, `turns:host[:port][?transport=tcp|udp]`.
 * Only plain ASCII host names and IP literals: the list is handed to every admitted page and
 * goes straight into its RTCPeerConnection, so nothing a browser might read differently
 * (percent-escapes, user info, paths, other schemes, Unicode look-alikes) gets through.
 */
const iceUri =
  /^(stun|turn|turns):((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?(?:\?transport=(udp|tcp))?$/;

export function iceServerList(raw: unknown): string[] {
  const entries = list(raw);
  for (const entry of entries) {
    const shown = JSON.stringify(entry.length > 80 ? `${entry.slice(0, 80)}…` : entry);
    const match = iceUri.exec(entry);
    if (!match) {
      throw new InvalidValue(
        `must list STUN or TURN servers such as stun:stun.example.org:3478, turn:turn.example.org:3478?transport=udp or turns:turn.example.org:5349 (got ${shown}; only stun:, turn: and turns: addresses, without user name, password or path)`,
      );
    }
    const port = match[3] === undefined ? null : Number(match[3]);
    if (port !== null && (port < 1 || port > 65535))
      throw new InvalidValue(`must use ports from 1 to 65535 (got ${shown})`);
    if (match[1] === 'stun' && match[4] !== undefined)
      throw new InvalidValue(`must not give a transport for a stun: address (got ${shown})`);
  }
  return [...new Set(entries)];
}

/**
 * The shared secret of a TURN server's REST credentials (coturn's `use-auth-secret` with
 * `static-auth-secret`). Anyone holding it can mint TURN credentials, so a short one is refused.
 */
export function turnSecret(raw: unknown): string {
  const value = secret(raw);
  if (Buffer.byteLength(value, 'utf8') < 16)
    throw new InvalidValue('must hold at least 16 bytes (it is what lets anyone relay through the TURN server)');
  return value;
}

/** Whether a list holds a TURN server (turn: or turns:), which needs credentials. */
export const hasTurn = (servers: readonly string[]): boolean =>
  servers.some((url) => url.startsWith('turn:') || url.startsWith('turns:'));

/** The rule across the two settings: a browser refuses a TURN server without credentials, and a secret alone serves nothing. */
export function iceProblems(servers: readonly string[], secretValue: string | null): string[] {
  if (hasTurn(servers) && secretValue === null) {
    return [
      'SERVICE_ICE_SERVERS lists a TURN server, which needs SERVICE_TURN_SECRET (the static-auth-secret of its use-auth-secret) to hand out credentials',
    ];
  }
  if (!hasTurn(servers) && secretValue !== null)
    return ['SERVICE_TURN_SECRET is set, but SERVICE_ICE_SERVERS lists no turn: or turns: server to use it with'];
  return [];
}
