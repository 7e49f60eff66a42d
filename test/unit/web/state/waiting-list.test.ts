// Issue 30 point 3: the moderator's waiting list as a reducer (src/web/state/waiting-list.ts):
// the sequence and its gaps, knock order, duplicate and stale changes, the resync, and who the
// knock notification names, without a browser.
import t from 'tap';
import type { WaitingItem } from '../../../../src/protocol/live.js';
import {
  goneHoldMs,
  groupWindowMs,
  hideNotice,
  initialWaitingList,
  receiveWaiting,
  setSharing,
  tick,
  type WaitingListEffect,
  type WaitingListState,
} from '../../../../src/web/state/waiting-list.js';

const item = (id: string, second: number, name = id): WaitingItem => ({
  request_id: id,
  name,
  note: '',
  knocked_at: `2026-11-27T14:00:${String(second).padStart(2, '0')}.000Z`,
});
const list = (seq: number, ...requests: WaitingItem[]) => ({ type: 'waiting_list', seq, requests }) as const;
const changes = (seq: number, part: { added?: WaitingItem[]; removed?: string[]; updated?: WaitingItem[] }) =>
  ({
    type: 'waiting_changes',
    seq,
    added: part.added ?? [],
    removed: part.removed ?? [],
    updated: part.updated ?? [],
  }) as const;
/** Those still waiting (a row answered elsewhere is held in place a moment, see waiting-list-decisions.test.ts). */
const ids = (s: WaitingListState) => s.items.filter((r) => !s.decided.has(r.request_id)).map((r) => r.request_id);
const kinds = (effects: readonly WaitingListEffect[]) => effects.map((e) => e.do);

/** Feeds messages in order at the given times; returns the last state and every effect. */
function run(steps: [Parameters<typeof receiveWaiting>[1], number][], from = initialWaitingList) {
  let state = from;
  const effects: WaitingListEffect[][] = [];
  for (const [message, now] of steps) {
    const step = receiveWaiting(state, message, now);
    state = step.state;
    effects.push([...step.effects]);
  }
  return { state, effects };
}

t.test('changes before the first whole list are ignored; the list sets the sequence', async (t) => {
  const early = receiveWaiting(initialWaitingList, changes(1, { added: [item('a', 1)] }), 0);
  t.same([ids(early.state), early.effects], [[], []], 'nothing held, nothing asked');
  const { state, effects } = run([[list(4, item('a', 1), item('b', 2)), 0]]);
  t.equal(state.seq, 4);
  t.same(ids(state), ['a', 'b']);
  t.equal(effects[0]![0]!.do, 'rebuild', 'a whole list redraws every row');
});

t.test('the next change applies: removed, then added in knock order, then updated in place', async (t) => {
  const { state, effects } = run([
    [list(1, item('a', 1), item('c', 3)), 0],
    [changes(2, { removed: ['a'], added: [item('b', 2), item('d', 4)], updated: [item('c', 3, 'Carla')] }), 10],
  ]);
  t.equal(state.seq, 2);
  t.same(ids(state), ['b', 'c', 'd'], 'b knocked before c: inserted before her, not appended');
  t.equal(state.items.find((r) => r.request_id === 'c')!.name, 'Carla', 'updated in place');
  const step = effects[1]!;
  t.same(kinds(step).slice(0, 6), ['redrawRow', 'outcome', 'wake', 'insertRow', 'insertRow', 'replaceRow']);
  t.same(step[3], { do: 'insertRow', item: item('b', 2), before: 'c' });
  t.same(step[4], { do: 'insertRow', item: item('d', 4), before: null }, 'last: appended');
  const closed = tick(state, 10 + goneHoldMs);
  t.same(
    closed.state.items.map((r) => r.request_id),
    ['b', 'c', 'd'],
    'the held row goes when its time is over',
  );
});

