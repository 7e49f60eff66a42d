// Issue 35 stage 2: which rooms this node owns. A room is served by its owner only: the owner
// holds its live state in memory, and every write of it is fenced by the lease's epoch
// (leases.ts). A room whose lease is free, ran out or names a dead owner is claimed only by its
// successor by rendezvous over the live nodes, on first use or by itself on its beat (a dead
// owner's rooms move within seconds); every other node names that successor. A live owner keeps
// its rooms when the nodes change (no flapping).
// Every held lease is renewed on the beat; a lease found lost (not renewed, or a write fenced)
// drops the room at once. Nothing of this runs on a single node.
import type { Clock, Scheduler } from '../clock.js';
import { type HeldLease, type LeaseStore, type RoomFence } from './leases.js';
import { aliveWithinMs, beatEveryMs } from './nodes.js';
import { successorOf } from './rendezvous.js';

/**
 * Where a room is served: here (at this epoch), by another node (its live owner, or for a room no
 * live node holds, and an id that names no room alike, its successor), or nowhere (this node is
 * the successor and no room has the id).
 */
export type Whereabouts =
  | { readonly mine: true; readonly epoch: number }
  | { readonly mine: false; readonly owner: string }
  | { readonly mine: false; readonly owner: null };

/** Dead owners' (and unleased) rooms looked at per beat at most: a takeover does not hold the beat for long. */
const orphansPerBeat = 100;

export interface OwnershipDeps {
  readonly leases: LeaseStore;
  readonly nodeId: string;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  /** The ids of the nodes alive now (the registry's rule), this one included once it beats. */
  readonly aliveNodes: () => Promise<string[]>;
  /** Runs first on every beat (the daemon holds its node lock). */
  readonly beforeBeat?: () => Promise<void>;
  /** A beat's renewal or takeover that failed (the database away): for the log; beats go on. */
  readonly onProblem?: (problem: unknown) => void;
}

export class RoomOwnership implements RoomFence {
  private readonly held = new Map<string, { epoch: number; confirmedUntilMs: number }>();
  private readonly claiming = new Map<string, Promise<Whereabouts>>();
  private readonly lostListeners: ((roomId: string) => void)[] = [];
  private readonly gainedListeners: ((roomId: string) => void | Promise<void>)[] = [];
  /** The live nodes at the last beat, to see the membership change. */
  private members: string | null = null;
  /** Where the scan for unleased rooms goes on (null: from the start); undefined: no scan due. */
  private unleasedFrom: string | null | undefined = null;
  private timer: unknown = null;
  private stopped = false;
  private beating: Promise<void> = Promise.resolve();

  constructor(private readonly deps: OwnershipDeps) {}

  get nodeId(): string {
    return this.deps.nodeId;
  }

  /** Called with a room this node stopped owning: its memory and sockets must go. */
  onLost(listener: (roomId: string) => void): void {
    this.lostListeners.push(listener);
  }

  /**
   * Called with a room this node started owning: what it kept of it before must be read anew (a
   * dead owner's open meeting and waiting room are adopted). The claim waits for the listener, so
   * no request is served for the room before it resolves; one that fails lets the room go again.
   */
  onGained(listener: (roomId: string) => void | Promise<void>): void {
    this.gainedListeners.push(listener);
  }

  epochOf(roomId: string): number | undefined {
    return this.held.get(roomId)?.epoch;
  }

  /** The rooms held now, by id. */
  heldRooms(): string[] {
    return [...this.held.keys()].sort();
  }

  /**
   * The lease of `roomId` is gone (a write was fenced, or it was not renewed), and so is the room
   * here. The listeners run on the next timer turn: a fenced write is still inside its transaction,
   * whose rollback must not meet memory half dropped.
   */
  lost(roomId: string): void {
    if (this.held.delete(roomId)) this.tellLost(roomId);
  }

  private tellLost(roomId: string): void {
    this.deps.scheduler.setTimeout(() => {
      for (const listener of this.lostListeners) listener(roomId);
    }, 0);
  }

  /** Where `roomId` (a main room's id) is served; claims it when it may be this node's. */
  where(roomId: string): Promise<Whereabouts> {
    // A claim still under way is held already but not served until its room is adopted.
    const pending = this.claiming.get(roomId);
    if (pending) return pending;
    const held = this.held.get(roomId);
    if (held && held.confirmedUntilMs > this.nowMs()) return Promise.resolve({ mine: true, epoch: held.epoch });
    // Held but not confirmed for now (this node was frozen, or its renewals failed): another node
    // may own the room already, so nothing is served from memory until the lease is renewed.
    const found = (held ? this.reconfirm(roomId, held.epoch) : this.find(roomId)).finally(() =>
      this.claiming.delete(roomId),
    );
    this.claiming.set(roomId, found);
    return found;
  }

  /** Who owns `roomId` now in this node's view: a live owner with an unexpired lease, else null. */
  async ownerOf(roomId: string): Promise<string | null> {
    // A lease not confirmed up to now may be another node's already (as in `where`): read it.
    if ((this.held.get(roomId)?.confirmedUntilMs ?? 0) > this.nowMs()) return this.nodeId;
    const lease = await this.deps.leases.get(roomId);
    if (!lease || lease.expiresAt <= this.deps.clock.now()) return null;
    return (await this.deps.aliveNodes()).includes(lease.ownerNode) ? lease.ownerNode : null;
  }

  /** Starts renewing on the beat. */
  start(): void {
    this.schedule();
  }

