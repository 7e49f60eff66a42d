import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import type { MeetingService } from '../meetings/meeting-service.js';
import { entersAsModerator } from '../meetings/moderator-succession.js';
import type { Participant } from '../meetings/meeting.js';
import type { AsyncPort } from '../async-port.js';
import type { RoomStore } from '../rooms/room.js';
import type { Room } from '../rooms/room.js';
import type { WaitingRoomPolicy } from '../rooms/waiting-room-policy.js';
import {
  effectiveMode,
  effectiveScope,
  isModerator,
  mustWait,
  needsAccessCode,
  type Arrival,
  type JoinClaims,
} from './admission.js';
import { ArrivalScreening, type ArrivalScreeningOptions } from './arrival-screening.js';
import { checkName, checkNote } from './knock-fields.js';
import type { OpenRequests } from './open-requests.js';
import { plausibleSecret } from './request-secret.js';
import type { LiveRequest } from './room-queue.js';

/** The first screening found that the arrival must give the access code: told apart from any answer of `next`. */
const needsCode: unique symbol = Symbol('access code');

/** An arrival that passed every door, and whether she must wait. */
export interface Screened {
  readonly room: Room;
  readonly name: string;
  readonly note: string;
  readonly claims: JoinClaims | null | undefined;
  /** Her participant in the parent meeting, when she moves into a sub-group. */
  readonly member: Participant | null;
  /** The request of the open meeting her cookie names, if any. */
  readonly known: LiveRequest | undefined;
  readonly wait: boolean;
}

export interface ArrivalGateDeps {
  readonly rooms: Pick<AsyncPort<RoomStore>, 'get'>;
  readonly meetings: MeetingService;
  readonly policy: WaitingRoomPolicy;
  readonly clock: Clock;
  readonly requests: Pick<OpenRequests, 'queueOf'>;
}

/**
 * Entry, validation, then the access code, then a bar, then the admission decision; nothing is
 * written here. Only a code makes an arrival wait (for scrypt off the loop); then everything is
 * read again, since the meeting may have changed meanwhile.
 */
export class ArrivalGate {
  readonly screening: ArrivalScreening;

  constructor(
    private readonly deps: ArrivalGateDeps,
    options: ArrivalScreeningOptions,
  ) {
    this.screening = new ArrivalScreening(deps.meetings, deps.clock, options);
  }

  /**
   * Screens the arrival and runs `next` in `turn` (the room's: nothing else of the room happens
   * between the screening and `next`). A code is hashed outside the turn (scrypt off the loop must
   * not hold the room up); then the arrival is screened again in a new turn.
   */
  screen<T>(
    arrival: Arrival,
    knocking: boolean,
    turn: <R>(operation: () => Promise<R>) => Promise<R>,
    next: (screened: Screened) => T | Promise<T>,
  ): Promise<T> {
    // Chained, not awaited: every arrival (a knock above all) passes here, and each await is a promise more.
    const first = turn(() =>
      this.deps.rooms.get(arrival.roomId).then((room) => {
        const screened = this.screenNow(room, arrival, knocking, false);
        return screened === 'code' ? needsCode : next(screened);
      }),
    );
    return first.then((found) => (found === needsCode ? this.screenWithCode(arrival, knocking, turn, next) : found));
  }

  /** The arrival needs the access code: hashed outside the turn, then screened again in a new one. */
  private async screenWithCode<T>(
    arrival: Arrival,
    knocking: boolean,
    turn: <R>(operation: () => Promise<R>) => Promise<R>,
    next: (screened: Screened) => T | Promise<T>,
  ): Promise<T> {
    const room = await this.deps.rooms.get(arrival.roomId);
    if (room) await this.screening.checkAccessCode(room, arrival);
    return turn(async () =>
      next(this.screenNow(await this.deps.rooms.get(arrival.roomId), arrival, knocking, true) as Screened),
    );
  }

  private screenNow(room: Room | null, arrival: Arrival, knocking: boolean, codePassed: boolean): Screened | 'code' {
    // A closed room (its meeting ended for good) looks like no room at all.
    if (!room || room.entry === 'closed')
      throw new EngineError('room_not_found', `no room has room_id ${arrival.roomId}`);
    const claims = arrival.claims;
    const subgroup = room.parentRoomId !== null;
    const member = subgroup ? this.screening.parentMember(room, arrival) : null;
    const name = checkName(member?.name ?? claims?.name ?? arrival.name);
    const note = knocking ? checkNote(arrival.note) : '';
    const meeting = this.deps.meetings.current(room.roomId);
    const queue = meeting ? this.deps.requests.queueOf(meeting) : undefined;
    const known = queue && plausibleSecret(arrival.secret) ? queue.bySecret(arrival.secret) : undefined;
    if (room.entry === 'token' && !claims && !known) {
      throw new EngineError(
        'guest_denied',
        'this meeting admits only people its platform invited; use the link you were given',
      );
    }
    // Who comes from the parent's meeting passed its code already; so did a browser whose
    // cookie names a request of this meeting, since that cookie is only given after the code.
    if (!member && !known && !codePassed && needsAccessCode(room, claims)) return 'code';
    if (known?.request.state === 'barred' && !isModerator(claims)) {
      throw new EngineError('barred', 'you may not join this meeting');
    }
    const moderatorPresent = meeting ? this.deps.meetings.moderatorPresent(meeting) : false;
    const wait = mustWait({
      scope: effectiveScope(this.deps.policy, room),
      mode: effectiveMode(this.deps.policy, room),
      claims,
      subgroup,
      waitingDisabled: (meeting?.waitingDisabled ?? false) && this.deps.policy.waitingRoom !== 'forced',
      moderatorPresent,
      entersAsModerator: entersAsModerator(room, moderatorPresent),
    });
    return { room, name, note, claims, member, known, wait };
  }
}
