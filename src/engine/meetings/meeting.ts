import type { TimelineEntry } from './timeline.js';

export type Role = 'moderator' | 'participant';

/** One session of a room. At most one meeting of a room is open (endedAt null) at a time. */
export interface Meeting {
  readonly meetingId: string;
  readonly roomId: string;
  readonly startedAt: string;
  readonly endedAt: string | null;
  /** A moderator turned the waiting room off for the rest of this meeting. */
  readonly waitingDisabled: boolean;
  /** The meeting's title a moderator set ('' for none): shown as the page's heading to everyone admitted. */
  readonly subject: string;
}

export interface Participant {
  readonly participantId: string;
  readonly meetingId: string;
  readonly roomId: string;
  readonly role: Role;
  readonly name: string;
  readonly joinedAt: string;
  /** Null while present. */
  readonly leftAt: string | null;
  /** The platform's id of this person (the meeting API's `userID`), when her join link named one. */
  readonly externalId?: string;
  /** Her picture (an http(s) URL) from her join link; held while she is present, never stored. */
  readonly avatarUrl?: string;
}

/**
 * The one rule of "is this person in that meeting": the participant record belongs to the
 * meeting and its room, and she has not left. A session, a socket, a media peer and a
 * sub-group's door all ask it.
 */
export function presentIn(
  participant: Participant | null | undefined,
  meeting: { readonly meetingId: string; readonly roomId: string },
): participant is Participant {
  return (
    !!participant &&
    participant.meetingId === meeting.meetingId &&
    participant.roomId === meeting.roomId &&
    participant.leftAt === null
  );
}

/**
 * Who asks for a gesture. A participant is checked to be a moderator of the room's open
 * meeting; an integration (rooms-API bearer token) is trusted and recorded under its name.
 */
export type Actor =
  { readonly kind: 'participant'; readonly participantId: string } | { readonly kind: 'api'; readonly name: string };

/** Its writes are committed as the engine's unit of work (unit-of-work.ts) says, never on their own. */
export interface MeetingStore {
  insertMeeting(meeting: Meeting): void;
  updateMeeting(meeting: Meeting): void;
  /** Meetings not ended, oldest first. */
  openMeetings(): Meeting[];
  getMeeting(meetingId: string): Meeting | null;
  /** Meetings of a room, newest first. */
  meetingsOf(roomId: string): Meeting[];
  insertParticipant(participant: Participant): void;
  /** Writes what may change of a participant: `leftAt`, `role` (a promotion) and `name` (a rename). */
  updateParticipant(participant: Participant): void;
  /** Participants of a meeting in join order. */
  participantsOf(meetingId: string): Participant[];
  appendTimeline(entry: TimelineEntry): void;
  /** Entries in the order appended, the knocks WaitingRequestStore.insertKnock recorded among them. */
  timelineOf(meetingId: string): TimelineEntry[];
}
