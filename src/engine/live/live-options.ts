import type { RateLimit } from './rate-windows.js';

export interface LiveOptions {
  /** A closed socket counts as leaving the meeting after this long (a reload does not). */
  readonly leaveGraceMs?: number;
  /** Who went into a sub-group stays present in the parent meeting; after `bring_back`, or while no sub-group has a meeting, this long at most. */
  readonly awayGraceMs?: number;
  readonly maxSubgroups?: number;
  /** Chat messages per participant per window. */
  readonly chatLimit?: RateLimit;
  /**
   * Messages of any kind per socket per window (signalling bursts when a page joins a mesh).
   * Beyond it the socket is told `rate_limited` once, then dropped messages go unanswered, and
   * at twice the count it is closed.
   */
  readonly messageLimit?: RateLimit;
  /** `state` and `speaking` messages per socket per window: what a person's clicks and a level meter make; beyond it as messageLimit. */
  readonly mediaLimit?: RateLimit;
  /** Messages of all the sockets of one room per window: beyond it the room's messages are dropped, so one room cannot take the event loop from the others. */
  readonly roomMessageLimit?: RateLimit;
  /** A room's media states and speaking go out at most once per this many milliseconds, the latest value per member. */
  readonly stateFlushMs?: number;
  /** Deliveries (messages times recipients) of a room's coalesced states per second: a larger room's flushes come further apart. */
  readonly roomSendsPerSecond?: number;
  /** Whole waiting lists a moderator may ask for (`waiting_resync`) per window: each costs the list's size. */
  readonly resyncLimit?: RateLimit;
  /** Renames per participant per window: each is a durable write and a message to everyone. */
  readonly renameLimit?: RateLimit;
  /** A moderator's meeting settings (subject, waiting room on/off) per window: durable writes told to everyone. */
  readonly settingsLimit?: RateLimit;
  /** `view` messages (which video her page shows) per participant per window: each may re-plan her SFU subscription. */
  readonly viewLimit?: RateLimit;
  /** Her own hand raised or lowered per participant per window. */
  readonly handLimit?: RateLimit;
  /** Reactions per participant per window: a handful a second is celebration, a stream is noise. */
  readonly reactionLimit?: RateLimit;
  /** A moderator's `mute` and `lower_hand` per window (a teacher muting a class one by one stays well within). */
  readonly muteLimit?: RateLimit;
  /** A turn's waiting-list changes above this many go out as the whole list when that is shorter (admit all). */
  readonly waitingFullListAbove?: number;
}

export const liveDefaults = {
  leaveGraceMs: 5_000,
  awayGraceMs: 60_000,
  maxSubgroups: 20,
  chatLimit: { count: 10, windowMs: 10_000 },
  messageLimit: { count: 1_000, windowMs: 10_000 },
  // The page sends `speaking` on a change of its 250 ms level meter (4 a second at most) and `state` on a click.
  mediaLimit: { count: 60, windowMs: 10_000 },
  roomMessageLimit: { count: 10_000, windowMs: 10_000 },
  stateFlushMs: 250,
  roomSendsPerSecond: 20_000,
  resyncLimit: { count: 5, windowMs: 10_000 },
  renameLimit: { count: 5, windowMs: 10_000 },
  settingsLimit: { count: 10, windowMs: 10_000 },
  viewLimit: { count: 30, windowMs: 10_000 },
  handLimit: { count: 10, windowMs: 10_000 },
  reactionLimit: { count: 10, windowMs: 10_000 },
  muteLimit: { count: 60, windowMs: 10_000 },
  waitingFullListAbove: 64,
} as const;
