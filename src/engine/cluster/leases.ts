// Issue 35 stage 2: a room's ownership is a lease in the store, with an epoch. The epoch grows
// with every new tenure (another owner, or the same one after its lease ran out), and every write
// of the room's state checks it (store/postgres/unit-of-work.ts), so an owner that lost the room
// cannot write. The lease lasts as long as a node stays alive without a beat: an owner renews
// its leases on every beat; an owner that is dead (gone, silent for aliveWithinMs, or its session
// lock freed) loses them at once to the next claim.
import { aliveWithinMs } from './nodes.js';

/** How long a lease lasts unless renewed: a hung owner's rooms move after this. */
export const leaseMs = aliveWithinMs;

export interface RoomLease {
  readonly roomId: string;
  readonly ownerNode: string;
  readonly epoch: number;
  readonly expiresAt: Date;
}

export interface HeldLease {
  readonly roomId: string;
  readonly epoch: number;
}

export type ClaimAnswer =
  | { readonly won: true; readonly lease: RoomLease }
  | { readonly won: false; readonly lease: RoomLease }
  /** No room has this id: no lease is written for it. */
  | { readonly won: false; readonly lease: null };

/** Thrown by a write of a room this node no longer holds at the epoch it claimed: nothing of the unit is written. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  readonly code = 'lease_lost';
  constructor(readonly roomIds: readonly string[]) {
    super(`this node no longer holds the lease of room ${roomIds.join(', ')}: nothing was written`);
  }
}

/** The leases' store (PostgreSQL in the daemon, a memory one in tests), held to one contract test. */
export interface LeaseStore {
  /**
   * One statement: takes `roomId` for `nodeId` when it has no lease, its lease expired, its owner
   * is dead (not alive since `aliveSince`, gone, or its lock freed), or it is `nodeId`'s already.
   * The epoch starts at 1 and grows unless `nodeId` held an unexpired lease; otherwise the holder.
   */
  claim(roomId: string, nodeId: string, now: Date, aliveSince: Date): Promise<ClaimAnswer>;
  /** Extends the leases `nodeId` still holds at these epochs; answers the room ids renewed. */
  renew(nodeId: string, held: readonly HeldLease[], now: Date): Promise<string[]>;
  /**
   * A clean stop: the leases held at these epochs expire now, so the next claim takes them at
   * once (the row stays, so the epoch of a room only ever grows).
   */
  release(nodeId: string, held: readonly HeldLease[], now: Date): Promise<void>;
  get(roomId: string): Promise<RoomLease | null>;
  /** Leases whose owner is dead or whose time ran out, other than `nodeId`'s, at most `limit`. */
  orphans(nodeId: string, now: Date, aliveSince: Date, limit: number): Promise<RoomLease[]>;
  /**
   * Main rooms with an open meeting (theirs or a sub-group's) and no lease row (a meeting from
   * before the cluster, or a room never claimed since): nobody serves them until claimed. In room
   * id order, after `after` (null: from the start), at most `limit`.
   */
  unleased(after: string | null, limit: number): Promise<string[]>;
  /** How many unexpired leases each node holds at `now` (`meetctl cluster status`); nodes holding none are absent. */
  heldPerNode(now: Date): Promise<Map<string, number>>;
}

/**
 * What a clustered node's unit of work checks before it writes a room's state: the node, and the
 * epoch at which it holds each room's lease (keyed by the room of a family's main room).
 */
export interface RoomFence {
  readonly nodeId: string;
  /** The epoch this node claimed `roomId` at, while it holds it; undefined otherwise. */
  epochOf(roomId: string): number | undefined;
  /** A write of `roomId` was refused by the fence: this node no longer holds it. */
  lost(roomId: string): void;
}
