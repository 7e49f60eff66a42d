import type { MeetingService } from '../engine/meetings/meeting-service.js';

/**
 * What the meeting API reads from, and posts to, the live connection (src/http/live/,
 * src/media/). The compat module depends only on this interface; until the live
 * connection provides it, `engineLiveView` derives what it can from MeetingService.
 */
export interface LiveAttendee {
  readonly participantId: string;
  readonly name: string;
  readonly role: 'moderator' | 'participant';
  /** Sending audio (microphone on). */
  readonly audio: boolean;
  /** Sending video (camera on). */
  readonly video: boolean;
}

/** What the live connection measured of one participant during one engine meeting. */
export interface LiveActivity {
  /** Total talk time in milliseconds. */
  readonly talkTimeMs: number;
  /** Camera periods, epoch milliseconds; stoppedOn 0 while still on. */
  readonly webcams: readonly { readonly startedOn: number; readonly stoppedOn: number }[];
  /** Public chat messages sent. */
  readonly messages: number;
}

export interface MeetingLiveView {
  /** Who is present in the room now, with audio and video state. */
  attendees(roomId: string): LiveAttendee[];
  /**
   * Posts `text` in the room's chat in the name of `System` to everyone connected; true when
   * the live connection took it. The compat module records every message itself as well.
   */
  postSystemChat(roomId: string, text: string): boolean;
  /** Activity by participant id for an engine meeting (open or ended); empty when unknown. */
  activity(roomId: string, engineMeetingId: string): ReadonlyMap<string, LiveActivity>;
}

/** The stand-in until the live connection exists: presence from the engine, no media state, no delivery. */
export function engineLiveView(meetings: Pick<MeetingService, 'present'>): MeetingLiveView {
  return {
    attendees: (roomId) => meetings.present(roomId).map((p) => ({ participantId: p.participantId, name: p.name, role: p.role, audio: false, video: false })),
    postSystemChat: () => false,
    activity: () => new Map(),
  };
}
