// Issue 31 point 4: the waiting list does not move under the cursor. An answered row keeps its
// place (disabled, its answer in words, a refusal with Undo) until the list closes up; the focus
// goes to the next row still to answer; Admit never fires on a row that took its place in the
// last 500 ms. The page's own clock comes in as `now`.
import t from 'tap';
import type { WaitingItem, WaitingOutcome } from '../../../../src/protocol/live.js';
import {
  admittedHoldMs,
  decide,
  goneHoldMs,
  admitEveryone,
  pressSwitch,
  initialWaitingList,
  notTaken,
  receiveWaiting,
  sendRefusals,
  settleMs,
  tick,
  undo,
  undoMs,
  type WaitingListEffect,
  type WaitingListState,
} from '../../../../src/web/state/waiting-list.js';

const item = (id: string, second: number): WaitingItem => ({
  request_id: id,
  name: id.toUpperCase(),
  note: '',
  knocked_at: `2026-11-27T14:00:${String(second).padStart(2, '0')}.000Z`,
});
const ids = (s: WaitingListState) => s.items.map((r) => r.request_id);
const sends = (effects: readonly WaitingListEffect[]) =>
  effects.flatMap((e) => (e.do === 'send' ? [`${e.how} ${e.item.request_id}`] : []));
const pick = <K extends WaitingListEffect['do']>(effects: readonly WaitingListEffect[], kind: K) =>
  effects.filter((e): e is Extract<WaitingListEffect, { do: K }> => e.do === kind);

/** Ann, Ben and Cy waiting since t = 0 (settled by t = 1000). */
function three(): WaitingListState {
  const msg = { type: 'waiting_list', seq: 1, requests: [item('a', 1), item('b', 2), item('c', 3)] } as const;
  return receiveWaiting(initialWaitingList, msg, 0).state;
}
const removed = (seq: number, ...gone: string[]) =>
  ({ type: 'waiting_changes', seq, added: [], updated: [], removed: gone }) as const;

t.test(
  'a refused row stays in place with Undo; the refusal is sent when its time is over, then the list closes up',
  async (t) => {
    const start = three();
    const refused = decide(start, 'a', 'refuse', 1000);
    t.same(ids(refused.state), ['a', 'b', 'c'], 'nothing moves');
    t.same(sends(refused.effects), [], 'nothing sent yet: Undo is possible');
    t.same(pick(refused.effects, 'redrawRow'), [{ do: 'redrawRow', id: 'a', focusTo: 'b' }], 'focus: the next row');
    t.same(pick(refused.effects, 'tell'), [{ do: 'tell', said: 'refusing', name: 'A' }]);
    t.same(pick(refused.effects, 'wake'), [{ do: 'wake', at: 1000 + undoMs }]);
    t.same(decide(refused.state, 'a', 'admit', 1100).effects, [], 'a second click on the answered row does nothing');
    t.same(tick(refused.state, 1000 + undoMs - 1).effects, [], 'not due yet');
    const due = tick(refused.state, 1000 + undoMs);
    t.same(sends(due.effects), ['refuse a']);
    t.same(ids(due.state), ['b', 'c'], 'the list closes up');
    t.same(pick(due.effects, 'removeRow'), [{ do: 'removeRow', id: 'a', focusTo: 'b' }]);
    t.equal(due.state.placedAt.get('b'), 1000 + undoMs, 'Ben took a new place now');
    t.same(sends(decide(due.state, 'b', 'admit', 1000 + undoMs + settleMs - 1).effects), [], 'so Admit on him waits');
  },
);

