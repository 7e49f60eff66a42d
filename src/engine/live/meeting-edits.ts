import type { MeetingService } from '../meetings/meeting-service.js';
import { engineCallAsync, liveError, settingsAllowed } from './live-errors.js';
import type { MediaFlush } from './media-flush.js';
import type { RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

export interface MeetingEditsDeps {
  readonly meetings: Pick<MeetingService, 'rename' | 'setSubject'>;
  readonly flush: () => MediaFlush;
  readonly renameLimit: RateLimit;
  readonly settingsLimit: RateLimit;
}

/**
 * A participant's own name and a moderator's subject: durable writes told to everyone once on
 * disk. A gesture beyond its window is refused at once (the socket's next message does not wait
 * for it); an admitted one awaits the store, and the socket's queue holds what follows.
 */
export class MeetingEdits {
  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: MeetingEditsDeps,
  ) {}

  /** Her own name, by the rule of every arrival; beyond `renameLimit` nothing is written or sent to anyone but her. */
  rename(state: RoomState, member: Member, name: string): void | Promise<void> {
    if (!member.windows.renames.admit(this.rooms.nowMs(), this.deps.renameLimit)) {
      member.outbox.send(liveError('rate_limited', 'too many name changes; wait a few seconds'));
      return;
    }
    return this.renamed(state, member, name);
  }

  subject(state: RoomState, member: Member, subject: string): void | Promise<void> {
    if (!settingsAllowed(member, this.rooms.nowMs(), this.deps.settingsLimit)) return;
    return this.subjectSet(state, member, subject);
  }

  private async renamed(state: RoomState, member: Member, name: string): Promise<void> {
    const result = await engineCallAsync(member.outbox, () => this.deps.meetings.rename(member.participantId, name));
    if (!result?.changed || member.gone) return;
    member.name = result.participant.name;
    this.deps.flush().publish(state, member);
  }

  private async subjectSet(state: RoomState, member: Member, subject: string): Promise<void> {
    const actor = { kind: 'participant', participantId: member.participantId } as const;
    const result = await engineCallAsync(member.outbox, () =>
      this.deps.meetings.setSubject(state.roomId, actor, subject),
    );
    if (result?.changed) this.rooms.broadcast(state, { type: 'subject', subject: result.meeting.subject });
  }
}