t.test('a stale or repeated change is ignored; a gap asks for the whole list and waits for it', async (t) => {
  const start = run([
    [list(5, item('a', 1)), 0],
    [changes(6, { added: [item('b', 2)] }), 0],
  ]).state;
  const repeated = receiveWaiting(start, changes(6, { added: [item('b', 2)] }), 0);
  t.same([repeated.state, repeated.effects], [start, []], 'seq 6 again: nothing changes');
  const older = receiveWaiting(start, changes(3, { removed: ['a'] }), 0);
  t.same([ids(older.state), older.effects], [['a', 'b'], []], 'out of order (older): ignored');

  const gap = receiveWaiting(start, changes(8, { added: [item('c', 3)] }), 0);
  t.same(gap.effects, [{ do: 'resync' }], 'seq 8 after 6: one change was missed');
  t.equal(gap.state.seq, null);
  t.same(ids(gap.state), ['a', 'b'], 'the change after the gap is not applied');
  const meanwhile = receiveWaiting(gap.state, changes(7, { removed: ['a'] }), 0);
  t.same(
    [ids(meanwhile.state), meanwhile.effects],
    [['a', 'b'], []],
    'changes wait for the whole list, and do not ask again',
  );
  const resynced = receiveWaiting(meanwhile.state, list(9, item('b', 2), item('c', 3)), 0);
  t.same([resynced.state.seq, ids(resynced.state)], [9, ['b', 'c']]);
  const after = receiveWaiting(resynced.state, changes(10, { removed: ['b'] }), 0);
  t.same(ids(after.state), ['c'], 'and the sequence goes on from the list');
});

t.test(
  'every part of a change is idempotent: an add of one held moves her, a remove of one gone does nothing',
  async (t) => {
    const start = run([[list(1, item('a', 1), item('b', 2)), 0]]).state;
    const step = receiveWaiting(
      start,
      changes(2, { added: [item('a', 1)], removed: ['zz'], updated: [item('zz', 9)] }),
      0,
    );
    t.same(ids(step.state), ['a', 'b'], 'one row for her, still first');
    t.notOk(
      step.effects.some((e) => e.do === 'removeRow' || e.do === 'replaceRow'),
      'nothing removed or replaced for an unknown id',
    );
  },
);

t.test('a row removed elsewhere hands the focus to the next person, else the previous, else the heading', async (t) => {
  const start = run([[list(1, item('a', 1), item('b', 2), item('c', 3)), 0]]).state;
  const focusOf = (s: WaitingListState, id: string) =>
    receiveWaiting(s, changes(2, { removed: [id] }), 10).effects.find((e) => e.do === 'redrawRow');
  t.same(focusOf(start, 'b'), { do: 'redrawRow', id: 'b', focusTo: 'c' });
  t.same(focusOf(start, 'c'), { do: 'redrawRow', id: 'c', focusTo: 'b' });
  const alone = run([[list(1, item('a', 1)), 0]]).state;
  t.same(focusOf(alone, 'a'), { do: 'redrawRow', id: 'a', focusTo: null });
  t.same(
    kinds(receiveWaiting(start, changes(2, { removed: ['nobody'] }), 10).effects).filter((k) => k !== 'notice'),
    [],
    'already gone: nothing to do',
  );
});

t.test('knocks close together make one notification and one sound; a later one starts a new group', async (t) => {
  const { state, effects } = run([
    [list(1), 0],
    [changes(2, { added: [item('a', 1, 'Ada')] }), 1000],
    [changes(3, { added: [item('b', 2, 'Bea')] }), 1000 + groupWindowMs - 1],
  ]);
  t.same(
    kinds(effects[1]!).filter((k) => k === 'beep' || k === 'notice'),
    ['beep', 'notice'],
  );
  const second = effects[2]!;
  t.notOk(kinds(second).includes('beep'), 'the second knock joins the group: no second sound');
  const notice = second.find((e) => e.do === 'notice');
  t.same(notice && notice.do === 'notice' ? notice.members.map((m) => m.name) : null, ['Ada', 'Bea']);
  t.equal(state.noticeShown, true);

  // Put away, and the next knock comes after the window: a new group, a new sound, only her.
  const later = receiveWaiting(
    hideNotice(state),
    changes(4, { added: [item('c', 3, 'Cy')] }),
    1000 + 3 * groupWindowMs,
  );
  t.ok(kinds(later.effects).includes('beep'));
  const alone = later.effects.find((e) => e.do === 'notice');
  t.same(alone && alone.do === 'notice' ? alone.members.map((m) => m.name) : null, ['Cy']);
});