t.test('the double click on Refuse: the second click never admits the person below', async (t) => {
  // Today's bug: Ann's row went at once and Ben's Admit slid under the pointer. Now Ann's row stays;
  // and were it to go (another moderator answered, she withdrew), Ben's Admit is not taken for 500 ms.
  const start = three();
  const first = decide(start, 'a', 'refuse', 1000);
  const second = decide(first.state, 'a', 'refuse', 1120);
  t.same(second.effects, [], 'the same row, answered: nothing');
  // Ann's row, answered elsewhere, is held a moment too; when it goes, Ben slides up (at `up`).
  const up = 1000 + goneHoldMs;
  const slid = tick(receiveWaiting(start, removed(2, 'a'), 1000).state, up).state;
  t.equal(slid.placedAt.get('b'), up);
  const quick = decide(slid, 'b', 'admit', up + 120);
  t.same(sends(quick.effects), [], 'Ben slid under the pointer 120 ms ago: not admitted');
  t.same(quick.effects, [{ do: 'tell', said: 'notYet', name: 'B' }], 'and she is told why');
  t.notOk(quick.state.decided.has('b'));
  t.same(sends(decide(slid, 'b', 'admit', up + settleMs).effects), ['admit b'], 'once settled, Admit works');
  t.same(
    sends(decide(slid, 'b', 'admit', up + 120, false).effects),
    ['admit b'],
    'a key acts where the focus is (it does not move with the list): taken at once',
  );
  t.same(sends(decide(start, 'b', 'admit', 1000).effects), ['admit b'], 'a row that did not move is admitted at once');
});

t.test(
  'Undo puts the request back in its place; a click on Undo right after the answer is the same click',
  async (t) => {
    const refused = decide(three(), 'b', 'bar', 1000);
    t.same(undo(refused.state, 'b', 1000 + settleMs - 1).effects, [], 'the double click lands on Undo: nothing');
    const undone = undo(refused.state, 'b', 2000);
    t.notOk(undone.state.decided.has('b'));
    t.same(ids(undone.state), ['a', 'b', 'c']);
    t.same(undone.effects, [
      { do: 'redrawRow', id: 'b', focusTo: 'b' },
      { do: 'tell', said: 'undone', name: 'B' },
    ]);
    t.same(tick(undone.state, 1000 + undoMs).effects, [], 'nothing is sent when its time would have been over');
  },
);

t.test('an admitted row: sent at once, held disabled, then gone; the server removal waits for it', async (t) => {
  const admitted = decide(three(), 'b', 'admit', 1000);
  t.same(sends(admitted.effects), ['admit b']);
  t.same(undo(admitted.state, 'b', 2000).effects, [], 'an admission has no Undo');
  const told = receiveWaiting(admitted.state, removed(2, 'b'), 1100);
  t.same(ids(told.state), ['a', 'b', 'c'], "the server's removal does not move the list");
  t.same(pick(told.effects, 'removeRow'), []);
  const gone = tick(told.state, 1000 + admittedHoldMs);
  t.same(ids(gone.state), ['a', 'c']);
  t.same(sends(gone.effects), [], 'sent once');
  const failed = notTaken(admitted.state, 'b');
  t.notOk(failed.state.decided.has('b'), 'not taken by the server: hers to answer again');
});

t.test('focus goes to the next row still to answer, else the one before, else the heading', async (t) => {
  let s = decide(three(), 'b', 'refuse', 1000).state;
  s = decide(s, 'c', 'refuse', 1000).state;
  t.same(pick(decide(three(), 'c', 'refuse', 1000).effects, 'redrawRow')[0]?.focusTo, 'b', 'last row: the one before');
  const last = decide(s, 'a', 'admit', 2000);
  t.same(pick(last.effects, 'redrawRow')[0]?.focusTo, null, 'nobody left to answer: the heading');
});

t.test('Admit all sends the refusals still in their Undo time first', async (t) => {
  let s = decide(three(), 'a', 'refuse', 1000).state;
  s = decide(s, 'b', 'admit', 1000).state;
  const flushed = sendRefusals(s);
  t.same(sends(flushed.effects), ['refuse a']);
  t.equal(flushed.state.decided.get('a')?.sent, true);
  t.same(undo(flushed.state, 'a', 3000).effects, [], 'sent: no Undo any more');
  t.same(sends(tick(flushed.state, 1000 + undoMs).effects), [], 'not sent twice');
});

