export const timelineKinds = [
  'knock',
  'admit',
  'admit_all',
  'refuse',
  'bar',
  'expire',
  'withdraw',
  'window_closed',
  'waiting_room_disabled',
  /** A moderator turned the waiting room back on for later arrivals of this meeting. */
  'waiting_room_enabled',
  /** A moderator set (or cleared) the meeting's subject. */
  'subject_changed',
  'moderator_arrived',
  /** A present participant became the moderator of a room that is never left without one. */
  'moderator_promoted',
  /** A moderator removed a present participant (subject): her session is spent; she may knock again. */
  'participant_removed',
  /** A moderator asked a present participant (subject) to turn her microphone off. */
  'participant_muted',
  'meeting_ended',
] as const;

export type TimelineKind = (typeof timelineKinds)[number];

/** The decider as recorded; a null actor in an entry means the service itself (timeout, closed window, until_moderator). */
export interface RecordedActor {
  readonly kind: 'participant' | 'api';
  readonly participantId: string | null;
  readonly name: string;
}

export interface TimelineSubject {
  readonly requestId: string | null;
  readonly participantId: string | null;
  readonly name: string;
}

export interface TimelineEntry {
  readonly meetingId: string;
  readonly at: string;
  readonly kind: TimelineKind;
  readonly actor: RecordedActor | null;
  readonly subject: TimelineSubject | null;
  /** How many people an admit_all let in; null for other kinds. */
  readonly count: number | null;
  /** How many an admit_all left waiting because their name is that of a person barred in this meeting (absent: none). */
  readonly skipped?: number;
}
