import type { Scheduler } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import { presentIn } from '../meetings/meeting.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { MeetingStats } from '../stats/meeting-stats.js';
import { liveError } from './live-errors.js';
import { locksOnWire, mayAudio, mayVideo, type LockSettings, type MeetingLocks } from './meeting-locks.js';
import { MediaFlush } from './media-flush.js';
import type { MediaBackend, MediaBackendFactory, MediaContext, MediaPeer } from './media-port.js';
import type { RateLimit } from './rate-windows.js';
import { viewOf, type LiveRooms, type Member, type RoomState } from './room-state.js';

export interface MediaRulesDeps {
  readonly meetings: Pick<MeetingService, 'participant'>;
  readonly locks: Pick<MeetingLocks, 'held' | 'set'>;
  readonly stats: Pick<MeetingStats, 'state' | 'speaking'>;
  /** The media backend the daemon chose (the mesh relay, or an SFU adapter). */
  readonly media: MediaBackendFactory;
  readonly scheduler: Scheduler;
  /** See LiveOptions.stateFlushMs and roomSendsPerSecond. */
  readonly stateFlushMs: number;
  readonly roomSendsPerSecond: number;
  readonly log: EngineLog;
}

type MediaState = { readonly audio: boolean; readonly video: boolean; readonly screen: boolean };

export const peerOf = (state: RoomState, member: Member): MediaPeer => ({
  participantId: member.participantId,
  roomId: state.roomId,
  meetingId: state.meetingId,
  role: member.role,
});

/**
 * What a member may send and says she sends: her media state under the meeting's locks, her
 * speaking, the locks themselves, and her signalling through the media backend. Locks bind
 * participants, never moderators (the rule is src/protocol/locks.ts, shared with the page).
 */
export class MediaRules {
  readonly backend: MediaBackend;
  /** How the room hears of media and speaking: coalesced (media-flush.ts). */
  readonly flush: MediaFlush;

  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: MediaRulesDeps,
  ) {
    this.backend = deps.media(this.context());
    this.flush = new MediaFlush(rooms, {
      scheduler: deps.scheduler,
      stats: deps.stats,
      flushMs: deps.stateFlushMs,
      sendsPerSecond: deps.roomSendsPerSecond,
      log: deps.log,
    });
  }

  locksOf(state: RoomState): LockSettings {
    return this.deps.locks.held({ meetingId: state.meetingId, roomId: state.roomId });
  }

  /**
   * Her page reports what it sends: what the locks forbid is turned off, and she is told (her
   * own view at once, the room at the next flush).
   */
  state(state: RoomState, member: Member, wanted: MediaState): void {
    const locks = this.locksOf(state);
    const audio = wanted.audio && mayAudio(member.role, locks);
    const videoAllowed = mayVideo(member.role, locks);
    const video = wanted.video && videoAllowed;
    const screen = wanted.screen && videoAllowed;
    this.setMedia(state, member, { audio, video, screen });
    if (audio !== wanted.audio || video !== wanted.video || screen !== wanted.screen) {
      member.outbox.send(liveError('locked', 'a moderator locked this for participants'));
      member.outbox.send({ type: 'state', participant: viewOf(member) });
    }
  }

  /**
   * Her page says she speaks (its own level meter). Through an SFU the server measures it
   * (MediaContext.speaking), so talk time and the dominant speaker do not rest on a page's claim.
   */
  claimed(state: RoomState, member: Member, speaking: boolean): void {
    if (this.backend.kindFor(state.meetingId) === 'janus') return;
    this.speaking(state, member, speaking);
  }

  speaking(state: RoomState, member: Member, speaking: boolean): void {
    if (speaking === member.speaking || (speaking && !member.audio)) return;
    member.speaking = speaking;
    this.flush.changed(state, member);
  }

  /** New settings, written first; everyone hears them, and what they now forbid is turned off for each member, told at once. */
  async applyLocks(state: RoomState, settings: LockSettings): Promise<void> {
    const locks = await this.deps.locks.set(state.meetingId, settings);
    this.rooms.broadcast(state, { type: 'locks', locks: locksOnWire(locks) });
    for (const member of state.members.values()) {
      const audio = member.audio && mayAudio(member.role, locks);
      const videoAllowed = mayVideo(member.role, locks);
      this.setMedia(state, member, {
        audio,
        video: member.video && videoAllowed,
        screen: member.screen && videoAllowed,
      });
    }
    this.flush.now(state);
    this.backend.locksChanged(state.meetingId, locks);
  }

  /**
   * Which participants' video her page shows (`view`): ids of members of her room's meeting
   * only (others, and her own, are dropped), handed to the backend. A flood is cut by its own
   * window: each view may re-plan her subscription on the SFU.
   */
  view(state: RoomState, member: Member, video: readonly string[], large: string | undefined, limit: RateLimit): void {
    if (!member.windows.views.admit(this.rooms.nowMs(), limit)) {
      member.outbox.send(liveError('rate_limited', 'too many view changes; wait a few seconds'));
      return;
    }
    const shown = (id: string) => id !== member.participantId && state.members.has(id);
    const big = large !== undefined && shown(large) ? large : null;
    const ids = new Set(video.filter(shown));
    if (big !== null) ids.add(big);
    this.backend.view?.(peerOf(state, member), { video: [...ids], large: big });
  }

  /** A signal for another member, through the media backend (which checks it against the sender's locks). */
  relay(member: Member, to: string, data: unknown): void {
    const result = this.backend.relaySignal(member.participantId, to, data);
    // A signal to someone who is not (or no longer) in the meeting is dropped without a word.
    if (!result.ok && result.code !== 'not_member') member.outbox.send(liveError(result.code, result.message));
  }

  /** Memory now (locks, attendees and the backend read it); the room hears it at the next flush. */
  private setMedia(state: RoomState, member: Member, media: MediaState): void {
    if (member.audio === media.audio && member.video === media.video && member.screen === media.screen) return;
    if (!media.audio) member.speaking = false;
    member.audio = media.audio;
    member.video = media.video;
    member.screen = media.screen;
    this.flush.changed(state, member);
  }

  /** The media backend's view of the meeting: admitted peers only, and their connections. */
  private context(): MediaContext {
    return {
      peer: (participantId) => {
        const entry = this.rooms.connected.get(participantId);
        if (!entry || entry.member.gone) return null;
        if (!presentIn(this.deps.meetings.participant(participantId), entry.state)) return null;
        return peerOf(entry.state, entry.member);
      },
      locks: (peer) => this.deps.locks.held(peer),
      deliver: (participantId, message) => {
        const entry = this.rooms.connected.get(participantId);
        if (!entry || entry.member.gone) return false;
        entry.member.outbox.send(message);
        return true;
      },
      speaking: (participantId, speaking) => {
        const entry = this.rooms.connected.get(participantId);
        if (entry && !entry.member.gone) this.speaking(entry.state, entry.member, speaking);
      },
    };
  }
}
