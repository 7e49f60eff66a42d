// Issue 35 stage 1, the nodes of a cluster: every daemon on one PostgreSQL database with
// SERVICE_NATS_URL set is a node. It registers, beats with its load, and marks itself gone on a
// clean stop; a node whose beats stopped (kill -9, a frozen host) is dead after `aliveWithinMs`
// in every reader's view. The later stages (room leases, forwarding) read liveness from here.
import type { Clock, Scheduler } from '../clock.js';

/** How often a node beats (and renews its room leases, and its successors look for dead owners' rooms). */
export const beatEveryMs = 1000;
/**
 * A node is alive while its last beat is younger than this: three beats and a half missed. A
 * frozen owner's rooms move within this and one beat of its successor (issue 35: 5 s, p99).
 */
export const aliveWithinMs = 3.5 * beatEveryMs;

export interface NodeLoad {
  readonly openRooms: number;
  readonly liveSockets: number;
}

export interface NodeRecord {
  readonly nodeId: string;
  /** Where the node's engine listener answers, for the next stages' forwarding and the operator. */
  readonly httpAddress: string;
  readonly startedAt: Date;
  readonly lastBeatAt: Date;
  /** Set by a clean stop; null while it runs (or since it died without one). */
  readonly goneAt: Date | null;
  readonly load: NodeLoad;
  /** The node took its session lock and the store has freed it: its process or connection died (stage 2). */
  readonly lockFreed?: boolean;
}

export interface NodeStart {
  readonly nodeId: string;
  /** This start of the node: its beats and its stop touch the row only while the row is still its own. */
  readonly incarnation: string;
  readonly httpAddress: string;
  readonly startedAt: Date;
  readonly load: NodeLoad;
}

/** The registry's store (PostgreSQL in the daemon, a memory one in tests). */
export interface NodeRegistry {
  /**
   * Takes the row of `start.nodeId` unless another incarnation beat after `aliveSince` and
   * did not stop: then the row is left alone and the holder is returned.
   */
  register(start: NodeStart, aliveSince: Date): Promise<{ readonly taken: true } | { readonly holder: NodeRecord }>;
  /** The beat of this incarnation; false when the row is no longer its own. */
  beat(nodeId: string, incarnation: string, at: Date, load: NodeLoad): Promise<boolean>;
  /** A clean stop: the row says gone (when it is still this incarnation's). */
  markGone(nodeId: string, incarnation: string, at: Date): Promise<void>;
  /** Every node ever registered, by id. */
  list(): Promise<NodeRecord[]>;
}

/** A second daemon under a node id a live node holds: refused, so two nodes never answer as one. */
export class DuplicateNodeError extends Error {
  override readonly name = 'DuplicateNodeError';
  constructor(readonly holder: NodeRecord) {
    super(
      `node id ${holder.nodeId} is held by a live node at ${holder.httpAddress} (last beat ${holder.lastBeatAt.toISOString()}); give this daemon another SERVICE_NODE_ID`,
    );
  }
}

export const isAlive = (node: NodeRecord, now: Date): boolean =>
  node.goneAt === null && node.lockFreed !== true && now.getTime() - node.lastBeatAt.getTime() < aliveWithinMs;

/** This daemon's place in the registry: registered by start(), beating until stop(). */
export class NodePresence {
  private timer: unknown = null;
  private stopped = false;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: NodeRegistry,
    private readonly start_: Omit<NodeStart, 'startedAt' | 'load'>,
    private readonly load: () => NodeLoad,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    /** A beat that failed (the database away) or found the row taken: for the log; beats go on. */
    private readonly onBeatProblem: (problem: unknown) => void = () => {},
  ) {}

  get nodeId(): string {
    return this.start_.nodeId;
  }

  /** Registers (DuplicateNodeError when a live node holds the id) and starts beating. */
  async start(): Promise<void> {
    const now = this.clock.now();
    const answer = await this.registry.register(
      { ...this.start_, startedAt: now, load: this.load() },
      new Date(now.getTime() - aliveWithinMs),
    );
    if ('holder' in answer) throw new DuplicateNodeError(answer.holder);
    this.schedule();
  }

  /** The nodes alive now, this one first when it is among them. */
  async aliveNodes(): Promise<NodeRecord[]> {
    const now = this.clock.now();
    const alive = (await this.registry.list()).filter((node) => isAlive(node, now));
    return alive.sort((a, b) => Number(b.nodeId === this.nodeId) - Number(a.nodeId === this.nodeId));
  }

  /** Stops beating and marks the node gone (after a beat under way). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== null) this.scheduler.clearTimeout(this.timer);
    await this.beating;
    await this.registry.markGone(this.start_.nodeId, this.start_.incarnation, this.clock.now());
  }

  private schedule(): void {
    this.timer = this.scheduler.setTimeout(() => {
      this.timer = null;
      this.beating = this.beat().finally(() => {
        if (!this.stopped) this.schedule();
      });
    }, beatEveryMs);
  }

  private async beat(): Promise<void> {
    try {
      const own = await this.registry.beat(this.start_.nodeId, this.start_.incarnation, this.clock.now(), this.load());
      if (!own) this.onBeatProblem(new Error(`the registry row of node ${this.nodeId} belongs to another start`));
    } catch (err) {
      this.onBeatProblem(err);
    }
  }
}
