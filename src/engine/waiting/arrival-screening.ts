import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { presentIn, type Participant } from '../meetings/meeting.js';
import { AccessCodeChecker, type DeriveKey } from '../rooms/access-code.js';
import type { Room } from '../rooms/room.js';
import { isModerator, type Arrival } from './admission.js';
import {
  AttemptLimiter,
  defaultCodeAttemptLimits,
  TooManyAttemptsError,
  type AttemptLimits,
} from './attempt-limiter.js';

export interface ArrivalScreeningOptions {
  /** Wrong access codes allowed per room and client, and the window they are counted in. */
  readonly codeAttempts?: AttemptLimits;
  /** Access codes hashed at once (1: the event loop keeps a core to itself while codes are checked). */
  readonly codeHashConcurrency?: number;
  /** Codes one room may have waiting to be checked or being checked (500); more are refused with waiting_room_full. */
  readonly codeChecksPerRoom?: number;
  /** Codes one client may have waiting or being checked in one room (100, as many as it may have waiting); more: too_many_knocks. */
  readonly codeChecksPerClient?: number;
  /** The key derivation, for tests that decide when each hash ends (scrypt by default). */
  readonly deriveKey?: DeriveKey;
}

const defaultChecksPerClient = 100;

/**
 * The two doors an arrival passes before the waiting room decides anything: a room's access
 * code (hashed off the event loop, wrong guesses limited per room and client) and a
 * sub-group's door (only a moderator or someone present in the parent's meeting).
 */
export class ArrivalScreening {
  private readonly limiter: AttemptLimiter;
  private readonly codes: AccessCodeChecker;
  private readonly checksPerClient: number;
  /** Codes per room and client that are waiting for the limiter or the hash, or being hashed. */
  private readonly checking = new Map<string, number>();

  constructor(
    private readonly meetings: Pick<MeetingService, 'participant' | 'current'>,
    clock: Clock,
    options: ArrivalScreeningOptions = {},
  ) {
    this.limiter = new AttemptLimiter(clock, options.codeAttempts ?? defaultCodeAttemptLimits);
    this.codes = new AccessCodeChecker(
      {
        ...(options.codeHashConcurrency !== undefined ? { concurrency: options.codeHashConcurrency } : {}),
        ...(options.codeChecksPerRoom !== undefined ? { perRoom: options.codeChecksPerRoom } : {}),
      },
      options.deriveKey,
    );
    this.checksPerClient = options.codeChecksPerClient ?? defaultChecksPerClient;
  }

  /**
   * A sub-group has no waiting room, so it must not be a side door: only a moderator (null:
   * no member to take the name from), or a participant present in the parent room's open
   * meeting (returned), enters it.
   */
  parentMember(room: Room, arrival: Arrival): Participant | null {
    if (isModerator(arrival.claims)) return null;
    const member = arrival.fromParticipantId ? this.meetings.participant(arrival.fromParticipantId) : null;
    const parentMeeting = this.meetings.current(room.parentRoomId!);
    if (!parentMeeting || !presentIn(member, parentMeeting)) {
      throw new EngineError('subgroup_closed', 'a sub-group is entered from its meeting');
    }
    return member;
  }

  /** Resolves when the arrival's access code is the room's; access_code_invalid or too_many_attempts otherwise. */
  async checkAccessCode(room: Room, arrival: Arrival): Promise<void> {
    const key = `${room.roomId}\n${arrival.clientKey}`;
    this.limiter.check(key);
    const code = arrival.accessCode;
    // An absent code is a form not filled in, not a guess: it does not count against the limit.
    if (typeof code !== 'string' || code === '') {
      throw new EngineError('access_code_invalid', 'this room needs its access code', 'access_code');
    }
    // Those beyond the limit wait for a guess to end (a class typing the code at once); the wait is bounded too.
    const checking = this.checking.get(key) ?? 0;
    if (checking >= this.checksPerClient) throw new TooManyAttemptsError(5, 'too_many_knocks');
    this.checking.set(key, checking + 1);
    let right: boolean | null = null;
    try {
      const settle = await this.limiter.begin(key);
      try {
        right =
          code.length <= 256 && (await this.codes.matches(code, room.accessCodeHash!, room.roomId, arrival.clientKey));
      } finally {
        // A code refused unchecked (its room's line full) was no guess: it takes its attempt back.
        settle(right !== false);
      }
    } finally {
      const left = this.checking.get(key)! - 1;
      if (left === 0) this.checking.delete(key);
      else this.checking.set(key, left);
    }
    if (!right) throw new EngineError('access_code_invalid', 'the access code is wrong', 'access_code');
  }

  /** Forgets wrong guesses older than their window (the waiting room's sweep). */
  prune(): void {
    this.limiter.prune();
  }
}
