/**
 * The moderator's waiting list as the page holds it, kept by a reducer: the server's whole list
 * (`waiting_list`) and its changes in sequence (`waiting_changes`) in, the list, the knock
 * notification's group and the row-by-row edits for the view out. The sequence and gap rules,
 * the knock order and who the notification names live here; the DOM, the focus and the sound
 * stay in moderator.ts, which does what the effects say. Time comes in as `now` (milliseconds).
 */
import type { ServerMessage, WaitingItem, WaitingOutcome } from '../../protocol/live.js';

/** Arrivals this close together make one notification that counts them. */
export const groupWindowMs = 4000;
/** A row that took its place (appeared, or slid up or down) this recently is not admitted by a click on it. */
export const settleMs = 500;
/** How long an admitted row stays in place, disabled, before the list closes up. */
export const admittedHoldMs = 3000;
/** How long a refused row stays in place with Undo before the refusal is sent and the list closes up. */
export const undoMs = 5000;
/** How long a row answered elsewhere (another moderator, the person herself, her grace) stays, its outcome in words. */
export const goneHoldMs = 3000;

/** How a moderator answered a row of the list. */
export type Answer = 'admit' | 'refuse' | 'bar';

const isAnswer = (how: Answer | WaitingOutcome): how is Answer => how === 'admit' || how === 'refuse' || how === 'bar';

/**
 * A row answered: it stays where it was, disabled, until `until`. Hers (an Answer): a refusal is sent only then
 * (Undo takes it back). Elsewhere (a WaitingOutcome the server told: another moderator, she left, her grace ran out):
 * its outcome in words, nothing to send or undo.
 */
export interface Decided {
  readonly how: Answer | WaitingOutcome;
  readonly at: number;
  readonly until: number;
  /** The refusal went to the server (its time ran out, or Admit all sent it first): no Undo any more. */
  readonly sent: boolean;
}

export interface WaitingListState {
  /** The sequence number of the list held; null until the first whole list, and while a resync is awaited. */
  readonly seq: number | null;
  /** Those waiting, in knock order. */
  readonly items: readonly WaitingItem[];
  /** Every request ever notified: one arriving again after a resync is not news. */
  readonly seen: ReadonlySet<string>;
  /**
   * Who the notification is about: arrivals close together, and any arriving while it is shown.
   * Only those still waiting count, so an answer from the list shrinks it (or clears it).
   */
  readonly group: { readonly members: readonly string[]; readonly lastAt: number } | null;
  /** The notification is on screen. */
  readonly noticeShown: boolean;
  /** Someone shares a screen: the notification stays out of the way (the list does not). */
  readonly sharing: boolean;
  /** The waiting-room switch as the server last said it; null before it said. */
  readonly switch: { readonly enabled: boolean; readonly switchable: boolean } | null;
  /** Rows she answered, by request id: they keep their place (the server's removal waits for `until`). */
  readonly decided: ReadonlyMap<string, Decided>;
  /** When each row last took its place on screen (appeared, or moved because a row above came or went). */
  readonly placedAt: ReadonlyMap<string, number>;
  /** A refusal made from the notification, while its Undo time runs: the notification offers Undo there. */
  readonly noticeUndo: string | null;
  /** She turned the switch herself and the server has not answered yet: an "off" then let in whom she saw waiting. */
  readonly switchPressed: boolean;
}

