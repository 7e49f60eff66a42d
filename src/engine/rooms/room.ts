export const waitingRoomScopes = ['off', 'guests', 'all'] as const;
export const waitingRoomModes = ['until_moderator', 'approval'] as const;

export type WaitingRoomScope = (typeof waitingRoomScopes)[number];
export type WaitingRoomMode = (typeof waitingRoomModes)[number];

/** A room as stored. The access code exists only as a hash. */
export interface Room {
  readonly roomId: string;
  readonly name: string;
  readonly waitingRoom: WaitingRoomScope;
  readonly waitingRoomMode: WaitingRoomMode;
  readonly waitingRoomTimeoutSecs: number;
  readonly accessCodeHash: string | null;
  /** Set for a sub-group (breakout) room: it is entered from the parent's meeting and never waits. */
  readonly parentRoomId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface RoomStore {
  /** Returns false when a room with that id exists. */
  insert(room: Room): boolean;
  get(roomId: string): Room | null;
  update(room: Room): void;
  delete(roomId: string): boolean;
  /** Ids of the room's sub-groups. */
  children(roomId: string): string[];
  /** Rooms ordered by id, strictly after `afterRoomId` when given. */
  list(afterRoomId: string | null, limit: number): Room[];
}
