import { LeaseLostError } from '../../engine/cluster/leases.js';
import type { Whereabouts } from '../../engine/cluster/ownership.js';
import { CompatMeetings, type CompatMeetingsDeps, type LiveState } from './meetings.js';
import type { CompatMeeting } from './model.js';
import type { NodeLink } from './node-link.js';

const notRunning: LiveState = { running: false, attendees: [] };
/** PostgreSQL's SQLSTATE for a unique index refusing a row. */
const uniqueViolation = '23505';

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

  /**
   * Creates of one meetingID take turns within a node only: two nodes creating it at once both
   * insert, and the store's unique index (one open meeting per tenant and meetingID) keeps one.
   * The other answers that meeting, as a second create on one node does.
   */
  override async openOrCreate(
    tenantId: string,
    meetingId: string,
    make: () => CompatMeeting,
  ): Promise<{ meeting: CompatMeeting; existed: boolean }> {
    try {
      return await super.openOrCreate(tenantId, meetingId, make);
    } catch (err) {
      if ((err as { code?: unknown }).code !== uniqueViolation) throw err;
      const existing = await this.open(tenantId, meetingId);
      if (!existing) throw err;
      return { meeting: existing, existed: true };
    }
  }

  /** At a node's start, a room another node serves refuses the write (its owner set it): the start goes on. */
  override async reconcileRooms(): Promise<void> {
    try {
      await super.reconcileRooms();
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
      this.deps.onError?.(err);
    }
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

  /**
   * Judged only where the room is served: `where` answers once a room gained is adopted, so the
   * engine's memory read next holds its meeting. (Read before the claim, a dead owner's meeting
   * would look emptied, and the fence, passed once the claim is done, would let it be ended.)
   * `where` claims the room when this node is its successor and no live node holds it.
   */
  override async refresh(meeting: CompatMeeting): Promise<CompatMeeting> {
    if (meeting.endTime !== null || !(await this.where(meeting.roomId)).mine) return meeting;
    return super.refresh(meeting);
  }

  override async sweep(): Promise<void> {
    const open = await this.deps.store.openMeetings();
    this.link.keepOnly(new Set(open.map((meeting) => meeting.internalId)));
    for (const meeting of open) {
      try {
        await this.refresh(meeting);
      } catch (err) {
        this.deps.onError?.(err);
      }
    }
  }
}