t.test('the knock notification no longer names someone answered in the list', async (t) => {
  const arrived = receiveWaiting(initialWaitingList, { type: 'waiting_list', seq: 1, requests: [item('a', 1)] }, 0);
  t.equal(arrived.state.noticeShown, true);
  const answered = decide(arrived.state, 'a', 'refuse', 1000);
  t.same(pick(answered.effects, 'noticeGone').length, 1);
});

// The remaining gaps of point 4: a row removed by SOMEONE ELSE (another moderator, the pupil, her grace)
// used to vanish at once, and the refusal from the knock notification was sent at once, without Undo.
const gone = (seq: number, outcomes: Record<string, WaitingOutcome>, timedOut?: string[]) =>
  ({
    type: 'waiting_changes',
    seq,
    added: [],
    updated: [],
    removed: Object.keys(outcomes),
    outcomes,
    ...(timedOut ? { timed_out: timedOut } : {}),
  }) as const;

t.test(
  'a row answered elsewhere stays in place, its outcome in words and said once, then the list closes up',
  async (t) => {
    const start = three();
    const told = receiveWaiting(start, gone(2, { b: 'admitted' }), 1000);
    t.same(ids(told.state), ['a', 'b', 'c'], 'nothing moves');
    t.match(told.state.decided.get('b'), { how: 'admitted', sent: true, until: 1000 + goneHoldMs });
    t.same(pick(told.effects, 'redrawRow'), [{ do: 'redrawRow', id: 'b', focusTo: 'c' }], 'focus: the next open row');
    t.same(pick(told.effects, 'outcome'), [{ do: 'outcome', how: 'admitted', name: 'B' }], 'said once');
    t.same(pick(told.effects, 'wake'), [{ do: 'wake', at: 1000 + goneHoldMs }]);
    t.same(pick(told.effects, 'removeRow'), [], 'not removed yet');
    t.same(decide(told.state, 'b', 'refuse', 1500).effects, [], 'its buttons are gone: nothing to answer');
    t.same(undo(told.state, 'b', 2000).effects, [], 'and nothing to undo');
    t.same(
      receiveWaiting(told.state, gone(3, { b: 'admitted' }), 1200).effects.filter((e) => e.do !== 'notice'),
      [],
      'told again: nothing again',
    );
    t.same(tick(told.state, 1000 + goneHoldMs - 1).effects, [], 'still held');
    const closed = tick(told.state, 1000 + goneHoldMs);
    t.same(ids(closed.state), ['a', 'c'], 'then the list closes up');
    t.same(pick(closed.effects, 'removeRow'), [{ do: 'removeRow', id: 'b', focusTo: 'c' }]);
    t.same(sends(closed.effects), [], 'nothing is sent for an answer that was not hers');

    const each = receiveWaiting(start, gone(2, { a: 'refused', b: 'barred', c: 'left' }), 1000);
    t.same(
      pick(each.effects, 'outcome').map((e) => `${e.name} ${e.how}`),
      ['A refused', 'B barred', 'C left'],
    );
    t.same(pick(each.effects, 'redrawRow').at(-1)?.focusTo, null, 'nobody left to answer: the heading');
    const old = receiveWaiting(start, removed(2, 'a'), 1000);
    t.equal(old.state.decided.get('a')?.how, 'left', 'a removal without an outcome is said as left');
  },
);

t.test('a grace that ran out is said once (as a lost connection), and held like any other', async (t) => {
  const told = receiveWaiting(three(), gone(2, { a: 'timed_out' }, ['a']), 1000);
  t.same(pick(told.effects, 'connection'), [{ do: 'connection', name: 'A', how: 'gone' }]);
  t.same(pick(told.effects, 'outcome'), [], 'not said a second time');
  t.equal(told.state.decided.get('a')?.how, 'timed_out');
});

t.test(
  'her refusal still in its Undo time, answered elsewhere: the row says what happened; nothing sent',
  async (t) => {
    const refused = decide(three(), 'a', 'refuse', 1000);
    const told = receiveWaiting(refused.state, gone(2, { a: 'admitted' }), 2000);
    t.match(told.state.decided.get('a'), { how: 'admitted', sent: true });
    t.same(pick(told.effects, 'outcome'), [{ do: 'outcome', how: 'admitted', name: 'A' }]);
    t.same(sends(tick(told.state, 1000 + undoMs).effects), [], 'her refusal is void: never sent');
    // Her own answer told back by the server is no news.
    const admitted = decide(three(), 'b', 'admit', 1000);
    t.same(pick(receiveWaiting(admitted.state, gone(2, { b: 'admitted' }), 1100).effects, 'outcome'), []);
  },
);