export type WaitingListEffect =
  /** Ask for the whole list again (send `waiting_resync`): a change was missed. */
  | { readonly do: 'resync' }
  /** Draw every row again from state.items. */
  | { readonly do: 'rebuild' }
  /** A row goes; if it had the focus, the focus goes to the row `focusTo` names, or to the section's heading (null). */
  | { readonly do: 'removeRow'; readonly id: string; readonly focusTo: string | null }
  /** A row comes (or moves): placed before the row `before` names, or last (null). */
  | { readonly do: 'insertRow'; readonly item: WaitingItem; readonly before: string | null }
  | { readonly do: 'replaceRow'; readonly item: WaitingItem }
  /** A new group of arrivals: the knock sound. */
  | { readonly do: 'beep' }
  /** Draw the notification for these people (the one decides from it; several are counted), and Undo of `refusing`. */
  | { readonly do: 'notice'; readonly members: readonly WaitingItem[]; readonly refusing: WaitingItem | null }
  /** Everyone the notification named was answered: it went, and the focus must not fall to the body. */
  | { readonly do: 'noticeGone' }
  | { readonly do: 'announce'; readonly said: 'turnedOn' | 'turnedOff' }
  /** Her connection was lost (her place kept), is back, or stayed lost past the grace (she left the list): said politely. */
  | { readonly do: 'connection'; readonly name: string; readonly how: 'lost' | 'back' | 'gone' }
  /** Tell the server her answer (admit at once; a refusal once its Undo time is over, or before Admit all). */
  | { readonly do: 'send'; readonly how: Answer; readonly item: WaitingItem }
  /**
   * Draw a row again as the state says (answered: its status and Undo; or waiting again), keeping its height.
   * If the focus was in it, it goes to the first control of the row `focusTo` names, or to the heading (null).
   */
  | { readonly do: 'redrawRow'; readonly id: string; readonly focusTo: string | null }
  /** Call `tick` at this time (a held row is due). */
  | { readonly do: 'wake'; readonly at: number }
  /** Said in the live region about one person. */
  | { readonly do: 'tell'; readonly said: 'refusing' | 'barring' | 'undone' | 'notYet'; readonly name: string }
  /** Said in the live region: her row was answered elsewhere (a grace that ran out is said by `connection`). */
  | { readonly do: 'outcome'; readonly how: WaitingOutcome; readonly name: string }
  /** Said and shown: turning the waiting room off (or her arrival) left this many marked requests waiting for her. */
  | { readonly do: 'skipped'; readonly count: number; readonly arrival?: true };

export interface WaitingListStep {
  readonly state: WaitingListState;
  readonly effects: readonly WaitingListEffect[];
}

export const initialWaitingList: WaitingListState = {
  seq: null,
  items: [],
  seen: new Set(),
  group: null,
  noticeShown: false,
  sharing: false,
  switch: null,
  decided: new Map(),
  placedAt: new Map(),
  noticeUndo: null,
  switchPressed: false,
};

type Edit = { items: readonly WaitingItem[]; effects: WaitingListEffect[]; decided?: ReadonlyMap<string, Decided> };

/** Rows whose place on screen changed between two lists took it `now`; rows gone are forgotten. */
function placed(state: WaitingListState, items: readonly WaitingItem[], now: number): ReadonlyMap<string, number> {
  const before = new Map(state.items.map((r, i) => [r.request_id, i]));
  return new Map(
    items.map((r, i) => [
      r.request_id,
      before.get(r.request_id) === i ? (state.placedAt.get(r.request_id) ?? now) : now,
    ]),
  );
}

/** The row that gets the focus after `id` is answered: the next one still to answer, else the one before; null for none. */
function nextOpen(items: readonly WaitingItem[], decided: ReadonlyMap<string, Decided>, id: string): string | null {
  const at = items.findIndex((r) => r.request_id === id);
  const open = (r: WaitingItem | undefined) => r !== undefined && !decided.has(r.request_id);
  const after = items.slice(at + 1).find(open);
  return (after ?? items.slice(0, Math.max(at, 0)).reverse().find(open))?.request_id ?? null;
}

/**
 * The server's removal. A row she answered keeps its place until its time is over (`tick` takes it out). A row
 * answered elsewhere (another moderator, she left, her grace ran out; or her refusal still in its Undo time, which
 * is then void) stays too, disabled, its outcome in words, said once; the focus leaves it as after her own answer.
 */
