import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { presentIn, type Participant } from '../meetings/meeting.js';
import { AccessCodeChecker } from '../rooms/access-code.js';
import type { Room } from '../rooms/room.js';
import { isModerator, type Arrival } from './admission.js';
import { AttemptLimiter, defaultCodeAttemptLimits, type AttemptLimits } from './attempt-limiter.js';

export interface ArrivalScreeningOptions {
  /** Wrong access codes allowed per room and client, and the window they are counted in. */
  readonly codeAttempts?: AttemptLimits;
  /** Access codes hashed at once (1: the event loop keeps a core to itself while codes are checked). */
  readonly codeHashConcurrency?: number;
}

/**
 * The two doors an arrival passes before the waiting room decides anything: a room's access
 * code (hashed off the event loop, wrong guesses limited per room and client) and a
 * sub-group's door (only a moderator or someone present in the parent's meeting).
 */
export class ArrivalScreening {
  private readonly limiter: AttemptLimiter;
  private readonly codes: AccessCodeChecker;

  constructor(
    private readonly meetings: Pick<MeetingService, 'participant' | 'current'>,
    clock: Clock,
    options: ArrivalScreeningOptions = {},
  ) {
    this.limiter = new AttemptLimiter(clock, options.codeAttempts ?? defaultCodeAttemptLimits);
    this.codes = new AccessCodeChecker(options.codeHashConcurrency);
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
    const settle = await this.limiter.begin(key);
    let right = false;
    try {
      right = code.length <= 256 && (await this.codes.matches(code, room.accessCodeHash!));
    } finally {
      settle(right);
    }
    if (!right) throw new EngineError('access_code_invalid', 'the access code is wrong', 'access_code');
  }

  /** Forgets wrong guesses older than their window (the waiting room's sweep). */
  prune(): void {
    this.limiter.prune();
  }
}
