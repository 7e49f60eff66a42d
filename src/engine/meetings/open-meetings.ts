import { EngineError } from '../errors.js';
import type { AsyncPort } from '../async-port.js';
import type { Meeting, MeetingStore, Participant } from './meeting.js';

/** An open meeting as memory holds it. */
export interface LiveMeeting {
  meeting: Meeting;
  readonly participants: Map<string, Participant>;
  /** Time of the last join, leave or timeline entry: emptiness is measured from it. */
  lastChangeMs: number;
}

/**
 * The open meetings in memory, by room and by participant: presence (who is here, whether a
 * moderator is) is answered from here without reading the store. MeetingService alone changes it,
 * once the store has the change or with a rollback step that takes it back.
 */
export class OpenMeetings {
  private readonly byRoom = new Map<string, LiveMeeting>();
  private readonly byParticipant = new Map<string, LiveMeeting>();

  ofRoom(roomId: string): LiveMeeting | undefined {
    return this.byRoom.get(roomId);
  }

  ofParticipant(participantId: string): LiveMeeting | undefined {
    return this.byParticipant.get(participantId);
  }

  all(): LiveMeeting[] {
    return [...this.byRoom.values()];
  }

  /** The open meeting `meeting` names; meeting_not_found once it ended or was replaced. */
  of(meeting: Meeting): LiveMeeting {
    const live = this.byRoom.get(meeting.roomId);
    if (!live || live.meeting.meetingId !== meeting.meetingId) {
      throw new EngineError('meeting_not_found', `meeting ${meeting.meetingId} is not open`);
    }
    return live;
  }

  present(roomId: string): Participant[] {
    const live = this.byRoom.get(roomId);
    return live ? [...live.participants.values()].filter((p) => p.leftAt === null) : [];
  }

  open(live: LiveMeeting): void {
    this.byRoom.set(live.meeting.roomId, live);
  }

  /** Takes back `open`, unless the room's meeting is another one by now. */
  close(live: LiveMeeting): void {
    if (this.byRoom.get(live.meeting.roomId) === live) this.byRoom.delete(live.meeting.roomId);
  }

  index(live: LiveMeeting, participant: Participant): void {
    live.participants.set(participant.participantId, participant);
    this.byParticipant.set(participant.participantId, live);
  }

  unindex(live: LiveMeeting, participantId: string): void {
    live.participants.delete(participantId);
    this.byParticipant.delete(participantId);
  }

  /** The meeting and every participant of it leave memory. */
  forget(live: LiveMeeting): void {
    for (const participantId of live.participants.keys()) this.byParticipant.delete(participantId);
    this.close(live);
  }

  /**
   * Opens what the store holds open (at start, or a room taken over from another node), each
   * meeting with a fresh grace period: a restart or a takeover is not a period of emptiness.
   */
  load(loaded: OpenAtStart, nowMs: number): void {
    for (const meeting of loaded.meetings) {
      const live: LiveMeeting = { meeting, participants: new Map(), lastChangeMs: nowMs };
      for (const participant of loaded.participants.get(meeting.meetingId) ?? []) this.index(live, participant);
      this.open(live);
    }
  }
}

/** What the store holds open at start: the meetings not ended, with their participants. */
export interface OpenAtStart {
  readonly meetings: readonly Meeting[];
  readonly participants: ReadonlyMap<string, readonly Participant[]>;
}

/** Reads the open meetings and their participants (MeetingService's reload at start). */
export async function openAtStart(
  store: Pick<AsyncPort<MeetingStore>, 'openMeetings' | 'participantsOf'>,
): Promise<OpenAtStart> {
  const meetings = await store.openMeetings();
  const participants = new Map<string, readonly Participant[]>();
  for (const meeting of meetings) participants.set(meeting.meetingId, await store.participantsOf(meeting.meetingId));
  return { meetings, participants };
}

/**
 * Reads the room's open meeting (at most one: the store's unique index) and its participants, with
 * their roles: a room this node took over from another (issue 35), whose memory was there.
 */
export async function openInRoom(
  store: Pick<AsyncPort<MeetingStore>, 'meetingsOf' | 'participantsOf'>,
  roomId: string,
): Promise<OpenAtStart> {
  const meetings = (await store.meetingsOf(roomId)).filter((meeting) => meeting.endedAt === null).slice(0, 1);
  const participants = new Map<string, readonly Participant[]>();
  for (const meeting of meetings) participants.set(meeting.meetingId, await store.participantsOf(meeting.meetingId));
  return { meetings, participants };
}