function remove(edit: Edit, id: string, outcome: WaitingOutcome, now: number): Edit {
  const decided = edit.decided ?? new Map<string, Decided>();
  const held = decided.get(id);
  const item = edit.items.find((r) => r.request_id === id);
  if (!item || (held && (held.sent || !isAnswer(held.how)))) return edit;
  const until = now + goneHoldMs;
  const next = new Map(decided).set(id, { how: outcome, at: now, until, sent: true });
  const effects: WaitingListEffect[] = [
    { do: 'redrawRow', id, focusTo: nextOpen(edit.items, next, id) },
    ...(outcome === 'timed_out' ? [] : [{ do: 'outcome', how: outcome, name: item.name } as const]),
    { do: 'wake', at: until },
  ];
  return { ...edit, decided: next, effects: [...edit.effects, ...effects] };
}

function removeNow(edit: Edit, id: string): Edit {
  if (!edit.items.some((r) => r.request_id === id)) return edit;
  const focusTo = nextOpen(edit.items, edit.decided ?? new Map(), id);
  const items = edit.items.filter((r) => r.request_id !== id);
  return { ...edit, items, effects: [...edit.effects, { do: 'removeRow', id, focusTo }] };
}

/** In knock order, after everyone who knocked at the same time or earlier; one already there moves. */
function insert(edit: Edit, item: WaitingItem): Edit {
  const rest = edit.items.filter((r) => r.request_id !== item.request_id);
  let at = rest.length;
  while (at > 0 && rest[at - 1]!.knocked_at > item.knocked_at) at -= 1;
  const items = [...rest.slice(0, at), item, ...rest.slice(at)];
  // Held as gone elsewhere, and back (her page reloaded after its beacon): she is waiting again.
  const held = edit.decided?.get(item.request_id);
  const decided = held && !isAnswer(held.how) ? new Map(edit.decided) : edit.decided;
  if (decided !== edit.decided) (decided as Map<string, Decided>).delete(item.request_id);
  const effects: WaitingListEffect[] = [
    ...edit.effects,
    { do: 'insertRow', item, before: rest[at]?.request_id ?? null },
  ];
  return decided ? { items, effects, decided } : { items, effects };
}

/** The notification for those of the group still waiting, and Undo of a refusal made from it; gone when neither is left. */
function drawn(state: WaitingListState): WaitingListStep {
  const members = (state.group?.members ?? []).flatMap((id) =>
    state.items.filter((r) => r.request_id === id && !state.decided.has(id)),
  );
  const held = state.noticeUndo === null ? undefined : state.decided.get(state.noticeUndo);
  const refusing = held && !held.sent ? (state.items.find((r) => r.request_id === state.noticeUndo) ?? null) : null;
  if (members.length === 0 && refusing === null)
    return {
      state: { ...state, noticeShown: false, group: null, noticeUndo: null },
      effects: [{ do: 'noticeGone' }],
    };
  if (state.sharing) return { state, effects: [] };
  return { state: { ...state, noticeShown: true }, effects: [{ do: 'notice', members, refusing }] };
}

/** After a change: who is new is notified (grouped with arrivals close before), or the notification follows who still waits. */
function settled(state: WaitingListState, added: readonly WaitingItem[], now: number): WaitingListStep {
  const waiting = new Set(state.items.map((r) => r.request_id));
  const fresh = added
    .filter((r) => waiting.has(r.request_id) && !state.seen.has(r.request_id))
    .map((r) => r.request_id);
  if (fresh.length === 0) return state.group && state.noticeShown ? drawn(state) : { state, effects: [] };
  const seen = new Set([...state.seen, ...fresh]);
  const group = state.group;
  if (group && (state.noticeShown || now - group.lastAt <= groupWindowMs)) {
    return drawn({ ...state, seen, group: { members: [...new Set([...group.members, ...fresh])], lastAt: now } });
  }
  const next = drawn({ ...state, seen, group: { members: fresh, lastAt: now } });
  return { state: next.state, effects: [{ do: 'beep' }, ...next.effects] };
}

