import type { NodeLoad, NodeRecord, NodeRegistry, NodeStart } from '../../src/engine/cluster/nodes.js';

/** The node registry in memory, with PostgreSQL's rules (test/service/store/contract-nodes.test.ts holds them equal). */
export class MemoryNodeRegistry implements NodeRegistry {
  private readonly rows = new Map<string, NodeRecord & { incarnation: string }>();

  /** As PostgreSQL frees the session lock of a node whose connection ended (its process killed). */
  freeLock(nodeId: string): void {
    const row = this.rows.get(nodeId);
    if (row) this.rows.set(nodeId, { ...row, lockFreed: true });
  }

  register(start: NodeStart, aliveSince: Date): Promise<{ taken: true } | { holder: NodeRecord }> {
    const held = this.rows.get(start.nodeId);
    if (held && held.goneAt === null && held.lockFreed !== true && held.lastBeatAt > aliveSince)
      return Promise.resolve({ holder: strip(held) });
    const { startedAt } = start;
    this.rows.set(start.nodeId, { ...start, lastBeatAt: startedAt, goneAt: null, lockFreed: false });
    return Promise.resolve({ taken: true });
  }

  beat(nodeId: string, incarnation: string, at: Date, load: NodeLoad): Promise<boolean> {
    const row = this.rows.get(nodeId);
    if (!row || row.incarnation !== incarnation || row.goneAt !== null) return Promise.resolve(false);
    this.rows.set(nodeId, { ...row, lastBeatAt: at, load });
    return Promise.resolve(true);
  }

  markGone(nodeId: string, incarnation: string, at: Date): Promise<void> {
    const row = this.rows.get(nodeId);
    if (row && row.incarnation === incarnation && row.goneAt === null) this.rows.set(nodeId, { ...row, goneAt: at });
    return Promise.resolve();
  }

  list(): Promise<NodeRecord[]> {
    return Promise.resolve([...this.rows.values()].sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1)).map(strip));
  }
}

function strip(row: NodeRecord & { incarnation: string }): NodeRecord {
  const { incarnation: _, ...record } = row;
  return record;
}
