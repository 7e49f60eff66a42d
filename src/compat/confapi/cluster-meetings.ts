import type { Whereabouts } from '../../engine/cluster/ownership.js';
import { CompatMeetings, type CompatMeetingsDeps, type LiveState } from './meetings.js';
import type { CompatMeeting } from './model.js';
import type { NodeLink } from './node-link.js';

const notRunning: LiveState = { running: false, attendees: [] };

/**
 * The meeting API's meetings on a node of a cluster (issue 35): what the single node reads from
 * its own memory (who is in a meeting, with audio and video) is only in the memory of the room's
 * owner, so a meeting whose room another node serves has its live state asked of that node
 * (`NodeLink`, a short wait), else the last state an owner gave, else what the store holds (the
 * participants present by the engine's rows, without audio or video). The sweep judges only the
 * meetings whose room this node serves: another node's memory is not here to judge theirs.
 */
export class ClusterMeetings extends CompatMeetings {
  constructor(
    deps: CompatMeetingsDeps,
    private readonly link: NodeLink,
    private readonly where: (roomId: string) => Promise<Whereabouts>,
  ) {
    super(deps);
  }

  override async liveState(meeting: CompatMeeting): Promise<LiveState> {
    if (meeting.endTime !== null) return notRunning;
    const elsewhere = await this.link.liveElsewhere(meeting.roomId, meeting.internalId, () => this.stored(meeting));
    return elsewhere ?? super.liveState(meeting);
  }

  /** Served here: the live state from this node's memory, the meeting linked first (the front node may not have seen it). */
  async liveHere(roomId: string, internalId: string): Promise<LiveState | null> {
    const stored = await this.deps.store.openMeetingInRoom(roomId);
    if (!stored || stored.internalId !== internalId) return null;
    return super.liveState(await this.refresh(stored));
  }

  /** The participants present as the engine's rows say (a dead owner's stay present until its successor sees them leave). */
  private async stored(meeting: CompatMeeting): Promise<LiveState> {
    if (meeting.engineMeetingId === null) return notRunning;
    try {
      const attendance = await this.deps.meetings.attendance(meeting.roomId, meeting.engineMeetingId);
      if (attendance.meeting.endedAt !== null) return notRunning;
      const attendees = attendance.participants
        .filter((p) => p.leftAt === null)
        .map((p) => ({
          participantId: p.participantId,
          name: p.name,
          role: p.role,
          audio: false,
          video: false,
          screen: false,
          connected: false,
        }));
      return { running: attendees.length > 0, attendees };
    } catch {
      return notRunning;
    }
  }

  override async sweep(): Promise<void> {
    const open = await this.deps.store.openMeetings();
    this.link.keepOnly(new Set(open.map((meeting) => meeting.internalId)));
    for (const meeting of open) {
      try {
        // Claims the room when this node is its successor and nobody live holds it (a dead owner's).
        if ((await this.where(meeting.roomId)).mine) await this.refresh(meeting);
      } catch (err) {
        this.deps.onError?.(err);
      }
    }
  }
}