function merge(first: WaitingListEffect[], step: WaitingListStep): WaitingListStep {
  return { state: step.state, effects: [...first, ...step.effects] };
}

/**
 * The whole list at `seq` (on connect, on becoming a moderator, after a resync, or in place of a long change). Rows
 * held (her answers, and those answered elsewhere) stay in their place for the rest of their time, listed or not;
 * one held as gone elsewhere and listed again is waiting again (as `insert` says).
 */
function replace(state: WaitingListState, requests: readonly WaitingItem[], seq: number, now: number): WaitingListStep {
  const listed = new Set(requests.map((r) => r.request_id));
  const held = state.items.filter((r) => state.decided.has(r.request_id) && !listed.has(r.request_id));
  const kept = held.reduce((edit, r) => insert(edit, r), { items: [], effects: [] } as Edit).items;
  const edit = requests.reduce((e, r) => insert(e, r), { items: kept, effects: [], decided: state.decided } as Edit);
  const items = edit.items;
  const decided = new Map(
    [...(edit.decided ?? state.decided)].filter(([id]) => items.some((r) => r.request_id === id)),
  );
  const placedAt = placed(state, items, now);
  return merge([{ do: 'rebuild' }], settled({ ...state, seq, items, decided, placedAt }, requests, now));
}

/**
 * One change, if it is the next in sequence: removed, then added, then updated, each idempotent.
 * An older one is ignored; after a gap the list held is no longer the server's, so the page asks
 * for the whole list and ignores changes until it comes.
 */
function apply(
  state: WaitingListState,
  change: Extract<ServerMessage, { type: 'waiting_changes' }>,
  now: number,
): WaitingListStep {
  if (state.seq === null || change.seq <= state.seq) return { state, effects: [] };
  if (change.seq !== state.seq + 1) return { state: { ...state, seq: null }, effects: [{ do: 'resync' }] };
  let edit: Edit = { items: state.items, effects: [], decided: state.decided };
  // Those whose grace ran out are named before their rows go (the server says who, by id).
  for (const id of change.timed_out ?? []) {
    const held = edit.items.find((r) => r.request_id === id);
    if (held && !edit.decided?.has(id)) edit.effects.push({ do: 'connection', name: held.name, how: 'gone' });
  }
  const timedOut = new Set(change.timed_out);
  for (const id of change.removed)
    edit = remove(edit, id, change.outcomes?.[id] ?? (timedOut.has(id) ? 'timed_out' : 'left'), now);
  for (const r of change.added) edit = insert(edit, r);
  for (const r of change.updated) {
    const before = edit.items.find((held) => held.request_id === r.request_id);
    if (!before) continue;
    const lost = r.connection_lost === true;
    const told: WaitingListEffect[] =
      lost === (before.connection_lost === true)
        ? []
        : [{ do: 'connection', name: r.name, how: lost ? 'lost' : 'back' }];
    edit = {
      ...edit,
      items: edit.items.map((held) => (held.request_id === r.request_id ? r : held)),
      effects: [...edit.effects, { do: 'replaceRow', item: r }, ...told],
    };
  }
  const placedAt = placed(state, edit.items, now);
  const decided = edit.decided ?? state.decided;
  return merge(
    edit.effects,
    settled({ ...state, seq: change.seq, items: edit.items, placedAt, decided }, change.added, now),
  );
}

/**
 * The server's word on the waiting-room switch: a change after the first is announced. Turned off, it let in
 * everyone waiting but those marked "barred earlier as …": they still wait for her decision, and she is told how many.
 */
