import { mayAudio as wireMayAudio, mayVideo as wireMayVideo } from '../../protocol/locks.js';
import type { Locks } from '../../protocol/live.js';
import type { AsyncPort } from '../async-port.js';
import type { Clock } from '../clock.js';
import type { Role } from '../meetings/meeting.js';

/** Lock settings of a meeting. They bind participants, never moderators. */
export interface LockSettings {
  /** Participants may not send audio. */
  readonly mic: boolean;
  /** Participants may not send video. */
  readonly cam: boolean;
  /** Only moderators may send video. */
  readonly camsModeratorsOnly: boolean;
}

export const unlocked: LockSettings = { mic: false, cam: false, camsModeratorsOnly: false };

export interface LockStore {
  getLocks(meetingId: string): LockSettings | null;
  saveLocks(meetingId: string, locks: LockSettings, at: string): void;
}

/** Where a meeting's first lock settings come from (e.g. the compat module's create call). */
export type LockDefaults = (roomId: string) => Partial<LockSettings> | null;

/** The settings as the wire and the page name them. */
export const locksOnWire = (l: LockSettings): Locks => ({
  mic: l.mic,
  cam: l.cam,
  cams_moderators_only: l.camsModeratorsOnly,
});

/** The wire's settings as the engine's. */
export const locksFromWire = (l: Locks): LockSettings => ({
  mic: l.mic,
  cam: l.cam,
  camsModeratorsOnly: l.cams_moderators_only,
});

/** The one lock rule (src/protocol/locks.ts, shared with the page), over the engine's settings. */
export function mayAudio(role: Role, locks: LockSettings): boolean {
  return wireMayAudio(role, locksOnWire(locks));
}

/** Video includes screen sharing: both are video sections of the same connection. */
export function mayVideo(role: Role, locks: LockSettings): boolean {
  return wireMayVideo(role, locksOnWire(locks));
}

/**
 * The lock settings of open meetings, written through to the store (the asynchronous port) so that
 * a restart does not unlock anyone; served from memory. This class is the only writer of the
 * locks' rows, so once a meeting's settings are read or written here the cache holds what the
 * store holds: that is what lets `held` answer from memory alone.
 */
export class MeetingLocks {
  private readonly cache = new Map<string, LockSettings>();
  /** First reads under way, per meeting: a `get` or `set` meanwhile waits for it. */
  private readonly loading = new Map<string, Promise<LockSettings>>();
  private defaults: LockDefaults = () => null;

  constructor(
    private readonly store: AsyncPort<LockStore>,
    private readonly clock: Clock,
  ) {}

  /** Replaces the source of first settings; a meeting that has settings keeps them. */
  setDefaults(defaults: LockDefaults): void {
    this.defaults = defaults;
  }

  /** The settings of a meeting (read from the store once per meeting and process; first ones from the defaults). */
  async get(meeting: { readonly meetingId: string; readonly roomId: string }): Promise<LockSettings> {
    const cached = this.cache.get(meeting.meetingId);
    if (cached) return cached;
    let load = this.loading.get(meeting.meetingId);
    if (!load) {
      load = this.load(meeting).finally(() => this.loading.delete(meeting.meetingId));
      this.loading.set(meeting.meetingId, load);
    }
    return load;
  }

  /**
   * The settings in memory, for the media rules, which apply the locks to every media change of a
   * socket: every member's welcome awaited `get` for her meeting first, so this is a hit. A meeting
   * nobody was welcomed to yet has the settings a first `get` would give it (its defaults), not stored here.
   */
  held(meeting: { readonly meetingId: string; readonly roomId: string }): LockSettings {
    return this.cache.get(meeting.meetingId) ?? { ...unlocked, ...this.defaults(meeting.roomId) };
  }

  /** New settings, written through; rejects when the store refuses them (memory keeps the old ones). */
  async set(meetingId: string, locks: LockSettings): Promise<LockSettings> {
    // A first read under way must not put its older settings (or defaults) over these afterwards.
    await this.loading.get(meetingId)?.catch(() => undefined);
    return this.save(meetingId, locks);
  }

  private async load(meeting: { readonly meetingId: string; readonly roomId: string }): Promise<LockSettings> {
    const stored = await this.store.getLocks(meeting.meetingId);
    if (stored) {
      this.cache.set(meeting.meetingId, stored);
      return stored;
    }
    const given = this.defaults(meeting.roomId);
    if (!given) return unlocked;
    // The first settings are kept, so that a later change of the defaults does not move them.
    return this.save(meeting.meetingId, { ...unlocked, ...given });
  }

  private async save(meetingId: string, locks: LockSettings): Promise<LockSettings> {
    const settings: LockSettings = { mic: locks.mic, cam: locks.cam, camsModeratorsOnly: locks.camsModeratorsOnly };
    await this.store.saveLocks(meetingId, settings, this.clock.now().toISOString());
    this.cache.set(meetingId, settings);
    return settings;
  }

  forget(meetingId: string): void {
    this.cache.delete(meetingId);
  }
}
