import type { AsyncPort } from '../async-port.js';
import type { RoomStore } from '../rooms/room.js';
import type { Room } from '../rooms/room.js';
import type { Participant } from './meeting.js';
import type { MeetingService } from './meeting-service.js';

/**
 * Rooms that are never left without a moderator (`Room.moderatorSuccession`: the gateway's
 * open rooms, where nobody arrives with a moderator's token). Two rules:
 *
 * - Entry: with no moderator present, the arrival becomes one (`entersAsModerator`, applied by
 *   the waiting room inside the room's turn, so of two simultaneous arrivals one is).
 * - Leaving: when the last moderator present leaves, the person present longest (join order)
 *   is promoted (`ModeratorSuccession`, listening to `MeetingService.onLeft`).
 *
 * Authority lives in the participant record, so a promotion is a write, never a token.
 */
export function entersAsModerator(room: Pick<Room, 'moderatorSuccession'>, moderatorPresent: boolean): boolean {
  return room.moderatorSuccession && !moderatorPresent;
}

/** Who takes over: nobody while a moderator is present, else the one present longest. */
export function successorAmong(present: readonly Participant[]): Participant | null {
  if (present.some((p) => p.role === 'moderator')) return null;
  return present[0] ?? null;
}

/**
 * Applies the leaving rule. Created once by the composition root, after the meeting and
 * waiting-room services; a serving daemon calls `settleAll` when it starts.
 */
export class ModeratorSuccession {
  private readonly off: () => void;

  constructor(
    private readonly meetings: MeetingService,
    private readonly rooms: Pick<AsyncPort<RoomStore>, 'get'>,
  ) {
    this.off = meetings.onLeft((participant) => this.settle(participant.roomId));
  }

  /** A process killed between a moderator's leave and the promotion after it must not leave the room without one. */
  async settleAll(): Promise<void> {
    for (const meeting of this.meetings.openMeetings()) await this.settle(meeting.roomId);
  }

  /** The room has a moderator present if it needs one and anyone is there; returns who was promoted. */
  async settle(roomId: string): Promise<Participant | null> {
    if (!(await this.rooms.get(roomId))?.moderatorSuccession) return null;
    const next = successorAmong(this.meetings.present(roomId));
    return next ? this.meetings.promote(next.participantId) : null;
  }

  close(): void {
    this.off();
  }
}
