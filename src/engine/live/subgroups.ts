import type { ServerMessage } from '../../protocol/live.js';
import type { AsyncPort } from '../async-port.js';
import type { EngineLog } from '../listeners.js';
import type { Clock, Scheduler } from '../clock.js';
import { EngineError } from '../errors.js';
import type { KeyedQueue } from '../keyed-queue.js';
import type { RoomService } from '../rooms/room-service.js';
import type { Room } from '../rooms/room.js';
import { guarded, liveError, refusal, settingsAllowed } from './live-errors.js';
import type { Presence } from './presence.js';
import type { RateLimit } from './rate-windows.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';
import { SubgroupTimers, type SubgroupTimerStore } from './subgroup-timer.js';

/** A main room's current message to all its groups, as kept. */
export interface GroupMessageRow {
  readonly roomId: string;
  readonly text: string;
  readonly from: string;
}

/** Where the message to all groups is kept, so that a restart (even `kill -9`) still tells it to those who arrive. */
export interface GroupMessageStore {
  groupMessages(): GroupMessageRow[];
  /** Written before anyone is told; null: the groups came back, or the meeting ended. */
  saveGroupMessage(roomId: string, message: { readonly text: string; readonly from: string } | null): void;
}

export interface SubgroupsDeps {
  readonly rooms: Pick<RoomService, 'find' | 'create' | 'update'>;
  /** One family's sub-groups are made by one moderator at a time: each looks, then makes, across the store's awaits. */
  readonly turns: KeyedQueue;
  readonly roomOf: (roomId: string) => Pick<Room, 'parentRoomId' | 'name'> | null;
  readonly maxSubgroups: number;
  /** The timers and the message to all groups, both durable. */
  readonly timers: AsyncPort<SubgroupTimerStore & GroupMessageStore>;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly log: EngineLog;
  /** A number in [0, 1) for "at random" (injected, so a test knows the draw). */
  readonly random: () => number;
  /** The window of a moderator's settings gestures (timer, message to all groups). */
  readonly settingsLimit: RateLimit;
}

/** A group name a moderator chose: 1-64 characters, one line, nothing invisible. */
const groupNameMax = 64;
const groupMessageMax = 500;
const timerMaxMinutes = 240;
// Control and format characters (line breaks, text-direction marks, zero-width ones).
const invisible = /[\p{Cc}\p{Cf}]/u;

const defaultName = (parentName: string, n: number) => `${parentName} – group ${n}`.slice(0, 200);
const groupNumber = (roomId: string) => Number(/-g(\d+)$/.exec(roomId)?.[1] ?? 0);

/**
 * Sub-groups of a main room, moderators' gestures: creation (`<root>-g<n>`, with the names the
 * moderator chose), moving one person or many at once (evenly or at random), a timer that brings
 * everyone back (durable: subgroup-timer.ts), a message to all groups, and bringing everyone
 * back. A member is told where to go (`move`); her page reconnects there, and her socket's close
 * in the parent counts as away, not as a leave (presence.ts).
 */
export class Subgroups {
  private readonly timers: SubgroupTimers;
  /** The timers and messages kept before a restart are in memory: the welcome awaits it before it reads them. */
  readonly loaded: Promise<void>;
  /**
   * The moderator's current message to all groups, per main room: replayed to a page that arrives while the groups
   * run. Read from the store at start, written through before it is told.
   */
  private readonly messages = new Map<string, { readonly text: string; readonly from: string }>();

  constructor(
    private readonly rooms: LiveRooms,
    private readonly presence: Presence,
    private readonly deps: SubgroupsDeps,
  ) {
    this.timers = new SubgroupTimers(deps, (root) => this.ranOut(root));
    const messages = deps.timers.groupMessages().then((rows) => {
      for (const { roomId, text, from } of rows) this.messages.set(roomId, { text, from });
    });
    this.loaded = Promise.all([this.timers.loaded, messages]).then(() => undefined);
    // Told once here; every welcome that awaits it is refused with the same error.
    this.loaded.catch((err: unknown) =>
      deps.log.error({ err, event: 'sub-group timers' }, 'the sub-groups kept before the start could not be read'),
    );
  }

