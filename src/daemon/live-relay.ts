// Issue 35 point 3: a clustered node with the cluster's channel relays live sockets. As a front
// node it accepts the upgrade of a room another node owns and relays it (http/live/relay-front.ts);
// as an owner it serves the sessions other nodes relay to it (http/live/relay-owner.ts).
import type { NodeChannel } from '../engine/cluster/node-channel.js';
import type { Clock, Scheduler } from '../engine/clock.js';
import type { LiveRelayRoute } from '../http/live/live-routes.js';
import { RelayFront } from '../http/live/relay-front.js';
import { RelayOwner } from '../http/live/relay-owner.js';
import type { RoomGate } from '../http/room/room-owner.js';
import type { Services } from './services.js';

export interface LiveRelay {
  readonly route: LiveRelayRoute;
  /** The room was lost: its relayed sessions end (their pages reconnect to its new owner). */
  dropRoom(mainRoomId: string): void;
  /** Stops relaying both ways (the daemon stops). */
  close(): void;
}

/** Serves this node's relay subjects and flushes them, so they are served before the node registers. */
export async function relayLiveSockets(
  services: Services,
  gate: RoomGate,
  channel: NodeChannel,
  clock: Clock,
  scheduler: Scheduler,
): Promise<LiveRelay> {
  const owner = new RelayOwner({
    channel,
    tokens: services.tokens,
    meetings: services.meetings,
    live: services.live,
    servedHere: (roomId) => gate.servedHere(roomId),
    clock,
    scheduler,
  });
  const front = new RelayFront({ channel, clock, scheduler });
  owner.start();
  front.start();
  await channel.flush();
  gate.relayLive = true;
  return {
    route: { front, ownerFor: gate.ownerFor, elsewhere: gate.elsewhere },
    dropRoom: (mainRoomId) => owner.dropRoom(mainRoomId),
    close() {
      gate.relayLive = false;
      front.close();
      owner.close();
    },
  };
}
