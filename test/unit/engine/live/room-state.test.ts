import t from 'tap';
import type { Participant } from '../../../../src/engine/meetings/meeting.js';
import type { Room } from '../../../../src/engine/rooms/room.js';
import { byGroupNumber, LiveRooms } from '../../../../src/engine/live/room-state.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { FakeConnection } from '../../../helpers/live-fixture.js';

function world() {
  const rooms = new Map<string, Pick<Room, 'roomId' | 'parentRoomId'>>([
    ['main', { roomId: 'main', parentRoomId: null }],
    ['main-g10', { roomId: 'main-g10', parentRoomId: 'main' }],
    ['main-g2', { roomId: 'main-g2', parentRoomId: 'main' }],
  ]);
  const live = new LiveRooms({
    roomOf: (id) => (rooms.get(id) as Room | undefined) ?? null,
    subgroupsOf: (id) => [...rooms.values()].filter((r) => r.parentRoomId === id).map((r) => r.roomId),
    clock: new FakeClock(),
  });
  const person = (participantId: string, roomId: string, role: Participant['role'] = 'participant') =>
    ({ participantId, roomId, meetingId: `m-${roomId}`, name: participantId, role }) as Participant;
  return { live, person };
}

t.test('a broadcast reaches every member of the room but the one excepted, as one message object', async (t) => {
  const { live, person } = world();
  const state = live.stateFor('main', 'm-main');
  const [a, b, c] = [new FakeConnection(), new FakeConnection(), new FakeConnection()];
  live.add(state, person('a', 'main', 'moderator'), a);
  live.add(state, person('b', 'main'), b);
  live.add(state, person('c', 'main'), c);
  live.broadcast(state, { type: 'subject', subject: 'x' }, 'b');
  t.same([a.sent.length, b.sent.length, c.sent.length], [1, 0, 1]);
  t.same(
    live.moderatorsOf(state).map((m) => m.participantId),
    ['a'],
  );
});

t.test(
  'a family is the main room and its sub-groups in natural order; a family broadcast reaches the rooms with a live meeting',
  async (t) => {
    const { live, person } = world();
    const main = live.stateFor('main', 'm-main');
    const g10 = live.stateFor('main-g10', 'm-main-g10');
    t.same(live.family(g10), { root: 'main', subgroups: ['main-g2', 'main-g10'] }, 'g2 before g10');
    t.same(live.family(main), { root: 'main', subgroups: ['main-g2', 'main-g10'] });
    const inMain = new FakeConnection();
    const inGroup = new FakeConnection();
    live.add(main, person('a', 'main'), inMain);
    live.add(g10, person('b', 'main-g10'), inGroup);
    live.broadcastFamily('main', { type: 'subgroups', subgroups: [], groups: [], ends_at: null });
    t.same([inMain.sent.length, inGroup.sent.length], [1, 1], 'main-g2 has no state and is skipped');
    t.same(['r-g10', 'r-g2', 'r-g1', 'r-x'].sort(byGroupNumber), ['r-g1', 'r-g2', 'r-g10', 'r-x']);
  },
);

t.test('a new meeting of a room gets a fresh state; the older meeting is no longer live', async (t) => {
  const { live, person } = world();
  const first = live.stateFor('main', 'm1');
  t.equal(live.stateFor('main', 'm1'), first, 'the same meeting keeps its state');
  const member = live.add(first, person('a', 'main'), new FakeConnection());
  t.ok(live.connected.has('a'));
  const second = live.stateFor('main', 'm2');
  t.not(second, first);
  t.equal(live.live('main', 'm1'), undefined);
  t.equal(live.live('main', 'm2'), second);
  live.remove(first, member);
  t.ok(member.gone);
  t.notOk(live.connected.has('a'));
});