  /** The family's sub-groups as the pages show them, and when its timer brings them back. */
  info(root: string): { groups: { room_id: string; number: number; name: string }[]; endsAt: string | null } {
    const parentName = this.deps.roomOf(root)?.name ?? '';
    const groups = this.rooms.subgroupsOf(root).map((roomId) => {
      const number = groupNumber(roomId);
      const name = this.deps.roomOf(roomId)?.name ?? '';
      return { room_id: roomId, number, name: name === defaultName(parentName, number) ? '' : name };
    });
    return { groups, endsAt: this.timers.running(root) };
  }

  /**
   * A member connected: in a sub-group whose timer already ran out (a reconnect after the end, a
   * restart), back she goes; otherwise, while the groups run, she is told the current message to
   * all groups (moved in after it was sent, or reconnecting).
   */
  connected(state: RoomState, member: Member): void {
    if (state.parentRoomId !== null && this.timers.over(state.parentRoomId)) {
      member.movingTo = state.parentRoomId;
      member.outbox.send({ type: 'move', room_id: state.parentRoomId });
      return;
    }
    const current = this.messages.get(state.parentRoomId ?? state.roomId);
    if (current) member.outbox.send({ type: 'group_message', ...current });
  }

  /** The main room's meeting ended: its message to all groups goes with it. */
  meetingEnded(roomId: string): void {
    guarded(this.deps.log, 'sub-group message', () => this.forgetMessage(roomId));
  }

  /** Sub-groups 1 to `count` of the family's main room; existing ones are kept (renamed when `names` names them), and the family hears the new list. */
  create(state: RoomState, member: Member, count: number, names: readonly string[] = []): void | Promise<void> {
    const { root } = this.rooms.family(state);
    const max = this.deps.maxSubgroups;
    if (count < 1 || count > max) {
      member.outbox.send(liveError('invalid_message', `count must be an integer from 1 to ${max}`));
      return;
    }
    const chosen = names.map((name) => name.trim());
    const bad = chosen.findIndex((name, i) => i >= count || name.length > groupNameMax || invisible.test(name));
    if (bad >= 0) {
      const why = bad >= count ? 'more names than groups' : `1 to ${groupNameMax} characters on one line`;
      member.outbox.send(liveError('invalid_field', `names[${bad}]: ${why}`));
      return;
    }
    return this.deps.turns.run(`subgroups ${root}`, () => this.made(root, member, count, chosen));
  }

