import type { AsyncPort } from '../async-port.js';
import type { Room, RoomStore } from './room.js';

/** What the live hub reads of a room in a family: its parent and its name. */
export interface FamilyRoom {
  readonly roomId: string;
  readonly parentRoomId: string | null;
  readonly name: string;
}

/**
 * The rooms that belong to a family (every sub-group and every room that has one) in memory, for
 * the live hub's synchronous reads (a room state's parent, a move, the groups' names, a family's
 * fan-out). Read once with one query at start (`RoomStore.families`), then kept by the writes of
 * the room port `keeping` returns, which every room write of the process goes through: the same
 * on SQLite and PostgreSQL, so the hub never reads a store synchronously. A room absent here has
 * no parent and no sub-group. Sub-groups are few, so memory holds only those families, never the
 * whole rooms table.
 */
export class RoomFamilies {
  private readonly rooms = new Map<string, FamilyRoom>();
  private readonly children = new Map<string, Set<string>>();

  static async load(store: Pick<AsyncPort<RoomStore>, 'families'>): Promise<RoomFamilies> {
    const families = new RoomFamilies();
    for (const room of await store.families()) families.add(room);
    return families;
  }

  /** The room when it is in a family, else null (then it has no parent). */
  roomOf(roomId: string): FamilyRoom | null {
    return this.rooms.get(roomId) ?? null;
  }

  /** Ids of the room's sub-groups (none for a room outside every family). */
  subgroupsOf(roomId: string): string[] {
    return [...(this.children.get(roomId) ?? [])];
  }

  /**
   * The room port with this memory kept by its writes: a sub-group's insert adds it (and its
   * parent, read before the insert so both appear together), a rename renames, a delete takes
   * the room and its sub-groups (the store's cascade) out.
   */
  keeping(store: AsyncPort<RoomStore>): AsyncPort<RoomStore> {
    return {
      ...bound(store),
      insert: async (room: Room) => {
        const parentId = room.parentRoomId;
        const parent = parentId !== null && !this.rooms.has(parentId) ? await store.get(parentId) : null;
        const inserted = await store.insert(room);
        if (inserted && parentId !== null) {
          if (parent) this.add(parent);
          this.add(room);
        }
        return inserted;
      },
      update: async (room: Room) => {
        await store.update(room);
        if (this.rooms.has(room.roomId)) this.add(room);
      },
      delete: async (roomId: string) => {
        const deleted = await store.delete(roomId);
        if (deleted) this.forget(roomId);
        return deleted;
      },
    };
  }

  private add(room: FamilyRoom): void {
    const { roomId, parentRoomId, name } = room;
    this.rooms.set(roomId, { roomId, parentRoomId, name });
    if (parentRoomId === null) return;
    let siblings = this.children.get(parentRoomId);
    if (!siblings) this.children.set(parentRoomId, (siblings = new Set()));
    siblings.add(roomId);
  }

  private forget(roomId: string): void {
    for (const child of this.subgroupsOf(roomId)) this.forget(child);
    this.children.delete(roomId);
    const room = this.rooms.get(roomId);
    this.rooms.delete(roomId);
    const parentId = room?.parentRoomId ?? null;
    if (parentId === null) return;
    const siblings = this.children.get(parentId);
    siblings?.delete(roomId);
    // A parent whose last sub-group went is in no family any more.
    if (siblings?.size === 0) {
      this.children.delete(parentId);
      if (this.rooms.get(parentId)?.parentRoomId === null) this.rooms.delete(parentId);
    }
  }
}

/** Every method of the port, bound to it, so a spread copy calls the store as itself. */
function bound(store: AsyncPort<RoomStore>): AsyncPort<RoomStore> {
  return {
    insert: (room) => store.insert(room),
    get: (roomId) => store.get(roomId),
    update: (room) => store.update(room),
    delete: (roomId) => store.delete(roomId),
    children: (roomId) => store.children(roomId),
    list: (after, limit, owner) => store.list(after, limit, owner),
    unusedEphemeral: (before, limit) => store.unusedEphemeral(before, limit),
    families: () => store.families(),
  };
}
