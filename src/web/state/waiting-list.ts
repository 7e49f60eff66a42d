/**
 * The moderator's waiting list as the page holds it, kept by a reducer: the server's whole list
 * (`waiting_list`) and its changes in sequence (`waiting_changes`) in, the list, the knock
 * notification's group and the row-by-row edits for the view out. The sequence and gap rules,
 * the knock order and who the notification names live here; the DOM, the focus and the sound
 * stay in moderator.ts, which does what the effects say. Time comes in as `now` (milliseconds).
 */
import type { ServerMessage, WaitingItem } from '../../protocol/live.js';

/** Arrivals this close together make one notification that counts them. */
export const groupWindowMs = 4000;

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
  /** Draw the notification for these people (the one decides from it; several are counted). */
  | { readonly do: 'notice'; readonly members: readonly WaitingItem[] }
  /** Everyone the notification named was answered: it went, and the focus must not fall to the body. */
  | { readonly do: 'noticeGone' }
  | { readonly do: 'announce'; readonly said: 'turnedOn' | 'turnedOff' }
  /** Her connection was lost (her place kept), is back, or stayed lost past the grace (she left the list): said politely. */
  | { readonly do: 'connection'; readonly name: string; readonly how: 'lost' | 'back' | 'gone' };

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
};

type Edit = { items: readonly WaitingItem[]; effects: WaitingListEffect[] };

function remove(edit: Edit, id: string): Edit {
  const at = edit.items.findIndex((r) => r.request_id === id);
  if (at < 0) return edit;
  const focusTo = edit.items[at + 1]?.request_id ?? edit.items[at - 1]?.request_id ?? null;
  return { items: edit.items.filter((_, i) => i !== at), effects: [...edit.effects, { do: 'removeRow', id, focusTo }] };
}

/** In knock order, after everyone who knocked at the same time or earlier; one already there moves. */
function insert(edit: Edit, item: WaitingItem): Edit {
  const rest = edit.items.filter((r) => r.request_id !== item.request_id);
  let at = rest.length;
  while (at > 0 && rest[at - 1]!.knocked_at > item.knocked_at) at -= 1;
  const items = [...rest.slice(0, at), item, ...rest.slice(at)];
  return { items, effects: [...edit.effects, { do: 'insertRow', item, before: rest[at]?.request_id ?? null }] };
}

/** The notification for those of the group still waiting; gone when nobody is left. */
function drawn(state: WaitingListState): WaitingListStep {
  const members = (state.group?.members ?? []).flatMap((id) => state.items.filter((r) => r.request_id === id));
  if (members.length === 0)
    return { state: { ...state, noticeShown: false, group: null }, effects: [{ do: 'noticeGone' }] };
  if (state.sharing) return { state, effects: [] };
  return { state: { ...state, noticeShown: true }, effects: [{ do: 'notice', members }] };
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

/** The whole list at `seq` (on connect, on becoming a moderator, after a resync). */
function replace(state: WaitingListState, requests: readonly WaitingItem[], seq: number, now: number): WaitingListStep {
  const items = requests.reduce((edit, r) => insert(edit, r), { items: [], effects: [] } as Edit).items;
  return merge([{ do: 'rebuild' }], settled({ ...state, seq, items }, requests, now));
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
  let edit: Edit = { items: state.items, effects: [] };
  // Those whose grace ran out are named before their rows go (the server says who, by id).
  for (const id of change.timed_out ?? []) {
    const held = edit.items.find((r) => r.request_id === id);
    if (held) edit.effects.push({ do: 'connection', name: held.name, how: 'gone' });
  }
  for (const id of change.removed) edit = remove(edit, id);
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
      items: edit.items.map((held) => (held.request_id === r.request_id ? r : held)),
      effects: [...edit.effects, { do: 'replaceRow', item: r }, ...told],
    };
  }
  return merge(edit.effects, settled({ ...state, seq: change.seq, items: edit.items }, change.added, now));
}

/** The server's word on the waiting-room switch: a change after the first is announced. */
function switched(state: WaitingListState, enabled: boolean, switchable: boolean): WaitingListStep {
  const changed = state.switch !== null && state.switch.enabled !== enabled;
  return {
    state: { ...state, switch: { enabled, switchable } },
    effects: changed ? [{ do: 'announce', said: enabled ? 'turnedOn' : 'turnedOff' }] : [],
  };
}

export function receiveWaiting(
  state: WaitingListState,
  message: Extract<ServerMessage, { type: 'waiting_list' | 'waiting_changes' | 'waiting_room' }>,
  now: number,
): WaitingListStep {
  switch (message.type) {
    case 'waiting_list':
      return replace(state, message.requests, message.seq, now);
    case 'waiting_changes':
      return apply(state, message, now);
    case 'waiting_room':
      return switched(state, message.enabled, message.switchable);
  }
}

/** She answered a request from the notification: its row goes now, before the server's change (which then finds nothing). */
export function answered(state: WaitingListState, id: string): WaitingListStep {
  const edit = remove({ items: state.items, effects: [] }, id);
  return { state: { ...state, items: edit.items }, effects: edit.effects };
}

/** The notification is put away (dismissed, or she acted on it); its group stays, so a knock close after joins it. */
export function hideNotice(state: WaitingListState): WaitingListState {
  return { ...state, noticeShown: false };
}

/** While anyone shares a screen the notification stays out of the way. */
export function setSharing(state: WaitingListState, sharing: boolean): WaitingListState {
  return { ...state, sharing, noticeShown: sharing ? false : state.noticeShown };
}