t.test('a row held as left comes back when her page does (a reload after its beacon)', async (t) => {
  const left = receiveWaiting(three(), gone(2, { a: 'left' }), 1000);
  const back = receiveWaiting(
    left.state,
    { type: 'waiting_changes', seq: 3, added: [item('a', 1)], updated: [], removed: [] },
    1500,
  );
  t.notOk(back.state.decided.has('a'), 'waiting again, her buttons back');
  t.same(ids(tick(back.state, 1000 + goneHoldMs).state), ['a', 'b', 'c'], 'and the hold does not take her out');
});

t.test('a refusal from the knock notification has the same Undo window as the list', async (t) => {
  const arrived = receiveWaiting(initialWaitingList, { type: 'waiting_list', seq: 1, requests: [item('a', 1)] }, 0);
  const refused = decide(arrived.state, 'a', 'refuse', 1000, false, 'notice');
  t.same(sends(refused.effects), [], 'not sent at once');
  t.match(refused.state.decided.get('a'), { how: 'refuse', sent: false, until: 1000 + undoMs }, 'the row is held');
  t.same(
    pick(refused.effects, 'notice'),
    [{ do: 'notice', members: [], refusing: item('a', 1) }],
    'the notification offers Undo',
  );
  t.same(pick(refused.effects, 'noticeGone'), []);

  const undone = undo(refused.state, 'a', 2000);
  t.notOk(undone.state.decided.has('a'));
  t.same(
    pick(undone.effects, 'notice'),
    [{ do: 'notice', members: [item('a', 1)], refusing: null }],
    'undone: the notification names her again',
  );
  t.same(pick(undone.effects, 'redrawRow'), [{ do: 'redrawRow', id: 'a', focusTo: null }], 'focus stays there');

  const due = tick(refused.state, 1000 + undoMs);
  t.same(sends(due.effects), ['refuse a'], 'sent when its time is over');
  t.same(pick(due.effects, 'noticeGone').length, 1, 'and the notification goes');

  const admitted = decide(arrived.state, 'a', 'admit', 1000, false, 'notice');
  t.same(sends(admitted.effects), ['admit a'], 'Admit from the notification: at once');
  t.same(pick(admitted.effects, 'noticeGone').length, 1);
  t.equal(admitted.state.decided.get('a')?.how, 'admit', 'its row held as Admitted like the list');
});

t.test('the waiting room turned off: marked requests still wait, and she is told how many', async (t) => {
  const marked = { ...item('b', 2), barred_as: 'Ben' };
  const msg = { type: 'waiting_list', seq: 1, requests: [item('a', 1), marked] } as const;
  let s = receiveWaiting(initialWaitingList, msg, 0).state;
  s = receiveWaiting(s, { type: 'waiting_room', enabled: true, switchable: true }, 0).state;
  const off = receiveWaiting(s, { type: 'waiting_room', enabled: false, switchable: true }, 10);
  t.same(off.effects, [
    { do: 'announce', said: 'turnedOff' },
    { do: 'skipped', count: 1 },
  ]);
  const none = receiveWaiting(three(), { type: 'waiting_room', enabled: true, switchable: true }, 0).state;
  t.same(
    pick(receiveWaiting(none, { type: 'waiting_room', enabled: false, switchable: true }, 0).effects, 'skipped'),
    [],
  );
});