function switched(state: WaitingListState, enabled: boolean, switchable: boolean, now: number): WaitingListStep {
  const changed = state.switch !== null && state.switch.enabled !== enabled;
  const marked = state.items.filter((r) => r.barred_as !== undefined && !state.decided.has(r.request_id)).length;
  const effects: WaitingListEffect[] = changed ? [{ do: 'announce', said: enabled ? 'turnedOn' : 'turnedOff' }] : [];
  if (changed && !enabled && marked > 0) effects.push({ do: 'skipped', count: marked });
  const next = { ...state, switch: { enabled, switchable }, switchPressed: false };
  // Hers: the removals that follow (the server tells the switch first) are her admissions.
  return changed && !enabled && state.switchPressed
    ? merge(effects, admitEveryone(next, now))
    : { state: next, effects };
}

/** She turned the waiting-room switch (its answer comes as a `waiting_room` message). */
export function pressSwitch(state: WaitingListState): WaitingListState {
  return { ...state, switchPressed: true };
}

export function receiveWaiting(
  state: WaitingListState,
  message: Extract<ServerMessage, { type: 'waiting_list' | 'waiting_changes' | 'waiting_room' }>,
  now: number,
): WaitingListStep {
  switch (message.type) {
    case 'waiting_list': {
      // Her arrival under until_moderator left marked requests waiting (said once, in this list): she is told.
      const { state: next, effects } = replace(state, message.requests, message.seq, now);
      const count = message.skipped ?? 0;
      return { state: next, effects: count > 0 ? [...effects, { do: 'skipped', count, arrival: true }] : effects };
    }
    case 'waiting_changes':
      return apply(state, message, now);
    case 'waiting_room':
      return switched(state, message.enabled, message.switchable, now);
  }
}

/**
 * She answered a row of the list: it stays in place, disabled, showing her answer (a refusal with Undo) until the
 * list closes up, and the focus goes to the next row still to answer (never to that row's same button: its
 * first control), or to the heading. Admit is sent at once, but never for a row that took its place in the last
 * `settleMs` (it slid under her pointer); a refusal is sent when its Undo time is over. From the knock
 * notification (`from`), the same: the row held in the list, and a refusal's Undo offered in the notification too.
 */
export function decide(
  state: WaitingListState,
  id: string,
  how: Answer,
  now: number,
  pointer = true,
  from: 'list' | 'notice' = 'list',
): WaitingListStep {
  const item = state.items.find((r) => r.request_id === id);
  if (!item || state.decided.has(id)) return { state, effects: [] };
  // A key acts where the focus is, and the focus does not move with the list: only a pointer can be surprised.
  if (how === 'admit' && pointer && settling(state, id, now))
    return { state, effects: [{ do: 'tell', said: 'notYet', name: item.name }] };
  const until = now + (how === 'admit' ? admittedHoldMs : undoMs);
  const decided = new Map(state.decided).set(id, { how, at: now, until, sent: how === 'admit' });
  const noticeUndo = from === 'notice' && how !== 'admit' ? id : state.noticeUndo;
  const next = { ...state, decided, noticeUndo };
  const effects: WaitingListEffect[] = [
    { do: 'redrawRow', id, focusTo: nextOpen(state.items, decided, id) },
    how === 'admit'
      ? { do: 'send', how, item }
      : { do: 'tell', said: how === 'bar' ? 'barring' : 'refusing', name: item.name },
    { do: 'wake', at: until },
  ];
  return merge(effects, drawnIfShown(next));
}

/** The row took its place in the last `settleMs`: a pointer over it may have meant the row that was there. */
export function settling(state: WaitingListState, id: string, now: number): boolean {
  return now - (state.placedAt.get(id) ?? now) < settleMs;
}

/** The notification follows who is still to answer. */
function drawnIfShown(state: WaitingListState): WaitingListStep {
  return state.group && state.noticeShown ? drawn(state) : { state, effects: [] };
}

