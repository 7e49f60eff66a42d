import type { ChatEntry } from './chat-log.js';
import type { LockDefaults, LockSettings } from './meeting-locks.js';
import type { Participant, Role } from '../meetings/meeting.js';
import type { RoomState } from './room-state.js';

/** The present of a room's open meeting (but those away in a sub-group), with what the live room knows of each. */
export function attendeesOf(present: readonly Participant[], live: RoomState | undefined): LiveAttendee[] {
  return present
    .filter((p) => !live?.away.has(p.participantId))
    .map((p) => {
      const member = live?.members.get(p.participantId);
      return {
        participantId: p.participantId,
        name: p.name,
        role: p.role,
        audio: member?.audio ?? false,
        video: member?.video ?? false,
        screen: member?.screen ?? false,
        connected: member !== undefined,
      };
    });
}

/** One person of a room's open meeting as the live connection knows them. */
export interface LiveAttendee {
  readonly participantId: string;
  readonly name: string;
  readonly role: Role;
  /** Sending audio (microphone on), as her page reported. */
  readonly audio: boolean;
  /** Sending video (camera on). */
  readonly video: boolean;
  /** Sharing her screen. */
  readonly screen: boolean;
  /** A live connection is open now (false during the few seconds of a reload). */
  readonly connected: boolean;
}

/**
 * What other modules (the compat module) may ask of the live connection: the one seam,
 * camelCase like the rest of the engine (the wire's snake_case stays in the socket code). What
 * reads or writes the store (the chat, the locks) answers a Promise.
 * Statistics are `services.stats.of(meetingId)`.
 */
export interface LiveApi {
  /**
   * Posts a chat message in the name of 'System' to the room's open meeting: stored, then
   * sent to everyone connected. Null when the room has no open meeting. Throws EngineError
   * invalid_field (field `text`) unless the text is 1 to 2000 characters and not blank.
   */
  postSystemChat(roomId: string, text: string): Promise<ChatEntry | null>;
  /**
   * Who is present in the room's open meeting (join order), with the media state their page
   * reported; [] without an open meeting. People away in a sub-group are not listed.
   */
  attendees(roomId: string): LiveAttendee[];
  /** The lock settings of the room's open meeting; null without one. */
  locks(roomId: string): Promise<LockSettings | null>;
  /** Sets the lock settings of the room's open meeting, as a moderator would; false without one. */
  setLocks(roomId: string, locks: LockSettings): Promise<boolean>;
  /**
   * Where a meeting's first lock settings come from (for example a create call's
   * lockSettingsDisableMic); consulted once per meeting, when its settings are first needed.
   * Replaces the previous provider.
   */
  setLockDefaults(provider: LockDefaults): void;
  /** Whether arrivals in a room start muted (e.g. the meeting API's muteOnStart). */
  setMuteOnStart(provider: (roomId: string) => boolean): void;
}
