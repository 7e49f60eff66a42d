/**
 * What the waiting room's service takes and answers (waiting-room-service.ts describes each call),
 * its defaults, and the shapes moderators see. Kept apart so that the service file holds behaviour.
 */
import type { Clock } from '../clock.js';
import type { EngineLog } from '../listeners.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import type { AsyncTransactions } from '../async-transactions.js';
import type { AsyncPort } from '../async-port.js';
import type { WaitingRequestStore } from './waiting-request.js';
import type { RoomStore } from '../rooms/room.js';
import type { KeyedQueue } from '../keyed-queue.js';
import type { Meeting, Participant } from '../meetings/meeting.js';
import type { LiveRequest, RoomQueue } from './room-queue.js';
import type { RecordedActor, TimelineSubject } from '../meetings/timeline.js';
import type { WaitingRoomPolicy } from '../rooms/waiting-room-policy.js';
import type { ArrivalScreeningOptions } from './arrival-screening.js';
import type { AttemptLimits } from './attempt-limiter.js';
import type { RequestState, WaitingRequest } from './waiting-request.js';

export interface WaitingRoomDeps {
  readonly rooms: Pick<AsyncPort<RoomStore>, 'get'>;
  readonly meetings: MeetingService;
  /** The same transactions as the meetings': a knock's meeting and request commit together. */
  readonly transactions: AsyncTransactions;
  readonly store: AsyncPort<WaitingRequestStore>;
  /**
   * One transition per room at a time (its own queue, not the live hub's): a decision reads the
   * room's requests, then awaits the store, and must not interleave with another of the same room.
   */
  readonly turns: KeyedQueue;
  readonly clock: Clock;
  readonly policy: WaitingRoomPolicy;
  /** Where a failing listener is logged (the daemon's logger). */
  readonly log: EngineLog;
  /** Told of knocks and decisions (the daemon's metrics count them); nobody when absent. */
  readonly counter?: WaitingCounter;
}

/**
 * What the waiting room tells an observer that counts: a knock once it is durable, and each
 * request's way out of `waiting` (admitted, refused, barred, expired, withdrawn, window_closed)
 * as it is written. Counting only: it must not throw or write.
 */
export interface WaitingCounter {
  counted(outcome: 'knock' | Exclude<RequestState, 'waiting'>): void;
}

/** The access code's limits (`codeAttempts`, `codeHashConcurrency`) are ArrivalScreening's. */
export interface WaitingRoomOptions extends ArrivalScreeningOptions {
  /** How often the waiting client polls (2 s). */
  readonly pollIntervalMs?: number;
  /** Polls missed before moderators see her connection as lost (3, so 6 s); her place is kept. */
  readonly missedPolls?: number;
  /**
   * The grace: how long without a poll a request keeps its place before it counts as a closed
   * window (60 s; SERVICE_WAITING_CLOSED_WINDOW_SECS). A network drop or a frozen phone tab is
   * silence; a closed window sends a beacon and frees the place at once.
   */
  readonly closedWindowMs?: number;
  readonly maxOpenRequests?: number;
  /** New requests one client address may make in one room per window. */
  readonly knocksPerClient?: AttemptLimits;
  /** Requests one client address may have waiting (or being written) in one room at once. */
  readonly maxOpenPerClient?: number;
  /** The same for all the clients of one IPv6 /56 (`Arrival.clientNetwork`) together. */
  readonly maxOpenPerNetwork?: number;
}

export type EntryResult = { readonly status: 'joined'; readonly participant: Participant };
export type StartResult = EntryResult | { readonly status: 'knock' };
export type KnockResult =
  EntryResult | { readonly status: 'waiting'; readonly requestId: string; readonly secret: string };

export type PollResult =
  | { readonly status: 'waiting' }
  | { readonly status: 'admitted'; readonly participant: Participant }
  | { readonly status: 'refused'; readonly retry: true }
  | { readonly status: 'expired'; readonly retry: true }
  | { readonly status: 'barred' };

/** Shaped as the moderators' list is sent. */
export interface WaitingListItem {
  readonly request_id: string;
  readonly name: string;
  readonly note: string;
  readonly knocked_at: string;
  /** Present while her page has been silent for a few polls (within the grace): her place is kept. */
  readonly connection_lost?: true;
  /** Her name is that of a person barred in this meeting (case, accents and spaces aside): the name that one was barred as. */
  readonly barred_as?: string;
}

/**
 * One change of a room's waiting list as moderators see it (`list`). Applying `removed`, then
 * `added`, to the list before the change gives the list after it; both are idempotent (an id
 * removed that is not there, or an item added that is), so a change that reaches an observer who
 * has read the list since is harmless.
 */
