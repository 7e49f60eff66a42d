import type { Locks } from '../protocol/live.js';
import type { LiveActivity, MeetingLiveView } from './live-view.js';

/**
 * The part of the live connection's LiveApi (src/http/live/live-api.ts, `services.live`)
 * and of its statistics (`services.stats`) this module reads. Declared structurally here so
 * the compat module depends on the shape, not on the live connection's files.
 */
export interface LiveConnectionLike {
  /** Null when the room has no open meeting; throws for a text the chat refuses. */
  postSystemChat(roomId: string, text: string): unknown;
  attendees(roomId: string): readonly {
    readonly participant_id: string;
    readonly name: string;
    readonly role: 'moderator' | 'participant';
    readonly audio: boolean;
    readonly video: boolean;
  }[];
  setLockDefaults?(provider: (roomId: string) => Partial<Locks> | null): void;
  setMuteOnStart?(provider: (roomId: string) => boolean): void;
}

export interface StatsLike {
  of(meetingId: string): readonly {
    readonly participantId: string;
    readonly talkTimeMs: number;
    readonly webcams: readonly { readonly startedAt: string; readonly endedAt: string | null }[];
    readonly chatMessages: number;
  }[];
}

export function isLiveConnection(value: unknown): value is LiveConnectionLike {
  const v = value as Partial<LiveConnectionLike> | null | undefined;
  return typeof v?.postSystemChat === 'function' && typeof v.attendees === 'function';
}

export function isStats(value: unknown): value is StatsLike {
  return typeof (value as Partial<StatsLike> | null | undefined)?.of === 'function';
}

/** The meeting API's view of the live connection: attendees with media state, System chat, activity. */
export function liveConnectionView(live: LiveConnectionLike, stats: StatsLike | null): MeetingLiveView {
  return {
    attendees: (roomId) => live.attendees(roomId).map((a) => ({ participantId: a.participant_id, name: a.name, role: a.role, audio: a.audio, video: a.video })),
    postSystemChat: (roomId, text) => {
      try {
        return live.postSystemChat(roomId, text) !== null;
      } catch {
        // A text the chat refuses (e.g. over its length) is still kept by the module.
        return false;
      }
    },
    activity: (_roomId, engineMeetingId) => {
      const out = new Map<string, LiveActivity>();
      for (const s of stats?.of(engineMeetingId) ?? []) {
        out.set(s.participantId, {
          talkTimeMs: s.talkTimeMs,
          webcams: s.webcams.map((w) => ({ startedOn: Date.parse(w.startedAt), stoppedOn: w.endedAt === null ? 0 : Date.parse(w.endedAt) })),
          messages: s.chatMessages,
        });
      }
      return out;
    },
  };
}
