/**
 * The STUN/TURN servers the server handed with the latest session (start, knock or the poll
 * that admitted her), for the media's RTCPeerConnections. Kept here rather than passed along
 * with each session, since every way into a meeting (arrival, waiting, reload, embedding page,
 * sub-group) goes through roomApi. The TURN credential is hers and short-lived: the live
 * connection brings fresh servers (`ice_servers`) while she stays, and they replace these.
 */
let current: RTCIceServer[] = [];
/** Connections made here, so renewed credentials reach their next ICE restart, not only new connections. */
const made = new Set<RTCPeerConnection>();

export function rememberIceServers(servers: unknown): void {
  if (!Array.isArray(servers)) return;
  current = servers as RTCIceServer[];
  for (const pc of made) {
    // close() fires no event, so closed connections are let go here.
    if (pc.connectionState === 'closed') {
      made.delete(pc);
      continue;
    }
    try {
      pc.setConfiguration({ ...pc.getConfiguration(), iceServers: current });
    } catch {
      // A browser refusing the change keeps the old servers for this connection; new ones get the fresh ones.
    }
  }
}

/** A connection with the current servers, kept up to date when they are renewed. */
export function peerConnection(): RTCPeerConnection {
  const pc = new RTCPeerConnection({ iceServers: current });
  made.add(pc);
  return pc;
}
