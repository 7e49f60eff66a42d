import type { LiveApi, LiveAttendee } from '../engine/live/live-api.js';
import type { MeetingStats } from '../engine/stats/meeting-stats.js';

export type { LiveAttendee };

/** What the live connection measured of one participant during one engine meeting. */
export interface LiveActivity {
  /** Total talk time in milliseconds. */
  readonly talkTimeMs: number;
  /** Camera periods, epoch milliseconds; stoppedOn 0 while still on. */
  readonly webcams: readonly { readonly startedOn: number; readonly stoppedOn: number }[];
  /** Public chat messages sent. */
  readonly messages: number;
}

/**
 * What the meeting API reads from, and posts to, the live connection: the engine's
 * `LiveApi` (`services.live`) as the calls need it, with the statistics (`services.stats`)
 * in the learning dashboard's units.
 */
export interface MeetingLiveView extends Pick<LiveApi, 'attendees'> {
  /**
   * Posts `text` in the room's chat in the name of `System` to everyone connected; true when
   * the live connection took it. The compat module records every message itself as well.
   */
  postSystemChat(roomId: string, text: string): Promise<boolean>;
  /** Activity by participant id for an engine meeting (open or ended); empty when unknown. */
  activity(roomId: string, engineMeetingId: string): Promise<ReadonlyMap<string, LiveActivity>>;
}

export function meetingLiveView(live: LiveApi, stats: Pick<MeetingStats, 'of'>): MeetingLiveView {
  return {
    attendees: (roomId) => live.attendees(roomId),
    postSystemChat: async (roomId, text) => {
      try {
        return (await live.postSystemChat(roomId, text)) !== null;
      } catch {
        // A text the chat refuses (e.g. over its length) is still kept by the module.
        return false;
      }
    },
    activity: async (_roomId, engineMeetingId) => {
      const out = new Map<string, LiveActivity>();
      for (const s of await stats.of(engineMeetingId)) {
        out.set(s.participantId, {
          talkTimeMs: s.talkTimeMs,
          webcams: s.webcams.map((w) => ({
            startedOn: Date.parse(w.startedAt),
            stoppedOn: w.endedAt === null ? 0 : Date.parse(w.endedAt),
          })),
          messages: s.chatMessages,
        });
      }
      return out;
    },
  };
}
