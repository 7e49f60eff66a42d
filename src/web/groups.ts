import type { ClientMessage, SubgroupInfo } from '../protocol/live.js';
import { button, el, field } from './dom.js';
import { groupOf, isModerator, type MeetingState } from './state/meeting.js';
import { fill, words } from './words/index.js';

const said = words.groups;

/** A group as people read it: the name the moderator chose, else "Group 2" in the page's language. Text, never markup. */
export const groupLabel = (g: SubgroupInfo): string => g.name || fill(said.numbered, { number: g.number });

/** Hours and minutes of an ISO time, as the page's language writes them. */
export const clockTime = (iso: string): string =>
  new Date(iso).toLocaleTimeString(document.documentElement.lang || 'en', { hour: '2-digit', minute: '2-digit' });

/**
 * Above the stage, for everyone of the family: the group she is in (a visiting moderator's way
 * back), when the groups' timer brings everyone back, and a moderator's message to all groups.
 */
export class GroupsBar {
  readonly element = el('div', { class: 'groups-bar', hidden: true });

  constructor(
    private readonly roomId: string,
    private readonly back: () => void,
    private readonly hide: () => void,
  ) {}

  render(state: MeetingState): void {
    const group = groupOf(state, this.roomId);
    const message = state.groupMessage;
    const parts = [
      group ? el('p', { class: 'group-place', text: fill(said.youAreIn, { name: groupLabel(group) }) }) : null,
      group && isModerator(state) ? button(said.backToMain, this.back) : null,
      state.groupsEndAt ? el('p', { text: fill(said.endsAt, { time: clockTime(state.groupsEndAt) }) }) : null,
      message
        ? el('p', { class: 'group-message', text: fill(said.messageFrom, { name: message.from, text: message.text }) })
        : null,
      message ? button(said.hideMessage, this.hide) : null,
    ].filter((part) => part !== null);
    this.element.replaceChildren(...parts);
    this.element.hidden = parts.length === 0;
  }
}

/**
 * The sub-groups part of the Moderation tab: create them with names, see them and visit one,
 * assign several or everyone (evenly or at random), the timer, and a message to all groups. The
 * fields are made once, so a redraw (someone arrives, a group is named) keeps what she typed.
 */
export class GroupTools {
  private readonly count = el('input', { type: 'number', min: 1, max: 20, value: 2 });
  private readonly names = el('textarea', { rows: 3 });
  private readonly list = el('ul', { class: 'group-list', 'aria-label': said.list });
  private readonly people = el('div', { class: 'assign-people' });
  private readonly chosen = new Set<string>();
  private readonly modes = {
    even: el('input', { type: 'radio', name: 'assign-mode', value: 'even', checked: true }),
    random: el('input', { type: 'radio', name: 'assign-mode', value: 'random' }),
  };
  private readonly assign = el('fieldset', { class: 'assign' });
  private readonly minutes = el('input', { type: 'number', min: 1, max: 240, value: 15 });
  private readonly timer = el('div', { class: 'group-timer' });
  private readonly messageInput = el('input', { maxlength: 500, autocomplete: 'off' });
  private readonly live = el('div', { class: 'groups-live' });
  readonly element: HTMLElement;
  private others: string[] = [];

  constructor(
    private readonly send: (message: ClientMessage) => void,
    private readonly roomId: string,
  ) {
    const create = () => {
      const names = this.names.value
        .split('\n')
        .map((n) => n.trim())
        .filter(Boolean);
      const count = Math.max(Number(this.count.value) || 1, names.length);
      this.count.value = String(count);
      send({ type: 'create_subgroups', count, ...(names.length ? { names } : {}) });
    };
    const message = el(
      'form',
      { 'aria-label': said.message },
      field(said.message, this.messageInput),
      el('button', { type: 'submit', text: said.sendMessage }),
    );
    message.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.messageInput.value.trim();
      if (!text) return;
      send({ type: 'group_message', text });
      this.messageInput.value = '';
    });
    const pick = (mode: 'even' | 'random', ids: string[]) =>
      ids.length && send({ type: 'assign_subgroups', participant_ids: ids, mode });
    const mode = () => (this.modes.random.checked ? 'random' : 'even');
    this.assign.append(
      el('legend', { text: said.assign }),
      this.people,
      el(
        'fieldset',
        {},
        el('legend', { text: said.mode }),
        el('label', {}, this.modes.even, ` ${said.even}`),
        ' ',
        el('label', {}, this.modes.random, ` ${said.random}`),
      ),
      button(said.assignSelected, () =>
        pick(
          mode(),
          this.others.filter((id) => this.chosen.has(id)),
        ),
      ),
      ' ',
      button(said.assignEveryone, () => pick(mode(), this.others)),
    );
    this.live.append(this.list, this.assign, this.timer, message);
    this.element = el(
      'section',
      { 'aria-labelledby': 'groups-heading' },
      el('h2', { id: 'groups-heading', text: words.moderation.subgroups }),
      field(words.moderation.count, this.count),
      field(said.names, this.names, said.namesHint),
      button(words.moderation.create, create),
      this.live,
    );
  }

  render(state: MeetingState): void {
    const here = groupOf(state, this.roomId);
    this.live.hidden = state.groups.length === 0;
    const self = state.self?.participant_id;
    this.list.replaceChildren(
      ...state.groups.map((g) =>
        el(
          'li',
          {},
          el('span', { text: groupLabel(g) }),
          ' ',
          g.room_id === this.roomId || !self
            ? null
            : button(said.visit, () => this.send({ type: 'move', participant_id: self, room_id: g.room_id }), {
                'aria-label': fill(said.visitName, { name: groupLabel(g) }),
              }),
        ),
      ),
      el(
        'li',
        {},
        button(words.moderation.bringBack, () => this.send({ type: 'bring_back' })),
      ),
    );
    // Assigning is done from the main room, to the people there.
    const others = [...state.participants.values()].filter((p) => p.participant_id !== self);
    this.others = others.map((p) => p.participant_id);
    const focused = document.activeElement?.getAttribute('data-pid');
    this.people.replaceChildren(
      ...(others.length ? [] : [el('p', { class: 'hint', text: said.nobody })]),
      ...others.map((p) => {
        const box = el('input', {
          type: 'checkbox',
          'data-pid': p.participant_id,
          checked: this.chosen.has(p.participant_id),
        });
        box.addEventListener('change', () =>
          box.checked ? this.chosen.add(p.participant_id) : this.chosen.delete(p.participant_id),
        );
        return el('label', { class: 'assign-person' }, box, ' ', document.createTextNode(p.name));
      }),
    );
    if (focused) this.people.querySelector<HTMLElement>(`[data-pid="${CSS.escape(focused)}"]`)?.focus();
    this.assign.hidden = here !== null;
    this.timer.replaceChildren(
      ...(state.groupsEndAt
        ? [
            el('p', { text: fill(said.endsAt, { time: clockTime(state.groupsEndAt) }) }),
            button(said.cancelTimer, () => this.send({ type: 'subgroup_timer', minutes: null })),
          ]
        : [
            field(said.timer, this.minutes),
            button(said.startTimer, () =>
              this.send({ type: 'subgroup_timer', minutes: Math.round(Number(this.minutes.value)) }),
            ),
          ]),
    );
  }
}
