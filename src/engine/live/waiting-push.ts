import type { ServerMessage, WaitingItem } from '../../protocol/live.js';
import type { EngineLog } from '../listeners.js';
import type { WaitingRoomService } from '../waiting/waiting-room-service.js';
import type { WaitingListChange } from '../waiting/waiting-room-types.js';
import { engineCallAsync, guarded, liveError, settingsAllowed } from './live-errors.js';
import type { RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, PendingWaiting, RoomState } from './room-state.js';
import { SocketQueue } from './socket-queue.js';

export interface WaitingPushDeps {
  readonly waiting: Pick<
    WaitingRoomService,
    'list' | 'takeArrivalSkipped' | 'switchState' | 'enableWaitingRoom' | 'disableWaitingRoom'
  >;
  readonly log: EngineLog;
  /** A turn's changes above this many go out as the whole list when that is shorter. */
  readonly fullListAbove: number;
  readonly resyncLimit: RateLimit;
  readonly settingsLimit: RateLimit;
}

/**
 * The moderators' waiting list and waiting-room switch on the live connection. The engine tells
 * each change where it happens (a knock is one item), so this never re-reads and compares the
 * whole list to find it: at 1,000 waiting that would cost every change a 1,000-item read and
 * diff. Changes of one turn are merged and pushed once, after it, numbered per meeting (`seq`).
 * A push that sends the whole list awaits its read: the room's pushes take turns
 * (`turns`), so the moderators get them in `seq` order, each one reflecting
 * every change before it.
 */
export class WaitingPush {
  /** Each room's pushes, one after the other (a whole list awaits its read). */
  private readonly turns = new WeakMap<RoomState, SocketQueue>();

  constructor(
    private readonly rooms: LiveRooms,
    private readonly deps: WaitingPushDeps,
  ) {}

  changed(roomId: string, change: WaitingListChange): void {
    const state = this.rooms.live(roomId, change.meetingId);
    if (!state) return;
    const pending = (state.waitingPending ??= {
      added: new Map(),
      removed: new Set(),
      updated: new Map(),
      timedOut: new Set(),
      outcomes: new Map(),
      reset: false,
    });
    if (change.reset) pending.reset = true;
    // Removed-then-added in one turn is there (upserted); added-then-removed is gone.
    for (const id of change.removed) {
      pending.added.delete(id);
      pending.updated.delete(id);
      pending.removed.add(id);
    }
    for (const id of change.timedOut) pending.timedOut.add(id);
    for (const [id, outcome] of Object.entries(change.outcomes ?? {})) pending.outcomes.set(id, outcome);
    for (const item of change.added) {
      pending.removed.delete(item.request_id);
      pending.timedOut.delete(item.request_id);
      pending.outcomes.delete(item.request_id);
      pending.added.set(item.request_id, item);
    }
    // An update of an item added in the same turn is the item as added.
    for (const item of change.updated) {
      if (pending.added.has(item.request_id)) pending.added.set(item.request_id, item);
      else pending.updated.set(item.request_id, item);
    }
    if (state.waitingPushScheduled) return;
    state.waitingPushScheduled = true;
    // Listeners run inside the waiting room's change: push once the turn's changes are all in.
    queueMicrotask(() =>
      guarded(this.deps.log, 'waiting list push', () => {
        state.waitingPushScheduled = false;
        if (this.rooms.states.get(roomId) === state) return this.inTurn(state, () => this.flush(state));
      }),
    );
  }

  /** The whole list to one moderator, at the room's current `seq` (changes not pushed yet go to the others first). */
  sendList(state: RoomState, member: Member): Promise<void> {
    return this.inTurn(state, async () => {
      await this.flush(state, member);
      const requests = await this.listFor(state, member);
      if (member.gone) return;
      // Her arrival left marked requests waiting: the first list she gets says how many, once.
      const skipped = this.deps.waiting.takeArrivalSkipped(state.roomId, member.participantId);
      member.outbox.send({
        type: 'waiting_list',
        seq: state.waitingSeq,
        requests,
        ...(skipped > 0 ? { skipped } : {}),
      });
    });
  }

  /** A moderator's `waiting_resync` (she saw a gap in `seq`): the whole list, within her window. */
  resync(state: RoomState, member: Member): void | Promise<void> {
    if (!member.windows.resyncs.admit(this.rooms.nowMs(), this.deps.resyncLimit)) {
      member.outbox.send(liveError('rate_limited', 'the waiting list was sent again a moment ago; wait a few seconds'));
      return;
    }
    return this.sendList(state, member);
  }

  /** What a moderator's switch shows: on or off, and whether she may change it. */
  async roomMessage(state: RoomState): Promise<ServerMessage> {
    const { enabled, switchable } = await this.deps.waiting.switchState(state.roomId);
    return { type: 'waiting_room', enabled, switchable };
  }

