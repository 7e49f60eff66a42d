import { Listeners, type EngineLog } from '../listeners.js';
import type { Meeting } from '../meetings/meeting.js';
import type { ChangeDetail } from './request-decisions.js';
import type { RoomQueue } from './room-queue.js';
import type { WaitingRequest } from './waiting-request.js';
import { itemOf, outcomesOf, type WaitingListListener } from './waiting-room-types.js';

/**
 * What moderators see change in a room's waiting list, told to the live connection's listeners
 * (WaitingRoomService.onWaitingListChange): requests added, removed and updated, or a reset when
 * the meeting's list is gone. Told where it happens, so an observer never re-reads the whole list.
 */
export class WaitingListChanges {
  private readonly listeners: Listeners<Parameters<WaitingListListener>>;

  constructor(
    log: EngineLog,
    private readonly queueOf: (meeting: Meeting) => RoomQueue | undefined,
  ) {
    this.listeners = new Listeners('waiting list changed', log);
  }

  add(listener: WaitingListListener): () => void {
    return this.listeners.add(listener);
  }

  /** The meeting's list is gone (it ended, or left this node's memory). */
  reset(meeting: Meeting): void {
    const none = { added: [], removed: [], updated: [], timedOut: [] };
    this.listeners.emit(meeting.roomId, { meetingId: meeting.meetingId, ...none, reset: true });
  }

  /** Tells the listeners what moderators now see and no longer see; `added` are waiting requests in knock order. */
  notify(
    roomId: string,
    meeting: Meeting,
    added: readonly WaitingRequest[],
    removed: readonly string[],
    { updated = [], timedOut = [] }: ChangeDetail = {},
  ): void {
    if (this.listeners.size === 0 || added.length + removed.length + updated.length === 0) return;
    const queue = this.queueOf(meeting);
    this.listeners.emit(roomId, {
      meetingId: meeting.meetingId,
      added: added.map((request) => itemOf(request, false, queue?.barredAs(request.name))),
      removed,
      updated: updated.map((live) =>
        itemOf(live.request, live.lostSinceMs !== undefined, queue?.barredAs(live.request.name)),
      ),
      timedOut,
      outcomes: outcomesOf(queue, removed, timedOut),
      reset: false,
    });
  }
}