  private async made(root: string, member: Member, count: number, chosen: readonly string[]): Promise<void> {
    const parent = await this.deps.rooms.find(root);
    if (!parent) return;
    try {
      for (let n = 1; n <= count; n++) {
        const roomId = `${root}-g${n}`;
        const name = chosen[n - 1] || defaultName(parent.name, n);
        const existing = await this.deps.rooms.find(roomId);
        if (existing?.parentRoomId === root) {
          if (chosen[n - 1] && existing.name !== name) await this.deps.rooms.update(roomId, { name });
          continue;
        }
        await this.deps.rooms.create({ room_id: roomId, name, parent_room_id: root });
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      member.outbox.send(refusal(err));
    }
    this.tellFamily(root);
  }

  /** Tells one person of this room to go to another room of the family. */
  async move(state: RoomState, member: Member, participantId: string, roomId: string): Promise<void> {
    const { root, subgroups } = this.rooms.family(state);
    if (roomId === state.roomId || (roomId !== root && !subgroups.includes(roomId))) {
      member.outbox.send(
        liveError('invalid_message', 'room_id must be the main room or one of its sub-groups, other than this room'),
      );
      return;
    }
    const target = state.members.get(participantId);
    if (!target) {
      member.outbox.send(
        liveError('participant_not_found', 'nobody with this participant_id is connected in this room'),
      );
      return;
    }
    if (roomId !== root) await this.timers.clearOver(root);
    this.send(target, roomId);
  }

  /**
   * Moves several people of the main room into the sub-groups at once: `even` deals them out in
   * the order given (1, 2, ..., n, 1, ...), `random` in a shuffled order; either way the groups
   * differ by one at most. The sender herself stays; ids not connected here are skipped.
   */
  async assign(
    state: RoomState,
    member: Member,
    participantIds: readonly string[],
    mode: 'even' | 'random',
  ): Promise<void> {
    const { root, subgroups } = this.rooms.family(state);
    if (state.roomId !== root || subgroups.length === 0) {
      const why = subgroups.length === 0 ? 'create sub-groups first' : 'assign from the main room';
      member.outbox.send(liveError('invalid_message', `assign_subgroups: ${why}`));
      return;
    }
    const targets = [...new Set(participantIds)]
      .filter((id) => id !== member.participantId)
      .map((id) => state.members.get(id))
      .filter((m): m is Member => m !== undefined);
    if (targets.length === 0) {
      member.outbox.send(liveError('participant_not_found', 'none of participant_ids is connected in this room'));
      return;
    }
    if (mode === 'random') {
      for (let i = targets.length - 1; i > 0; i--) {
        const j = Math.floor(this.deps.random() * (i + 1));
        [targets[i], targets[j]] = [targets[j] as Member, targets[i] as Member];
      }
    }
    await this.timers.clearOver(root);
    targets.forEach((target, i) => this.send(target, subgroups[i % subgroups.length] as string));
  }

  /** Sets (1 to 240 minutes) or cancels (null) the timer that brings everyone back; the family hears when. */
  async setTimer(state: RoomState, member: Member, minutes: number | null): Promise<void> {
    if (!this.settingsAllowed(member)) return;
    const { root, subgroups } = this.rooms.family(state);
    if (minutes !== null && (minutes < 1 || minutes > timerMaxMinutes)) {
      member.outbox.send(
        liveError('invalid_field', `minutes must be an integer from 1 to ${timerMaxMinutes}, or null`),
      );
      return;
    }
    if (subgroups.length === 0 && minutes !== null) {
      member.outbox.send(liveError('invalid_message', 'subgroup_timer: create sub-groups first'));
      return;
    }
    await this.timers.set(root, minutes === null ? null : minutes * 60_000);
    this.tellFamily(root);
  }

  /** A moderator's message to every page of the family (the main room and every group). */
  async message(state: RoomState, member: Member, text: string): Promise<void> {
    if (!this.settingsAllowed(member)) return;
    const trimmed = text.trim();
    if (trimmed.length === 0 || trimmed.length > groupMessageMax || /[\p{Cc}]/u.test(trimmed.replace(/\n/g, ''))) {
      member.outbox.send(liveError('invalid_field', `text must be 1 to ${groupMessageMax} characters`));
      return;
    }
    const root = this.rooms.family(state).root;
    const current = { text: trimmed, from: member.name };
    await this.saveMessage(root, current);
    this.messages.set(root, current);
    this.rooms.broadcastFamily(root, { type: 'group_message', ...current });
  }

  /** Everyone in the family's sub-groups is told to come back; who does not within the away grace has left. */
  async bringBack(state: RoomState): Promise<void> {
    const { root } = this.rooms.family(state);
    await this.timers.set(root, null);
    await this.bringBackFamily(root);
    this.tellFamily(root);
  }

  close(): void {
    this.timers.close();
  }

  private async ranOut(root: string): Promise<void> {
    await this.bringBackFamily(root);
    this.tellFamily(root);
  }

  /** Everyone back in the main room: the groups' message is over too. */
  private async bringBackFamily(root: string): Promise<void> {
    await this.forgetMessage(root);
    for (const groupId of this.rooms.subgroupsOf(root)) {
      const group = this.rooms.states.get(groupId);
      for (const member of group?.members.values() ?? []) this.send(member, root);
    }
    const rootState = this.rooms.states.get(root);
    if (rootState) for (const pid of rootState.away) this.presence.awayDeadline(rootState, pid, () => true);
  }

  private async forgetMessage(root: string): Promise<void> {
    // After the read at start, which would otherwise bring a forgotten message back.
    await this.loaded;
    if (this.messages.delete(root)) await this.saveMessage(root, null);
  }

  /** Written through before anyone is told. */
  private async saveMessage(
    root: string,
    message: { readonly text: string; readonly from: string } | null,
  ): Promise<void> {
    await this.deps.timers.saveGroupMessage(root, message);
  }

  private send(member: Member, roomId: string): void {
    member.movingTo = roomId;
    member.outbox.send({ type: 'move', room_id: roomId });
  }

  private tellFamily(root: string): void {
    this.rooms.broadcastFamily(root, this.listMessage(root));
  }

  private listMessage(root: string): ServerMessage {
    const { groups, endsAt } = this.info(root);
    return { type: 'subgroups', subgroups: groups.map((g) => g.room_id), groups, ends_at: endsAt };
  }

  private settingsAllowed(member: Member): boolean {
    return settingsAllowed(member, this.rooms.nowMs(), this.deps.settingsLimit);
  }
}
