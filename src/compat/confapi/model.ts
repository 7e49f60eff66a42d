/**
 * The meeting API's records and the store interface they are kept through. The SQLite
 * implementation lives in src/compat/store/; tests may pass an in-memory one.
 */

export const guestPolicies = ['ALWAYS_ACCEPT', 'ASK_MODERATOR', 'ALWAYS_DENY', 'ALWAYS_ACCEPT_AUTH'] as const;
export type GuestPolicy = (typeof guestPolicies)[number];

export type EndReason = 'end' | 'duration' | 'empty' | 'expired';

/** Lock settings and other create parameters that are accepted and stored. */
export interface MeetingSettings {
  readonly welcome: string;
  readonly logoutURL: string;
  readonly muteOnStart: boolean;
  readonly webcamsOnlyForModerator: boolean;
  /** Every `lockSettings*` parameter as sent, parsed as a boolean. */
  readonly lockSettings: Readonly<Record<string, boolean>>;
  /** Other known create parameters (e.g. moderatorOnlyMessage, bannerText), kept as sent. */
  readonly extra: Readonly<Record<string, string>>;
}

/** A document named in a pre-upload body (`<modules><module name="presentation"><document .../>`). */
export interface PresentationRef {
  readonly url: string | null;
  readonly filename: string | null;
  /** True when the document came inline (base64), which is stored only as its size. */
  readonly inline: boolean;
  readonly size: number;
}

export interface CompatMeeting {
  readonly internalId: string;
  readonly tenantId: string;
  readonly meetingId: string;
  /** The engine room the meeting lives in. */
  readonly roomId: string;
  readonly name: string;
  readonly attendeePw: string;
  readonly moderatorPw: string;
  /** Milliseconds since the epoch. */
  readonly createTime: number;
  readonly voiceBridge: string;
  readonly dialNumber: string;
  readonly durationMin: number;
  readonly maxParticipants: number;
  readonly record: boolean;
  readonly guestPolicy: GuestPolicy;
  readonly settings: MeetingSettings;
  /** Metadata names without `meta_`, lowercased, in the order sent. */
  readonly metadata: readonly (readonly [string, string])[];
  readonly presentations: readonly PresentationRef[];
  /** The engine meeting that hosted it once somebody entered the room. */
  readonly engineMeetingId: string | null;
  readonly startTime: number | null;
  /** Set when the meeting ended; null while it exists. */
  readonly endTime: number | null;
  readonly forciblyEnded: boolean;
  readonly endReason: EndReason | null;
}

/** The fields a new meeting is named by. */
export type MeetingIdentity = Pick<
  CompatMeeting,
  'internalId' | 'tenantId' | 'meetingId' | 'roomId' | 'name' | 'createTime'
>;

/** A meeting with every field beyond its identity at the value a bare `create` gives it. */
export function plainMeeting(identity: MeetingIdentity, fields: Partial<CompatMeeting> = {}): CompatMeeting {
  return {
    ...identity,
    attendeePw: '',
    moderatorPw: '',
    voiceBridge: '',
    dialNumber: '',
    durationMin: 0,
    maxParticipants: 0,
    record: false,
    guestPolicy: 'ALWAYS_ACCEPT',
    settings: {
      welcome: '',
      logoutURL: '',
      muteOnStart: false,
      webcamsOnlyForModerator: false,
      lockSettings: {},
      extra: {},
    },
    metadata: [],
    presentations: [],
    engineMeetingId: null,
    startTime: null,
    endTime: null,
    forciblyEnded: false,
    endReason: null,
    ...fields,
  };
}

export interface ChatRecord {
  readonly internalId: string;
  readonly at: number;
  readonly sender: string;
  readonly text: string;
  readonly delivered: boolean;
}

/** The kind also decides the headers a job is sent with (callbacks.ts headersFor): none are stored. */
export type CallbackKind = 'meeting_ended' | 'recording_ready' | 'analytics';

export interface CallbackJob {
  readonly id: number;
  readonly kind: CallbackKind;
  readonly tenantId: string;
  readonly internalId: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly body: string | null;
  readonly contentType: string | null;
  readonly attempts: number;
  readonly nextAt: number;
  readonly createdAt: number;
  readonly doneAt: number | null;
  readonly outcome: 'delivered' | 'refused' | 'gave_up' | null;
  readonly lastError: string | null;
}

export type NewCallbackJob = Omit<CallbackJob, 'id' | 'attempts' | 'doneAt' | 'outcome' | 'lastError'>;

export interface RecordingRecord {
  readonly recordId: string;
  readonly tenantId: string;
  readonly meetingId: string;
  readonly internalId: string;
  readonly name: string;
  readonly published: boolean;
  readonly protected: boolean;
  readonly startTime: number;
  readonly endTime: number;
  readonly participants: number;
  readonly metadata: readonly (readonly [string, string])[];
}

export interface CompatStore {
  transaction<T>(fn: () => T): T;
  insertMeeting(meeting: CompatMeeting): void;
  /** Takes back a meeting whose creation failed (CompatMeetings.create): its chat and callbacks go with it. */
  deleteMeeting(internalId: string): void;
  updateMeeting(meeting: CompatMeeting): void;
  meeting(internalId: string): CompatMeeting | null;
  /** The tenant's meeting of that meetingID that has not ended. */
  openMeeting(tenantId: string, meetingId: string): CompatMeeting | null;
  /** The tenant's newest meeting of that meetingID, ended or not. */
  latestMeeting(tenantId: string, meetingId: string): CompatMeeting | null;
  /** Meetings not ended, all tenants, oldest first. */
  openMeetings(): CompatMeeting[];
  /** The tenant's meetings not ended, oldest first. */
  openMeetingsOf(tenantId: string): CompatMeeting[];
  /** The meeting not ended that lives in this engine room. */
  openMeetingInRoom(roomId: string): CompatMeeting | null;
  /** Engine rooms of meetings that ended (a room may hold an open meeting too, under an older version). */
  endedRoomIds(): string[];
  /** Tenants holding a meeting not ended with this meetingID. */
  ownersOf(meetingId: string): readonly string[];
  /** A join's `userdata-*` pairs for one person of a meeting (replacing what an earlier join of hers left). */
  setCustomData(internalId: string, userKey: string, data: readonly (readonly [string, string])[]): void;
  /** The meeting's custom data by person (user key). */
  customDataOf(internalId: string): ReadonlyMap<string, readonly (readonly [string, string])[]>;
  appendChat(record: ChatRecord): void;
  chatOf(internalId: string): ChatRecord[];
  insertCallback(job: NewCallbackJob): CallbackJob;
  updateCallback(job: CallbackJob): void;
  pendingCallbacks(): CallbackJob[];
  insertRecording(recording: RecordingRecord): void;
  updateRecording(recording: RecordingRecord): void;
  deleteRecording(recordId: string): void;
  /** The tenant's recordings, newest first; filters by meetingID or record id when given. */
  recordings(
    tenantId: string,
    filter: { meetingIds?: readonly string[]; recordIds?: readonly string[] },
  ): RecordingRecord[];
  close(): void;
}
