import { EngineError } from '../errors.js';
import type { RoomService } from '../rooms/room-service.js';
import { liveError, refusal } from './live-errors.js';
import type { Presence } from './presence.js';
import type { LiveRooms, Member, RoomState } from './room-state.js';

export interface SubgroupsDeps {
  readonly rooms: Pick<RoomService, 'find' | 'create'>;
  readonly maxSubgroups: number;
}

/**
 * Sub-groups of a main room, moderators' gestures: creation (`<root>-g<n>`, named after the main
 * room), moving one person between the rooms of a family, and bringing everyone back. A member
 * is told where to go (`move`); her page reconnects there, and her socket's close in the parent
 * counts as away, not as a leave (presence.ts).
 */
export class Subgroups {
  constructor(
    private readonly rooms: LiveRooms,
    private readonly presence: Presence,
    private readonly deps: SubgroupsDeps,
  ) {}

  /** Sub-groups 1 to `count` of the family's main room; existing ones are kept, and the family hears the new list. */
  create(state: RoomState, member: Member, count: number): void {
    const { root } = this.rooms.family(state);
    const max = this.deps.maxSubgroups;
    if (count < 1 || count > max) {
      member.outbox.send(liveError('invalid_message', `count must be an integer from 1 to ${max}`));
      return;
    }
    const parent = this.deps.rooms.find(root);
    if (!parent) return;
    try {
      for (let n = 1; n <= count; n++) {
        const roomId = `${root}-g${n}`;
        const existing = this.deps.rooms.find(roomId);
        if (existing?.parentRoomId === root) continue;
        this.deps.rooms.create({
          room_id: roomId,
          name: `${parent.name} – group ${n}`.slice(0, 200),
          parent_room_id: root,
        });
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      member.outbox.send(refusal(err));
    }
    this.rooms.broadcastFamily(root, { type: 'subgroups', subgroups: this.rooms.subgroupsOf(root) });
  }

  /** Tells one person of this room to go to another room of the family. */
  move(state: RoomState, member: Member, participantId: string, roomId: string): void {
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
    target.movingTo = roomId;
    target.outbox.send({ type: 'move', room_id: roomId });
  }

  /** Everyone in the family's sub-groups is told to come back; who does not within the away grace has left. */
  bringBack(state: RoomState): void {
    const { root, subgroups } = this.rooms.family(state);
    for (const groupId of subgroups) {
      const group = this.rooms.states.get(groupId);
      for (const member of group?.members.values() ?? []) {
        member.movingTo = root;
        member.outbox.send({ type: 'move', room_id: root });
      }
    }
    const rootState = this.rooms.states.get(root);
    if (rootState) for (const pid of rootState.away) this.presence.awayDeadline(rootState, pid, () => true);
  }
}
