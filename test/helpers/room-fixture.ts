import type { Room } from '../../src/engine/rooms/room.js';

/** A room where everyone waits for approval, as the store tests write it straight into SQLite. */
export function waitingRoomFixture(roomId: string): Room {
  return {
    roomId,
    name: `Room ${roomId}`,
    waitingRoom: 'all',
    waitingRoomMode: 'approval',
    waitingRoomTimeoutSecs: 600,
    moderatorLinkTtlSecs: 10_368_000,
    accessCodeHash: null,
    parentRoomId: null,
    entry: 'open',
    unlisted: false,
    moderatorSuccession: false,
    ephemeral: false,
    micsOffOnEntry: false,
    ownerAccountId: null,
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
  };
}
