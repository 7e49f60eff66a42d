import { EngineError } from '../errors.js';
import { Listeners, type EngineLog } from '../listeners.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { AsyncPort } from '../async-port.js';
import type { RoomStore } from '../rooms/room.js';
import type { WaitingRoomPolicy } from '../rooms/waiting-room-policy.js';
import type { AsyncTransactions } from '../async-transactions.js';
import { hasWaitingRoom } from './admission.js';
import type { RequestDecisions } from './request-decisions.js';
import type { AdmitResult, Gesture, SwitchListener, SwitchState } from './waiting-room-types.js';

export interface WaitingSwitchDeps {
  readonly rooms: Pick<AsyncPort<RoomStore>, 'get'>;
  readonly meetings: MeetingService;
  readonly transactions: Pick<AsyncTransactions, 'atomically' | 'afterCommit'>;
  readonly policy: WaitingRoomPolicy;
  readonly decisions: Pick<RequestDecisions, 'settle' | 'admitUnmarked'>;
  readonly log: EngineLog;
}

/**
 * A moderator's waiting-room switch for the rest of a meeting (WaitingRoomService's
 * `disableWaitingRoom`, `enableWaitingRoom`, `switchState`, `onWaitingRoomSwitched`): turned off,
 * everyone waiting enters but those marked, and later arrivals do not wait; turned on again, later
 * arrivals wait as the room's scope says. `gesture` is the waiting room's check of the moderator,
 * asked for after the instance's policy and before the room's settings, in that order.
 */
export class WaitingSwitch {
  private readonly listeners: Listeners<Parameters<SwitchListener>>;

  constructor(private readonly deps: WaitingSwitchDeps) {
    this.listeners = new Listeners('waiting room switched', deps.log);
  }

  async disable(roomId: string, gesture: () => Gesture | null): Promise<AdmitResult> {
    if (this.deps.policy.waitingRoom === 'forced') {
      throw new EngineError('waiting_room_forced', 'this instance forces the waiting room; it cannot be disabled');
    }
    const checked = gesture();
    if (!checked) throw new EngineError('meeting_not_found', `room ${roomId} has no meeting in progress`);
    await this.deps.decisions.settle(checked.meeting, checked.queue);
    const wasDisabled = checked.meeting.waitingDisabled;
    // Marked requests (a barred person's name) keep waiting for a moderator's decision, as under Admit all.
    const result = await this.deps.transactions.atomically(async () => {
      const meeting = await this.deps.meetings.disableWaiting(checked.meeting, checked.actor);
      // Told once committed, and before the admissions' list change (also told after the commit, in
      // order): the moderators' pages take the removals that follow their own switch as their answer.
      if (!wasDisabled) this.deps.transactions.afterCommit(() => this.listeners.emit(roomId, meeting.meetingId));
      return this.deps.decisions.admitUnmarked(meeting, checked.queue, checked.actor);
    });
    return result;
  }

  async enable(roomId: string, gesture: () => Gesture | null): Promise<{ enabled: true }> {
    const checked = gesture();
    if (!checked) throw new EngineError('meeting_not_found', `room ${roomId} has no meeting in progress`);
    // The moderator is checked first: who may not moderate learns nothing of the room's settings.
    const room = await this.deps.rooms.get(roomId);
    if (!room || !hasWaitingRoom(this.deps.policy, room)) {
      throw new EngineError(
        'waiting_room_unavailable',
        'this room has no waiting room to turn on: its waiting room setting is off',
      );
    }
    if (!checked.meeting.waitingDisabled) return { enabled: true };
    await this.deps.transactions.atomically(() => this.deps.meetings.enableWaiting(checked.meeting, checked.actor));
    this.listeners.emit(roomId, checked.meeting.meetingId);
    return { enabled: true };
  }

  async state(roomId: string): Promise<SwitchState> {
    const room = await this.deps.rooms.get(roomId);
    if (!room || !hasWaitingRoom(this.deps.policy, room)) return { enabled: false, switchable: false };
    if (this.deps.policy.waitingRoom === 'forced') return { enabled: true, switchable: false };
    return { enabled: !(this.deps.meetings.current(roomId)?.waitingDisabled ?? false), switchable: true };
  }

  onSwitched(listener: SwitchListener): () => void {
    return this.listeners.add(listener);
  }
}