  /** The switch's state to a moderator (after her list), unless her socket closed meanwhile. */
  async sendSwitch(state: RoomState, member: Member): Promise<void> {
    const message = await this.roomMessage(state);
    if (!member.gone) member.outbox.send(message);
  }

  /** The engine switched the waiting room (over HTTP or this socket): the moderators are told. */
  switched(roomId: string, meetingId: string): Promise<void> {
    const state = this.rooms.live(roomId, meetingId);
    if (!state) return Promise.resolve();
    // In the room's push turn, taken now: the list change the switch caused is pushed after it.
    return this.inTurn(state, async () => {
      const message = await this.roomMessage(state);
      for (const moderator of this.rooms.moderatorsOf(state)) moderator.outbox.send(message);
    });
  }

  /** On or off for later arrivals; the moderators hear of it from the engine (`switched`), as for a switch over HTTP. */
  switch(state: RoomState, member: Member, enabled: boolean): void | Promise<void> {
    if (!settingsAllowed(member, this.rooms.nowMs(), this.deps.settingsLimit)) return;
    return this.switchNow(state, member, enabled);
  }

  private async switchNow(state: RoomState, member: Member, enabled: boolean): Promise<void> {
    const actor = { kind: 'participant', participantId: member.participantId } as const;
    const waiting = this.deps.waiting;
    const before = await waiting.switchState(state.roomId);
    const done = await engineCallAsync<unknown>(member.outbox, () =>
      enabled ? waiting.enableWaitingRoom(state.roomId, actor) : waiting.disableWaitingRoom(state.roomId, actor),
    );
    // A switch that changed nothing tells nobody else; she is sent the state as it stands (her toggle may be stale).
    if (done && (await waiting.switchState(state.roomId)).enabled === before.enabled)
      member.outbox.send(await this.roomMessage(state));
  }

  /**
   * Runs a push after the room's earlier ones settled: at once when none is running, so a change
   * that needs no read is pushed in the turn's microtask as before. Its failure is the caller's.
   */
  private inTurn(state: RoomState, push: () => void | Promise<void>): Promise<void> {
    let turns = this.turns.get(state);
    if (!turns) {
      // Never called: every push below settles its own promise. No bound: pushes are merged per turn.
      turns = new SocketQueue(
        () => undefined,
        Number.POSITIVE_INFINITY,
        () => undefined,
      );
      this.turns.set(state, turns);
    }
    const queue = turns;
    return new Promise((resolve, reject) =>
      queue.push(() => {
        let pending: void | Promise<void>;
        try {
          pending = push();
        } catch (err) {
          reject(err);
          return;
        }
        if (!(pending instanceof Promise)) return resolve();
        return pending.then(resolve, reject);
      }),
    );
  }

  /** Sends the changes collected so far to the room's moderators (but `except`) as the next `seq`; in turn only. */
  private flush(state: RoomState, except?: Member): void | Promise<void> {
    const pending = state.waitingPending;
    state.waitingPending = null;
    if (!pending) return;
    const moderators = this.rooms.moderatorsOf(state).filter((m) => m !== except);
    // Nobody to tell: whoever becomes a moderator or connects reads the whole list.
    if (moderators.length === 0) return;
    const count = pending.added.size + pending.removed.size + pending.updated.size;
    if (!pending.reset && count <= this.deps.fullListAbove)
      return this.send(state, moderators, changesOf(state, pending));
    // Read after every change taken above: changes that land during the read go in the next push.
    return this.listFor(state, moderators[0]!).then((requests) =>
      this.send(
        state,
        moderators,
        pending.reset || requests.length < count
          ? { type: 'waiting_list', seq: state.waitingSeq + 1, requests }
          : changesOf(state, pending),
      ),
    );
  }

  private send(state: RoomState, moderators: Member[], message: ServerMessage & { seq: number }): void {
    state.waitingSeq = message.seq;
    // One who arrived during a read gets the whole list after this (her sendList waits its turn).
    for (const moderator of moderators) if (!moderator.gone) moderator.outbox.send(message);
  }

  private listFor(state: RoomState, moderator: Member): Promise<WaitingItem[]> {
    return this.deps.waiting.list(state.roomId, { kind: 'participant', participantId: moderator.participantId });
  }
}

/** A turn's merged changes as the next `seq`. */
function changesOf(state: RoomState, pending: PendingWaiting): ServerMessage & { seq: number } {
  return {
    type: 'waiting_changes',
    seq: state.waitingSeq + 1,
    added: [...pending.added.values()],
    updated: [...pending.updated.values()],
    removed: [...pending.removed],
    ...(pending.timedOut.size > 0 ? { timed_out: [...pending.timedOut] } : {}),
    ...(pending.outcomes.size > 0 ? { outcomes: Object.fromEntries(pending.outcomes) } : {}),
  };
}