// Issue 31 point 5: her arrival under until_moderator left marked requests waiting; the first list says how many, once.
t.test('the first list after her arrival tells her how many marked requests still wait', async (t) => {
  const marked = { ...item('b', 2), barred_as: 'Ben' };
  const msg = { type: 'waiting_list', seq: 1, requests: [marked], skipped: 1 } as const;
  const first = receiveWaiting(initialWaitingList, msg, 0);
  t.same(pick(first.effects, 'skipped'), [{ do: 'skipped', count: 1, arrival: true }], 'said and shown');
  t.same(ids(first.state), ['b'], 'and the marked row is listed');
  const resync = receiveWaiting(first.state, { type: 'waiting_list', seq: 2, requests: [marked] }, 10);
  t.same(pick(resync.effects, 'skipped'), [], 'a later list without the count says nothing');
});

t.test('her own Admit all, or her switch turned off, shows Admitted, not "by another moderator"', async (t) => {
  const marked = { ...item('b', 2), barred_as: 'Ben' };
  const msg = { type: 'waiting_list', seq: 1, requests: [item('a', 1), marked, item('c', 3)] } as const;
  let s = receiveWaiting(initialWaitingList, msg, 0).state;
  s = receiveWaiting(s, { type: 'waiting_room', enabled: true, switchable: true }, 0).state;
  const all = admitEveryone(s, 1000);
  t.same(
    [...all.state.decided].map(([id, d]) => `${id} ${d.how}`),
    ['a admit', 'c admit'],
    'the marked row stays open',
  );
  const told = receiveWaiting(all.state, gone(2, { a: 'admitted', c: 'admitted' }), 1100);
  t.same(pick(told.effects, 'outcome'), [], "her own admissions are not said as another's");

  const off = receiveWaiting(pressSwitch(s), { type: 'waiting_room', enabled: false, switchable: true }, 1000);
  t.same(
    [...off.state.decided].map(([id, d]) => `${id} ${d.how}`),
    ['a admit', 'c admit'],
  );
  t.same(pick(off.effects, 'skipped'), [{ do: 'skipped', count: 1 }]);
  t.equal(off.state.switchPressed, false);
  const other = receiveWaiting(s, { type: 'waiting_room', enabled: false, switchable: true }, 1000);
  t.equal(other.state.decided.size, 0, "another moderator's switch: the removals will say so");
});

// A whole list in place of a change (a long change, a resync): rows already held used to vanish at once.
t.test('a whole list keeps the rows held, answered here or elsewhere, for the rest of their time', async (t) => {
  const whole = (seq: number, ...requests: WaitingItem[]) => ({ type: 'waiting_list', seq, requests }) as const;
  const admitted = decide(three(), 'a', 'admit', 1000);
  const elsewhere = receiveWaiting(admitted.state, gone(2, { c: 'refused' }), 1200);
  const listed = receiveWaiting(elsewhere.state, whole(3, item('b', 2)), 2000);
  t.same(ids(listed.state), ['a', 'b', 'c'], 'nothing moves: her admission and the refusal elsewhere stay in place');
  t.match(listed.state.decided.get('a'), { how: 'admit', until: 1000 + admittedHoldMs });
  t.match(listed.state.decided.get('c'), { how: 'refused', until: 1200 + goneHoldMs });
  t.same(pick(listed.effects, 'rebuild').length, 1, 'drawn again from the list held');
  t.same(pick(listed.effects, 'outcome'), [], 'nothing said again');
  t.same(decide(listed.state, 'c', 'admit', 2500).effects, [], 'the held row still answers nothing');
  const first = tick(listed.state, 1000 + admittedHoldMs);
  t.same(ids(first.state), ['b', 'c'], 'hers goes when its time is over');
  const second = tick(first.state, 1200 + goneHoldMs);
  t.same(ids(second.state), ['b'], 'then the one answered elsewhere');
  t.same(sends(second.effects), [], 'nothing is sent for it');

  // Held as left, and listed again (her page came back): waiting again, not held.
  const left = receiveWaiting(three(), gone(2, { a: 'left' }), 1000);
  const back = receiveWaiting(left.state, whole(3, item('a', 1), item('b', 2), item('c', 3)), 1500);
  t.notOk(back.state.decided.has('a'), 'her buttons are back');
  t.same(ids(tick(back.state, 1000 + goneHoldMs).state), ['a', 'b', 'c'], 'and the hold does not take her out');
});
