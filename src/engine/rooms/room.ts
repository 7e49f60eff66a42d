export const waitingRoomScopes = ['off', 'guests', 'all'] as const;
export const waitingRoomModes = ['until_moderator', 'approval'] as const;

/**
 * Who may arrive at a room at all, before the waiting room: everyone who has its address
 * (`open`), only holders of a join token signed for it (`token`: a platform's room that does
 * not take bare-link guests), or nobody (`closed`: its meeting ended for good).
 */
export const roomEntries = ['open', 'token', 'closed'] as const;
export type RoomEntry = (typeof roomEntries)[number];

export type WaitingRoomScope = (typeof waitingRoomScopes)[number];
export type WaitingRoomMode = (typeof waitingRoomModes)[number];

/** A room as stored. The access code exists only as a hash. */
export interface Room {
  readonly roomId: string;
  readonly name: string;
  readonly waitingRoom: WaitingRoomScope;
  readonly waitingRoomMode: WaitingRoomMode;
  readonly waitingRoomTimeoutSecs: number;
  /** How long a moderator's link made for this room is good (seconds; a school term by default). */
  readonly moderatorLinkTtlSecs: number;
  readonly accessCodeHash: string | null;
  /** Set for a sub-group (breakout) room: it is entered from the parent's meeting and never waits. */
  readonly parentRoomId: string | null;
  readonly entry: RoomEntry;
  /** `exists` tells a caller without a join token for it nothing (as for a missing room). */
  readonly unlisted: boolean;
  /**
   * Never left without a moderator (the gateway's open rooms): with no moderator present, the
   * next person to enter becomes one, and when the last moderator leaves, the person present
   * longest does.
   */
  readonly moderatorSuccession: boolean;
  /**
   * Made by an arrival nobody vouched for (the gateway's open rooms): deleted once unused, so
   * anonymous arrivals cannot pile up durable rooms. `updatedAt` counts as its last use too.
   */
  readonly ephemeral: boolean;
  /** Arrivals start with the microphone off (the welcome's `mute_on_start`); they may turn it on. */
  readonly micsOffOnEntry: boolean;
  /** The organiser account the room belongs to; null for rooms made with an access token or by the meeting API. */
  readonly ownerAccountId: string | null;
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
  /** Every room in a family (a sub-group, or a room that has one): what the live hub keeps in memory (room-families.ts). */
  families(): { roomId: string; parentRoomId: string | null; name: string }[];
  /** Rooms ordered by id, strictly after `afterRoomId` when given; only those of `owner` when given. */
  list(afterRoomId: string | null, limit: number, owner?: string): Room[];
  /**
   * Up to `limit` ids of ephemeral top-level rooms unused since `before` (ISO time): not updated
   * since, and no meeting open or ended since.
   */
  unusedEphemeral(before: string, limit: number): string[];
}
