import { AsyncLocalStorage } from 'node:async_hooks';
import type { RoomFence } from '../../engine/cluster/leases.js';
import type { UnitOfWork } from '../../engine/unit-of-work.js';
import type { Sql } from '../../platform/postgres.js';
import { PostgresRoomFence } from './room-fence.js';

interface OpenUnit {
  readonly tx: Sql;
  readonly settled: (() => void)[];
  /** The rooms and meetings whose lease this unit checked already. */
  readonly fenced: Set<string>;
}

/**
 * The engine's unit of work on PostgreSQL: one transaction (sql.begin) whose connection every
 * store of the unit writes through, found by the async context of the work, so stores need no
 * transaction handed to them. A `run` inside another is a savepoint: a failure the caller catches
 * takes back only the inner writes, as on SQLite. COMMIT returns once the commit is durable
 * (synchronous_commit on, set by the pool): `run` resolves only then.
 */
export class PostgresUnitOfWork implements UnitOfWork<'async'> {
  private readonly open = new AsyncLocalStorage<OpenUnit>();
  private fence: PostgresRoomFence | null = null;

  constructor(private readonly sql: Sql) {}

  /** The open unit's transaction, else the pool (a statement outside a unit commits on its own). */
  connection(): Sql {
    return this.open.getStore()?.tx ?? this.sql;
  }

  /** Whether the caller runs inside a unit (its reads may see writes that are not committed yet). */
  inside(): boolean {
    return this.open.getStore() !== undefined;
  }

  /** Runs `fn` once the caller's outermost unit committed or rolled back (at once outside a unit). */
  whenSettled(fn: () => void): void {
    const unit = this.open.getStore();
    if (unit) unit.settled.push(fn);
    else fn();
  }

  /**
   * Clustered (issue 35 stage 2): from now on every write of a room's state is fenced by the
   * room's lease (room-fence.ts). The stores call fenceRoom or fenceMeeting before each write:
   * the one place the check lives, whatever the statement.
   */
  fenceWith(fence: RoomFence): void {
    this.fence = new PostgresRoomFence(fence);
  }

  /**
   * On one node a store write awaits its fence, which is no statement and settles in the same turn
   * for every call, then sends its one statement: calls made at once send theirs in the order made,
   * on the unit's one connection. On a clustered node the fence is statements of its own (a lookup
   * on a miss, the lease FOR SHARE), a different number per call, so calls made at once may
   * interleave (test/service/http/knock-burst.test.ts holds the order on one node).
   */
  inOrderAtOnce(): boolean {
    return this.fence === null;
  }

  /** The node whose leases fence the writes; null on a single node. */
  fencedNode(): string | null {
    return this.fence?.nodeId ?? null;
  }

  /** Before a write of `roomId`'s state: LeaseLostError when this node does not hold its lease (clustered only). */
  fenceRoom(roomId: string): Promise<void> {
    return this.check(`r:${roomId}`, (fence, tx) => fence.checkRoom(tx, roomId));
  }

  /** Before a write of a meeting's state: its room's lease, as fenceRoom. */
  fenceMeeting(meetingId: string): Promise<void> {
    return this.check(`m:${meetingId}`, (fence, tx) => fence.checkMeeting(tx, meetingId));
  }

  /** Before a write of a participant's state (her webcam intervals): her meeting's room's lease, as fenceRoom. */
  fenceParticipant(participantId: string): Promise<void> {
    return this.check(`p:${participantId}`, (fence, tx) => fence.checkParticipant(tx, participantId));
  }

  private async check(key: string, checkNow: (fence: PostgresRoomFence, tx: Sql) => Promise<void>): Promise<void> {
    if (this.fence === null) return;
    const unit = this.open.getStore();
    // Once per unit: the lease row stays locked FOR SHARE until the unit ends.
    if (unit?.fenced.has(key)) return;
    await checkNow(this.fence, unit?.tx ?? this.sql);
    unit?.fenced.add(key);
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open.getStore();
    const inner = outer?.tx as { savepoint?: (fn: (tx: unknown) => Promise<T>) => Promise<T> } | undefined;
    if (outer && inner?.savepoint)
      // A savepoint rolled back frees the row locks taken in it: its checks do not count for the outer unit.
      return inner.savepoint((tx) => this.open.run({ ...outer, tx: tx as Sql, fenced: new Set(outer.fenced) }, work));
    const settled: (() => void)[] = [];
    const unit = this.sql.begin((tx) =>
      this.open.run({ tx: tx as unknown as Sql, settled, fenced: new Set() }, work),
    ) as Promise<T>;
    return unit.finally(() => {
      for (const fn of settled) fn();
    });
  }
}
