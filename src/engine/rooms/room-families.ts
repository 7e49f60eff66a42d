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
 * no parent and no sub-group. On a cluster node other nodes write rooms too: a sub-group they
 * made is read on its first request here (`mainRoomOf`), and a family gained is read anew (`reload`). Sub-groups are few, so memory holds only those families, never the
 * whole rooms table.
 */
export class RoomFamilies {
  private readonly rooms = new Map<string, FamilyRoom>();
  private readonly children = new Map<string, Set<string>>();

  private constructor(private readonly store: FamiliesStore) {}

  static async load(store: FamiliesStore): Promise<RoomFamilies> {
    const families = new RoomFamilies(store);
    for (const room of await store.families()) families.add(room);
    return families;
  }

  /**
   * The id of the main room of `roomId`'s family: a sub-group's parent, else the id itself (a
   * main room, or no room at all, which the answer does not tell apart). A room not in memory is
   * read from the store, and a sub-group found there (made through another node of a cluster) is
   * kept from then on, with its parent, before the live hub reads it.
   */
  async mainRoomOf(roomId: string): Promise<string> {
    const known = this.rooms.get(roomId);
    if (known) return known.parentRoomId ?? roomId;
    const room = await this.store.get(roomId);
    if (!room || room.parentRoomId === null) return roomId;
    const parent = this.rooms.get(room.parentRoomId) ?? (await this.store.get(room.parentRoomId));
    if (parent) this.add(parent);
    this.add(room);
    return room.parentRoomId;
  }

  /**
   * What is kept of `roomId`'s family goes (a cluster node that does not serve it: other nodes
   * may change it); the next `mainRoomOf` reads it from the store again.
   */
  drop(roomId: string): void {
    this.forget(this.rooms.get(roomId)?.parentRoomId ?? roomId);
  }

  /**
   * The family of `mainRoomId` read anew from the store (a cluster node that gains the room: its
   * sub-groups may have been made, renamed or deleted through other nodes since it last read them).
   */
  async reload(mainRoomId: string): Promise<void> {
    const main = await this.store.get(mainRoomId);
    const ids = main === null ? [] : await this.store.children(mainRoomId);
    const subgroups: Room[] = [];
    for (const id of ids) {
      const room = await this.store.get(id);
      if (room?.parentRoomId === mainRoomId) subgroups.push(room);
    }
    this.forget(mainRoomId);
    if (main === null || subgroups.length === 0) return;
    this.add(main);
    for (const room of subgroups) this.add(room);
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

/** What the families read of the room store: the families at start, a room or a family on a miss. */
type FamiliesStore = Pick<AsyncPort<RoomStore>, 'families' | 'get' | 'children'>;

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