/** Undo of a refusal not sent yet: the request is back in its place, as it was (a click in `settleMs` after the answer is the same click again). */
export function undo(state: WaitingListState, id: string, now: number): WaitingListStep {
  const held = state.decided.get(id);
  const item = state.items.find((r) => r.request_id === id);
  if (!held || !item || held.how === 'admit' || held.sent || now - held.at < settleMs) return { state, effects: [] };
  const decided = new Map(state.decided);
  decided.delete(id);
  // Undone from the notification: it names her again, with Admit and Refuse (she is back in its group).
  const fromNotice = state.noticeUndo === id;
  const effects: WaitingListEffect[] = [
    { do: 'redrawRow', id, focusTo: fromNotice ? null : id },
    { do: 'tell', said: 'undone', name: item.name },
  ];
  const next = { ...state, decided, noticeUndo: fromNotice ? null : state.noticeUndo };
  return fromNotice ? merge(effects, drawn(next)) : { state: next, effects };
}

/** Sends every refusal still waiting for its Undo time (before Admit all, which would otherwise let them in). */
export function sendRefusals(state: WaitingListState): WaitingListStep {
  const effects: WaitingListEffect[] = [];
  const decided = new Map(state.decided);
  for (const [id, held] of state.decided) {
    const item = state.items.find((r) => r.request_id === id);
    if (held.sent || !item || !isAnswer(held.how)) continue;
    decided.set(id, { ...held, sent: true });
    effects.push({ do: 'send', how: held.how, item }, { do: 'redrawRow', id, focusTo: null });
  }
  return merge(effects, drawnIfShown({ ...state, decided }));
}

/**
 * She let everyone in (Admit all, or the waiting room turned off): the rows the server will admit (all but those
 * marked "barred earlier as …", which it skips) show her answer, Admitted, like her own Admit, not as another's.
 */
export function admitEveryone(state: WaitingListState, now: number): WaitingListStep {
  const decided = new Map(state.decided);
  const effects: WaitingListEffect[] = [];
  const until = now + admittedHoldMs;
  for (const r of state.items) {
    if (decided.has(r.request_id) || r.barred_as !== undefined) continue;
    decided.set(r.request_id, { how: 'admit', at: now, until, sent: true });
    effects.push({ do: 'redrawRow', id: r.request_id, focusTo: nextOpen(state.items, decided, r.request_id) });
  }
  if (effects.length > 0) effects.push({ do: 'wake', at: until });
  return merge(effects, drawnIfShown({ ...state, decided }));
}

/** The server did not take an admission: the row is hers to answer again. */
export function notTaken(state: WaitingListState, id: string): WaitingListStep {
  if (!state.decided.has(id)) return { state, effects: [] };
  const decided = new Map(state.decided);
  decided.delete(id);
  return { state: { ...state, decided }, effects: [{ do: 'redrawRow', id, focusTo: id }] };
}

/** Time passed: refusals whose Undo time is over are sent, and rows whose time is over go (the list closes up). */
export function tick(state: WaitingListState, now: number): WaitingListStep {
  const due = [...state.decided].filter(([, held]) => held.until <= now);
  if (due.length === 0) return { state, effects: [] };
  const decided = new Map(state.decided);
  let edit: Edit = { items: state.items, effects: [] };
  for (const [id, held] of due) {
    const item = state.items.find((r) => r.request_id === id);
    if (item && !held.sent && isAnswer(held.how)) edit.effects.push({ do: 'send', how: held.how, item });
    decided.delete(id);
  }
  for (const [id] of due) edit = removeNow({ ...edit, decided }, id);
  const placedAt = placed(state, edit.items, now);
  return merge(edit.effects, drawnIfShown({ ...state, items: edit.items, decided, placedAt }));
}

/** The notification is put away (dismissed, or she acted on it); its group stays, so a knock close after joins it. */
export function hideNotice(state: WaitingListState): WaitingListState {
  return { ...state, noticeShown: false };
}

/** While anyone shares a screen the notification stays out of the way. */
export function setSharing(state: WaitingListState, sharing: boolean): WaitingListState {
  return { ...state, sharing, noticeShown: sharing ? false : state.noticeShown };
}
