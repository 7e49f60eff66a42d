// Issue 35 point 6: a meeting's Janus room goes on one of several Janus servers (SERVICE_JANUS_URLS),
// chosen by load. Least-loaded alone herds: every node that reads the same loads before any of them
// wrote its choice sends the next meetings to the same server (Scalelite #1048). Two random
// choices spread a burst, and the chosen server's load is reserved in the same transaction as the
// choice (the store's `place`), so no later choice reads a load without it. The rule is here;
// where the loads live (SQLite, PostgreSQL, a test's memory) is the store's.
import type { Clock } from '../clock.js';

export interface MediaServerLoad {
  /** The server's HTTP API address, its key in the store. */
  readonly url: string;
  /** The meetings placed on it and not yet released. */
  readonly load: number;
}

export interface MediaServerRecord extends MediaServerLoad {
  /** Since when it counts as dead (its control session failed, or it stopped answering); null: alive. */
  readonly downSince: Date | null;
}

/** What signs for a meeting's room in Janus: kept with its placement. */
export interface RoomKeys {
  readonly secret: string;
  readonly pin: string;
}

/** Picks the server of a meeting among the live ones (never empty), or null to place none. */
export type ServerChoice = (live: readonly MediaServerLoad[]) => string | null;

/** The servers and the meetings on them (SQLite, PostgreSQL, a memory one in tests), held to one contract test. */
export interface MediaServerStore {
  /** Adds the servers it does not know yet, alive with no load; those it knows keep their load. */
  register(urls: readonly string[]): Promise<void>;
  /**
   * One transaction: the meeting's server when it has one that is alive and not `avoid`; otherwise
   * `choose` picks among the live servers but `avoid`, the meeting is recorded on it and its load
   * grows by one (a former server's shrinks by one). Null when no server is left to choose.
   * Placements of two callers at once take turns, so each sees the other's reservation.
   */
  place(meetingId: string, choose: ServerChoice, avoid: string | null): Promise<string | null>;
  /**
   * The room keys of a placed meeting: the first given are kept and answered to every later
   * caller (a node that took the meeting over signs with the keys of the room already made).
   * `proposed` when the meeting is not placed.
   */
  roomKeys(meetingId: string, proposed: RoomKeys): Promise<RoomKeys>;
  /** The meeting ended: its server's load shrinks by one. Nothing when it has no server. */
  release(meetingId: string): Promise<void>;
  /**
   * Releases, in one transaction, the placements whose meeting has ended or is gone (its owner
   * node died before ending it through the media side). Answers how many.
   */
  releaseEnded(): Promise<number>;
  /** Alive again (null), or dead since then. Only a change is written: the first death's time stays. */
  setDown(url: string, downSince: Date | null): Promise<void>;
  servers(): Promise<MediaServerRecord[]>;
  /** The meeting's server, or null. */
  serverOf(meetingId: string): Promise<string | null>;
}

/**
 * Two random choices: two distinct servers at random, the less loaded of them (the first on a
 * tie). With one server, that one. `random` answers in [0, 1), as Math.random.
 */
export function twoChoices(live: readonly MediaServerLoad[], random: () => number): string | null {
  if (live.length === 0) return null;
  if (live.length === 1) return live[0]!.url;
  const first = Math.floor(random() * live.length);
  // The second among the others, so the two are distinct without a retry.
  let second = Math.floor(random() * (live.length - 1));
  if (second >= first) second += 1;
  const a = live[first]!;
  const b = live[second]!;
  return b.load < a.load ? b.url : a.url;
}

/** Where meetings' Janus rooms go: the store's transaction with the two-choice rule. */
export class MediaPlacement {
  private readonly listed: ReadonlySet<string> | null;

  constructor(
    private readonly store: MediaServerStore,
    private readonly random: () => number,
    private readonly clock: Clock,
    /**
     * This node's list (SERVICE_JANUS_URLS): a server an operator took off it stays in the store
     * (another node may still list it) but gets no new meeting from this node. Absent: any.
     */
    listed?: readonly string[],
  ) {
    this.listed = listed ? new Set(listed) : null;
  }

  /** The meeting's server: the one it has, or a new choice (`avoid`: the server it is leaving). */
  place(meetingId: string, avoid: string | null = null): Promise<string | null> {
    const listed = this.listed;
    const choose: ServerChoice = listed
      ? (live) =>
          twoChoices(
            live.filter((server) => listed.has(server.url)),
            this.random,
          )
      : (live) => twoChoices(live, this.random);
    return this.store.place(meetingId, choose, avoid);
  }

  roomKeys(meetingId: string, proposed: RoomKeys): Promise<RoomKeys> {
    return this.store.roomKeys(meetingId, proposed);
  }

  release(meetingId: string): Promise<void> {
    return this.store.release(meetingId);
  }

  /** Loads of meetings that ended where no media side saw the end (a node died) come off. */
  releaseEnded(): Promise<number> {
    return this.store.releaseEnded();
  }

  /** No new meeting goes there until it is alive again; those on it move when their node sees it. */
  markDead(url: string): Promise<void> {
    return this.store.setDown(url, this.clock.now());
  }

  markAlive(url: string): Promise<void> {
    return this.store.setDown(url, null);
  }

  servers(): Promise<MediaServerRecord[]> {
    return this.store.servers();
  }
}