  /** Stops renewing and releases every lease held, so other nodes take the rooms at once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== null) this.deps.scheduler.clearTimeout(this.timer);
    await this.beating;
    const held = this.heldLeases();
    this.held.clear();
    await this.deps.leases.release(this.nodeId, held, this.deps.clock.now());
  }

  private async find(roomId: string): Promise<Whereabouts> {
    const { leases, clock } = this.deps;
    const now = clock.now();
    const lease = await leases.get(roomId);
    // A lease of this node's own (a restart under the same id) is taken again at once.
    if (lease?.ownerNode !== this.nodeId) {
      const alive = await this.deps.aliveNodes();
      // A live owner keeps its room, even when a node joined since that is now its successor.
      if (lease && lease.expiresAt > now && alive.includes(lease.ownerNode))
        return { mine: false, owner: lease.ownerNode };
      // Unleased, expired or a dead owner's: only its successor among the live nodes claims it, so
      // every node names the same one, and whether the id names a room at all is read by that node
      // alone (the claim writes no lease for a missing room).
      const successor = successorOf(roomId, alive.includes(this.nodeId) ? alive : [...alive, this.nodeId]);
      if (successor !== this.nodeId && successor !== null) return { mine: false, owner: successor };
    }
    return this.claim(roomId, now);
  }

  private async reconfirm(roomId: string, epoch: number): Promise<Whereabouts> {
    const now = this.deps.clock.now();
    const renewed = await this.deps.leases.renew(this.nodeId, [{ roomId, epoch }], now);
    const entry = this.held.get(roomId);
    if (renewed.includes(roomId) && entry?.epoch === epoch) {
      entry.confirmedUntilMs = now.getTime() + aliveWithinMs;
      return { mine: true, epoch };
    }
    this.lost(roomId);
    return this.find(roomId);
  }

  private nowMs(): number {
    return this.deps.clock.nowMs?.() ?? this.deps.clock.now().getTime();
  }

  private async claim(roomId: string, now: Date): Promise<Whereabouts> {
    const answer = await this.deps.leases.claim(roomId, this.nodeId, now, new Date(now.getTime() - aliveWithinMs));
    if (answer.lease === null) return { mine: false, owner: null };
    if (!answer.won) return { mine: false, owner: answer.lease.ownerNode };
    if (this.stopped) return { mine: false, owner: null };
    const had = this.held.has(roomId);
    this.held.set(roomId, { epoch: answer.lease.epoch, confirmedUntilMs: answer.lease.expiresAt.getTime() });
    if (!had) {
      try {
        for (const listener of this.gainedListeners) await listener(roomId);
      } catch (err) {
        // Not adopted (the store away): not served half read; the next claim adopts it again.
        this.lost(roomId);
        throw err;
      }
      // Lost while it was being read (a renewal refused): what the adoption read after the drop goes too.
      if (this.held.get(roomId)?.epoch !== answer.lease.epoch) {
        this.tellLost(roomId);
        return { mine: false, owner: null };
      }
    }
    return { mine: true, epoch: answer.lease.epoch };
  }

  private heldLeases(): HeldLease[] {
    return [...this.held].map(([roomId, { epoch }]) => ({ roomId, epoch }));
  }

  private schedule(): void {
    this.timer = this.deps.scheduler.setTimeout(() => {
      this.timer = null;
      this.beating = this.beat().finally(() => {
        if (!this.stopped) this.schedule();
      });
    }, beatEveryMs);
  }

  private async beat(): Promise<void> {
    await this.deps.beforeBeat?.().catch((err: unknown) => this.deps.onProblem?.(err));
    await this.renew().catch((err: unknown) => this.deps.onProblem?.(err));
    await this.takeOver().catch((err: unknown) => this.deps.onProblem?.(err));
  }

  private async renew(): Promise<void> {
    const now = this.deps.clock.now();
    const held = this.heldLeases();
    let renewed: Set<string>;
    try {
      renewed = new Set(await this.deps.leases.renew(this.nodeId, held, now));
    } catch (err) {
      // Not confirmed: a lease past its time may be another node's already, so it is let go.
      for (const { roomId } of held)
        if ((this.held.get(roomId)?.confirmedUntilMs ?? 0) <= now.getTime()) this.lost(roomId);
      throw err;
    }
    const until = now.getTime() + aliveWithinMs;
    for (const { roomId, epoch } of held) {
      const entry = this.held.get(roomId);
      // A room claimed again meanwhile (another epoch) is left to its own renewal.
      if (!entry || entry.epoch !== epoch) continue;
      if (renewed.has(roomId)) entry.confirmedUntilMs = until;
      else this.lost(roomId);
    }
  }

  /**
   * Claims the rooms of dead owners whose successor this node is; at start and whenever the live
   * nodes change, also the rooms with an open meeting that no lease names (from before the
   * cluster, or whose claim never came), each by its successor, so no open meeting stays unserved.
   */
  private async takeOver(): Promise<void> {
    const { leases, clock } = this.deps;
    const now = clock.now();
    const orphans = await leases.orphans(this.nodeId, now, new Date(now.getTime() - aliveWithinMs), orphansPerBeat);
    const alive = await this.deps.aliveNodes();
    const candidates = alive.includes(this.nodeId) ? alive : [...alive, this.nodeId];
    const members = [...candidates].sort().join(' ');
    if (members !== this.members) this.unleasedFrom = null;
    this.members = members;
    const from = this.unleasedFrom;
    const unleased = from === undefined ? [] : await leases.unleased(from, orphansPerBeat);
    for (const roomId of [...orphans.map((lease) => lease.roomId), ...unleased])
      if (successorOf(roomId, candidates) === this.nodeId && !this.stopped) await this.where(roomId);
    // A full page: the scan goes on at the next beat (a failure above scans the page again).
    if (from !== undefined) this.unleasedFrom = unleased.length === orphansPerBeat ? unleased.at(-1) : undefined;
  }
}
