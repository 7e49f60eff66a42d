// Issue 35 point 6: the Janus servers meetings go to. One server (the daemon's own Janus, or
// SERVICE_JANUS_URL) is a pool of one that never moves a meeting; SERVICE_JANUS_URLS is a pool
// whose placements and loads live in the store, shared by every node of a cluster.
import type { MediaPlacement, RoomKeys } from '../../engine/cluster/media-servers.js';
import type { JanusEndpoint } from './janus-session.js';

export interface JanusPool {
  /** More than one server: a meeting whose server died can move to another. */
  readonly several: boolean;
  /** How to reach a server (its API secret with it). */
  endpoint(server: string): JanusEndpoint;
  /** The meeting's server: the one it has, or a new one but `avoid`; null when none is left. */
  place(meetingId: string, avoid: string | null): Promise<string | null>;
  /** The keys of the meeting's room: the first node's, kept with its placement; `proposed` for a pool of one. */
  roomKeys(meetingId: string, proposed: RoomKeys): Promise<RoomKeys>;
  /** The meeting ended: its server's load shrinks. */
  release(meetingId: string): Promise<void>;
  /** Its control session failed: no meeting goes there until it answers again. */
  markDead(server: string): Promise<void>;
}

/** The one server's key: a pool of one has no address to name (the daemon's own Janus changes port and secret per start). */
export const onlyServer = 'janus';

export function singleJanus(endpoint: () => JanusEndpoint): JanusPool {
  return {
    several: false,
    endpoint: () => endpoint(),
    place: (_meetingId, avoid) => Promise.resolve(avoid === onlyServer ? null : onlyServer),
    roomKeys: (_meetingId, proposed) => Promise.resolve(proposed),
    release: () => Promise.resolve(),
    markDead: () => Promise.resolve(),
  };
}

/**
 * SERVICE_JANUS_URLS: the servers share one API secret; where each meeting goes is the store's
 * (`placement`, known once the engine opened it: a meeting starts only after that).
 */
export function placedJanus(
  urls: readonly string[],
  apiSecret: string,
  placement: () => Promise<MediaPlacement>,
): JanusPool {
  return {
    several: urls.length > 1,
    endpoint: (server) => ({ url: server, apiSecret }),
    place: async (meetingId, avoid) => (await placement()).place(meetingId, avoid),
    roomKeys: async (meetingId, proposed) => (await placement()).roomKeys(meetingId, proposed),
    release: async (meetingId) => (await placement()).release(meetingId),
    markDead: async (server) => (await placement()).markDead(server),
  };
}
