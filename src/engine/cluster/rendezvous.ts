// Issue 35 stage 2: which node a room belongs to, decided by every node alone from the same
// inputs (rendezvous, "highest random weight" hashing): the room's owner is the live node with
// the highest hash of (room, node). When a node dies only its rooms move, each to the node with
// its next highest hash; no table of rooms and no message between nodes is needed to agree.
import { createHash } from 'node:crypto';

/** The weight of `nodeId` for `roomId`: the first 8 bytes of SHA-256 over both, unambiguously joined. */
function weight(roomId: string, nodeId: string): bigint {
  // A NUL cannot occur in a room id nor a node id (both have fixed character sets), so
  // ("ab", "c") and ("a", "bc") never hash the same input.
  return createHash('sha256').update(roomId).update('\0').update(nodeId).digest().readBigUInt64BE(0);
}

/** The node that should own `roomId` among `nodeIds` (every node computes the same); null without nodes. */
export function successorOf(roomId: string, nodeIds: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1n;
  for (const nodeId of nodeIds) {
    const w = weight(roomId, nodeId);
    // Ties (practically never) go to the smaller id, so the answer does not depend on the order given.
    if (w > bestWeight || (w === bestWeight && best !== null && nodeId < best)) {
      best = nodeId;
      bestWeight = w;
    }
  }
  return best;
}
