/**
 * The STUN/TURN servers the server handed with the latest session (start, knock or the poll
 * that admitted her), for the mesh's RTCPeerConnections. Kept here rather than passed along
 * with each session, since every way into a meeting (arrival, waiting, reload, embedding page,
 * sub-group) goes through roomApi. The TURN credential is hers and expires with the session.
 */
let current: RTCIceServer[] = [];

export function rememberIceServers(servers: unknown): void {
  if (Array.isArray(servers)) current = servers as RTCIceServer[];
}

export function iceServers(): RTCIceServer[] {
  return current;
}
