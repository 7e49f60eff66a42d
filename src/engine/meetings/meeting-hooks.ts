import type { Refusal } from './attendance.js';
import type { Meeting } from './meeting.js';

/**
 * What the waiting room adds to a meeting; attached once by WaitingRoomService. Kept as a
 * callback interface so meetings know nothing of requests and the waiting room owns its tables.
 */
export interface MeetingHooks {
  openRequests(meeting: Meeting): number;
  /** `moderatorId`: who arrived (joined as, or was made, a moderator); inside her arrival's transaction. */
  moderatorArrived(meeting: Meeting, moderatorId: string): Promise<void>;
  /** Runs `operation` in the room's turn of the waiting room's decisions; never called inside a transaction. */
  inTurn<T>(roomId: string, operation: () => Promise<T>): Promise<T>;
  /** Called inside the closing transaction, before the meeting is marked ended. */
  ending(meeting: Meeting, at: string): Promise<void>;
  /** The meeting left memory (ended, or its room deleted). */
  forgotten(meeting: Meeting): void;
  refusals(meeting: Meeting): Promise<Refusal[]>;
}

export const noHooks: MeetingHooks = {
  openRequests: () => 0,
  moderatorArrived: async () => {},
  inTurn: (_roomId, operation) => operation(),
  ending: async () => {},
  forgotten: () => {},
  refusals: async () => [],
};