export interface WaitingListChange {
  readonly meetingId: string;
  /** Requests moderators now see: a knock was committed, or a page that said it was leaving polled again. */
  readonly added: readonly WaitingListItem[];
  /** Request ids moderators no longer see: admitted, refused, barred, expired, withdrawn, closed, or leaving. */
  readonly removed: readonly string[];
  /** Requests still seen whose shown fields changed (her connection was lost, or is back): replaced in place. */
  readonly updated: readonly WaitingListItem[];
  /** Of `removed`, those whose grace ran out without a word from their page (window_closed): moderators are told she left. */
  readonly timedOut: readonly string[];
  /** What became of each of `removed`, so a moderator's list can say it (another moderator admitted her, she left, ...). */
  readonly outcomes?: Readonly<Record<string, WaitingOutcome>>;
  /** The meeting's list is gone (the meeting was forgotten): read it again rather than apply a change. */
  readonly reset: boolean;
}

export type WaitingListListener = (roomId: string, change: WaitingListChange) => void;

/** May return a promise (the live hub reads the room's setting): its rejection is logged. */
export type SwitchListener = (roomId: string, meetingId: string) => unknown;

/** The moderators' waiting-room toggle. */
export interface SwitchState {
  /** Later arrivals of the open meeting wait as the room's scope says. */
  readonly enabled: boolean;
  /** A moderator may turn it on or off here (not under a forced policy, not without a waiting room). */
  readonly switchable: boolean;
}

export interface AdmitResult {
  readonly admitted: number;
  /** Admit all only: those it left waiting because their name is that of a person barred in this meeting. */
  readonly skipped?: number;
}

/**
 * Per-client limits. A whole class shares a school's address, so one address may hold 100
 * waiting requests in a room (a class of 30 three times over, or a lecture hall arriving before
 * its lecturer) and make 120 new ones a minute (everyone knocking at the bell, some twice);
 * a single address can then fill at most a tenth of the room's 1,000 places. An IPv6 client is
 * its /64, but a home or a site is usually given a /56 (256 /64s): its /56 shares the same 100,
 * as a school behind one IPv4 address does, so one customer's /64s cannot fill the room either.
 */
export const clientDefaults = {
  knocksPerClient: { limit: 120, windowMs: 60_000 },
  maxOpenPerClient: 100,
  maxOpenPerNetwork: 100,
  retryAfterSecs: 30,
} as const;

export const waitingDefaults = {
  pollIntervalMs: 2000,
  missedPolls: 3,
  maxOpenRequests: 1000,
  leaveGraceMs: 2000,
  closedWindowMs: 60_000,
} as const;
/** A request as the moderators' list shows it; `lost` while her page is silent within the grace, `barredAs` when her name is a barred one's. */
export function itemOf(request: WaitingRequest, lost = false, barredAs?: string): WaitingListItem {
  return {
    request_id: request.requestId,
    name: request.name,
    note: request.note,
    knocked_at: request.knockedAt,
    ...(lost ? { connection_lost: true as const } : {}),
    ...(barredAs === undefined ? {} : { barred_as: barredAs }),
  };
}

/** What became of a request moderators no longer see (the live protocol's WaitingOutcome). */
export type WaitingOutcome = 'admitted' | 'refused' | 'barred' | 'expired' | 'left' | 'timed_out';

/**
 * What became of each removed request, read from the queue as the removal is told: a decision's state; a request no
 * longer held (withdrawn, window closed) or one whose page is going away (still waiting, unseen) left; `timedOut` ones
 * closed because their grace ran out.
 */
export function outcomesOf(
  queue: RoomQueue | undefined,
  removed: readonly string[],
  timedOut: readonly string[],
): Record<string, WaitingOutcome> {
  const decided = new Set<RequestState>(['admitted', 'refused', 'barred', 'expired']);
  return Object.fromEntries(
    removed.map((id) => {
      const state = queue?.byRequestId(id)?.request.state;
      const outcome = timedOut.includes(id) ? 'timed_out' : state && decided.has(state) ? state : 'left';
      return [id, outcome as WaitingOutcome];
    }),
  );
}

export function subjectOf(request: WaitingRequest): TimelineSubject {
  return { requestId: request.requestId, participantId: request.participantId, name: request.name };
}

/** What a poll answers for a request; null once an admission is spent (she left the meeting). */
export function pollAnswer(live: LiveRequest, meetings: Pick<MeetingService, 'participant'>): PollResult | null {
  switch (live.request.state) {
    case 'waiting':
      return { status: 'waiting' };
    case 'admitted': {
      const admitted = live.request.participantId ? meetings.participant(live.request.participantId) : null;
      // Leaving ends what the admission gave: the page arrives again instead of getting a dead session.
      return admitted && admitted.leftAt === null ? { status: 'admitted', participant: admitted } : null;
    }
    case 'refused':
      return { status: 'refused', retry: true };
    case 'expired':
      return { status: 'expired', retry: true };
    case 'barred':
      return { status: 'barred' };
    default:
      return null;
  }
}

/** A moderator's gesture on a room: the open meeting, its queue, and who acts, as the timeline records her. */
export interface Gesture {
  readonly meeting: Meeting;
  readonly queue: RoomQueue;
  readonly actor: RecordedActor;
}
