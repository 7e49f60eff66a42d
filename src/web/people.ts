import type { ClientMessage, ParticipantView, SubgroupInfo } from '../protocol/live.js';
import { badge, button, el, field } from './dom.js';
import { groupLabel } from './groups.js';
import { nameAdvice } from './name-advice.js';
import { RemoveConfirm } from './removal.js';
import { fill, words } from './words/index.js';

const said = words.people;

/** The server's limit (engine/waiting/knock-fields.ts), checked here first to say why at once. */
const nameMax = 64;

export interface PeopleState {
  readonly participants: () => ReadonlyMap<string, ParticipantView>;
  readonly self: () => ParticipantView | null;
  readonly isModerator: () => boolean;
  readonly groups: () => readonly SubgroupInfo[];
  readonly send: (message: ClientMessage) => void;
  /** A moderator's further controls beside someone else (Mute <name>). */
  readonly controlsFor?: (p: ParticipantView) => (Node | string)[];
  /** Shown between the Waiting section and the participants (the moderator's raised hands). */
  readonly above?: HTMLElement;
}

/** The People tab: the moderator's Waiting section on top, the participants, her own rename and the moves to sub-groups. */
export class PeopleList {
  private readonly list = el('ul', { 'aria-label': said.heading });
  private readonly heading = el('h2', { id: 'people-heading', text: said.heading });
  private readonly renameInput = el('input', { name: 'name', maxlength: nameMax, autocomplete: 'name' });
  private readonly renameHint = el('p', { class: 'hint', 'aria-live': 'polite' });
  private readonly renameForm: HTMLFormElement;
  private readonly waitingSlot = el('div');
  readonly element: HTMLElement;
  /** A rename was sent and its answer (state or error) is awaited. */
  renaming = false;
  /** The sub-group chosen for each participant, kept across redraws until the move is sent. */
  private readonly moveChoices = new Map<string, string>();
  private readonly confirm = new RemoveConfirm();

  constructor(private readonly state: PeopleState) {
    this.renameForm = el(
      'form',
      { class: 'rename', hidden: true, 'aria-label': said.changeName },
      field(said.yourName, this.renameInput),
      this.renameHint,
      el('button', { type: 'submit', text: said.saveName }),
      button(said.cancel, () => this.closeRename()),
    );
    this.renameForm.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!this.rename(this.renameInput.value)) {
        this.renameHint.textContent =
          this.renameInput.value.trim() === '' ? said.typeName : nameAdvice(this.renameInput.value);
        return;
      }
      if (this.renameInput.value.trim() === state.self()?.name) this.closeRename();
    });
    this.element = el(
      'div',
      {},
      this.waitingSlot,
      state.above,
      el('section', { 'aria-labelledby': 'people-heading' }, this.heading, this.list, this.renameForm),
      this.confirm.dialog,
    );
  }

  /** The Waiting section, on top for a moderator; gone for the others. */
  setWaiting(section: HTMLElement | null): void {
    this.waitingSlot.replaceChildren(...(section ? [section] : []));
  }

  render(): void {
    const { participants, self, isModerator } = this.state;
    const me = self()?.participant_id;
    const items = [...participants().values()].map((p) => {
      const item = el(
        'li',
        {},
        el('span', { class: 'name', text: p.name }),
        p.role === 'moderator' ? badge(said.moderator) : null,
      );
      if (p.participant_id === me) {
        item.append(
          ' ',
          button(said.changeName, () => this.openRename(), {
            'aria-label': said.changeName,
            'aria-expanded': String(!this.renameForm.hidden),
          }),
        );
      }
      if (isModerator() && p.participant_id !== me && this.state.groups().length > 0) item.append(this.moveControl(p));
      if (isModerator() && p.participant_id !== me)
        item.append(...(this.state.controlsFor?.(p) ?? []), ' ', this.removeButton(p));
      return item;
    });
    // The list is redrawn whenever someone's media state changes: the control that had the
    // focus gets it back, so a moderator choosing a sub-group is not thrown out of the list.
    const focused = this.list.contains(document.activeElement)
      ? document.activeElement?.getAttribute('aria-label')
      : null;
    this.list.replaceChildren(...items);
    if (focused)
      [...this.list.querySelectorAll<HTMLElement>('[aria-label]')]
        .find((e) => e.getAttribute('aria-label') === focused)
        ?.focus();
  }

  /** Sends a rename if the name may be one; false when it is empty or too long. */
  rename(name: string): boolean {
    const next = name.trim();
    // The length is checked here to say why at once; the rest of the rule is the server's.
    if (next === '' || [...next].length > nameMax) return false;
    if (next === this.state.self()?.name) return true;
    this.renaming = true;
    this.state.send({ type: 'rename', name: next });
    return true;
  }

  /** The server refused the rename: say why where it was typed. */
  refused(text: string | null): void {
    this.renaming = false;
    this.renameHint.textContent = text ?? nameAdvice(this.renameInput.value);
  }

  closeRename(): void {
    this.renameForm.hidden = true;
    this.renaming = false;
    this.render();
    [...this.list.querySelectorAll<HTMLElement>('[aria-label]')]
      .find((e) => e.getAttribute('aria-label') === said.changeName)
      ?.focus();
  }

  private openRename(): void {
    this.renameInput.value = this.state.self()?.name ?? '';
    this.renameHint.textContent = '';
    this.renameForm.hidden = false;
    this.render();
    // In view, wherever the list put it (below the fold on a phone), with the focus in it.
    this.renameInput.focus({ preventScroll: true });
    this.renameForm.scrollIntoView({ block: 'nearest' });
  }

  /** Asks first (RemoveConfirm); the server decides whether she may. Focus: her button after a cancel, the heading after a removal. */
  private removeButton(p: ParticipantView): HTMLButtonElement {
    const label = fill(said.removeName, { name: p.name });
    const find = () =>
      [...this.list.querySelectorAll<HTMLElement>('[aria-label]')].find(
        (e) => e.getAttribute('aria-label') === label,
      ) ?? null;
    const remove = () => this.state.send({ type: 'remove', participant_id: p.participant_id });
    return button(
      said.remove,
      () => this.confirm.ask(p, remove, (removed) => (removed ? this.focusHeading() : find())),
      { 'aria-label': label },
    );
  }

  private focusHeading(): HTMLElement {
    this.heading.tabIndex = -1;
    return this.heading;
  }

  private moveControl(p: ParticipantView): HTMLElement {
    const groups = this.state.groups();
    const select = el(
      'select',
      { 'aria-label': fill(said.subgroupFor, { name: p.name }) },
      ...groups.map((g) => el('option', { value: g.room_id, text: groupLabel(g) })),
    );
    const chosen = this.moveChoices.get(p.participant_id);
    if (chosen !== undefined && groups.some((g) => g.room_id === chosen)) select.value = chosen;
    select.addEventListener('change', () => this.moveChoices.set(p.participant_id, select.value));
    const move = () => {
      this.moveChoices.delete(p.participant_id);
      this.state.send({ type: 'move', participant_id: p.participant_id, room_id: select.value });
    };
    return el('span', {}, select, button(said.move, move, { 'aria-label': fill(said.moveName, { name: p.name }) }));
  }
}
