import type { WaitingItem, WaitingOutcome } from '../protocol/live.js';
import { button, el } from './dom.js';
import type { Answer, Decided } from './state/waiting-list.js';
import { fill, words } from './words/index.js';

const said = words.waitingList;

/** What a row's controls do: answer it, or take a refusal back. */
export interface RowActions {
  /** `pointer`: a click of a pointer (not a key, whose focus does not move with the list). */
  readonly decide: (r: WaitingItem, how: Answer, pointer: boolean) => void;
  readonly undo: (r: WaitingItem) => void;
}

/**
 * One person in the moderator's waiting list. Waiting: her name, "connection lost" while her page is silent
 * (her place kept), "barred earlier as …" when her name
 * is that of a person barred in this meeting (the server's mark), her note, Admit, Refuse, Refuse and bar.
 * Answered (by her, or elsewhere: another moderator, the person left): the same row in the same place, its outcome
 * in words instead of the three buttons (her refusal with Undo until it is sent), so nothing below it moves until
 * the list closes up.
 */
export function waitingRow(r: WaitingItem, decided: Decided | undefined, on: RowActions): HTMLElement {
  const mark = r.barred_as === undefined ? null : fill(said.barredEarlier, { name: r.barred_as });
  return el(
    'li',
    {
      class: `waiting-item${decided ? ' decided' : ''}${r.connection_lost ? ' lost' : ''}`,
      'data-request-id': r.request_id,
    },
    el('strong', { text: r.name }),
    // Her page fell silent: her place is kept through the grace, and the moderator sees why she may not answer.
    r.connection_lost ? el('span', { class: 'connection-lost', text: ` ${said.connectionLost}` }) : null,
    mark ? el('span', { class: 'mark', text: mark }) : null,
    r.note ? el('span', { class: 'note', text: r.note }) : null,
    decided ? answeredActions(r, decided, on) : openActions(r, on),
  );
}

function openActions(r: WaitingItem, on: RowActions): HTMLElement {
  return el(
    'div',
    { class: 'actions' },
    // A click's `detail` counts pointer clicks; 0 is a key (Enter, Space) or the page itself.
    button(said.admit, (e) => on.decide(r, 'admit', e.detail > 0), {
      'aria-label': fill(said.admitName, { name: r.name }),
      class: 'admit',
    }),
    button(said.refuse, (e) => on.decide(r, 'refuse', e.detail > 0), {
      'aria-label': fill(said.refuseName, { name: r.name }),
    }),
    button(said.refuseAndBar, (e) => on.decide(r, 'bar', e.detail > 0), {
      'aria-label': fill(said.refuseAndBarName, { name: r.name }),
    }),
  );
}

/** What the row says once answered: her answer, or what the server told of it (another moderator, she left, her grace). */
export function outcomeWords(how: Answer | WaitingOutcome): string {
  return {
    admit: said.admitted,
    refuse: said.refusedState,
    bar: said.barredState,
    admitted: said.admittedElsewhere,
    refused: said.refusedElsewhere,
    barred: said.barredElsewhere,
    expired: said.expiredElsewhere,
    left: said.leftElsewhere,
    timed_out: said.timedOutElsewhere,
  }[how];
}

function answeredActions(r: WaitingItem, decided: Decided, on: RowActions): HTMLElement {
  const state = outcomeWords(decided.how);
  const undo =
    decided.how !== 'admit' && !decided.sent
      ? button(said.undo, () => on.undo(r), { 'aria-label': fill(said.undoName, { name: r.name }) })
      : null;
  // Undo where Admit was: a quick second click on Refuse (or Refuse and bar) lands on the answer's words, not on Undo.
  return el('div', { class: 'actions' }, undo, el('span', { class: 'answer', text: state }));
}