t.test(
  'while it is shown, a knock long after joins the group; answers shrink it, and the last clears it',
  async (t) => {
    const { state } = run([
      [list(1), 0],
      [changes(2, { added: [item('a', 1)] }), 0],
      [changes(3, { added: [item('b', 2)] }), 10 * groupWindowMs],
    ]);
    t.same(state.group?.members, ['a', 'b'], 'still on screen: one group');
    const shrunk = receiveWaiting(state, changes(4, { removed: ['a'] }), 0);
    const notice = shrunk.effects.find((e) => e.do === 'notice');
    t.same(
      notice && notice.do === 'notice' ? notice.members.map((m) => m.request_id) : null,
      ['b'],
      'redrawn for who still waits',
    );
    const cleared = receiveWaiting(shrunk.state, changes(5, { removed: ['b'] }), 0);
    t.ok(kinds(cleared.effects).includes('noticeGone'));
    t.same([cleared.state.group, cleared.state.noticeShown], [null, false]);
  },
);

t.test('someone already notified is not news again after a resync', async (t) => {
  const { state } = run([
    [list(1), 0],
    [changes(2, { added: [item('a', 1)] }), 0],
  ]);
  const again = receiveWaiting(hideNotice(state), list(7, item('a', 1)), 100 * groupWindowMs);
  t.notOk(kinds(again.effects).includes('beep'));
  t.notOk(kinds(again.effects).includes('notice'));
});

t.test('while a screen is shared the notification stays hidden; the list still follows', async (t) => {
  const sharing = setSharing(run([[list(1), 0]]).state, true);
  const step = receiveWaiting(sharing, changes(2, { added: [item('a', 1)] }), 0);
  t.same(ids(step.state), ['a']);
  t.notOk(kinds(step.effects).includes('notice'), 'not drawn over the shared screen');
  t.equal(step.state.noticeShown, false);
  t.equal(setSharing({ ...step.state, noticeShown: true }, true).noticeShown, false, 'a share hides one shown');
});

t.test('the waiting-room switch: announced when it changes, not when first told', async (t) => {
  const first = receiveWaiting(initialWaitingList, { type: 'waiting_room', enabled: true, switchable: true }, 0);
  t.same([first.state.switch, first.effects], [{ enabled: true, switchable: true }, []]);
  const same = receiveWaiting(first.state, { type: 'waiting_room', enabled: true, switchable: true }, 0);
  t.same(same.effects, []);
  const off = receiveWaiting(same.state, { type: 'waiting_room', enabled: false, switchable: true }, 0);
  t.same(off.effects, [{ do: 'announce', said: 'turnedOff' }]);
  const on = receiveWaiting(off.state, { type: 'waiting_room', enabled: true, switchable: false }, 0);
  t.same([on.effects, on.state.switch], [[{ do: 'announce', said: 'turnedOn' }], { enabled: true, switchable: false }]);
});

t.test(
  'issue 31 point 3: a lost connection is a state of her row (same place), said politely once; back and gone are said too',
  async (t) => {
    const ann = item('a', 1, 'Ann');
    const bob = item('b', 2, 'Bob');
    const annLost: WaitingItem = { ...ann, connection_lost: true };
    const { state, effects } = run([
      [list(1, ann, bob), 0],
      [changes(2, { updated: [annLost] }), 7000],
      [changes(3, { updated: [annLost] }), 8000],
      [changes(4, { updated: [ann] }), 50_000],
      [changes(5, { updated: [annLost] }), 57_000],
      [{ ...changes(6, { removed: ['a'] }), timed_out: ['a'] }, 110_000],
      [changes(7, { removed: ['b'] }), 120_000],
    ]);
    const said = effects.map((step) => step.filter((e) => e.do === 'connection'));
    t.same(said[1], [{ do: 'connection', name: 'Ann', how: 'lost' }], 'lost: said');
    t.same(
      effects[1]?.map((e) => e.do).filter((d) => d !== 'notice'),
      ['replaceRow', 'connection'],
      'her row is replaced in place, not moved',
    );
    t.same(said[2], [], 'the same state again: nothing said');
    t.same(said[3], [{ do: 'connection', name: 'Ann', how: 'back' }], 'back: said');
    t.same(said[5], [{ do: 'connection', name: 'Ann', how: 'gone' }], 'her grace ran out: she left, said by name');
    t.same(said[6], [], 'an ordinary removal (admitted, refused, withdrawn) is not a lost connection');
    t.same(ids(state), []);
  },
);

t.test('issue 31 point 3: while lost, her row keeps its place in knock order', async (t) => {
  const { state } = run([
    [list(1, item('a', 1), item('b', 2), item('c', 3)), 0],
    [changes(2, { updated: [{ ...item('b', 2), connection_lost: true }] }), 7000],
  ]);
  t.same(ids(state), ['a', 'b', 'c']);
  t.equal(state.items[1]?.connection_lost, true);
});
