import type { ClientMessage, ParticipantView, Reaction } from '../protocol/live.js';
import { reactions } from '../protocol/live.js';
import { announce } from './announce.js';
import { button, el } from './dom.js';
import { icon } from './icons.js';
import type { Stage } from './stage.js';
import {
  handPlace,
  handsChanged,
  initialClassroom,
  personGone,
  reacted,
  reactionOver,
  type ClassroomSaid,
  type ClassroomState,
  type Context,
} from './state/classroom.js';
import type { MeetingEffect, MeetingState } from './state/meeting.js';
import { tool, type ShortcutEntry } from './toolbar.js';
import { fill, words } from './words/index.js';

const said = words.classroom;
/** How long a reaction stays on the tile. */
const reactionMs = 4000;

function sentence(s: ClassroomSaid): string {
  switch (s.key) {
    case 'yourHandRaised':
    case 'yourHandLowered':
      return said[s.key];
    case 'handRaised':
    case 'handLowered':
      return fill(said[s.key], { name: s.name });
    case 'reacted':
      return fill(said.reacted, { name: s.name, reaction: said[s.reaction] });
  }
}

/**
 * The everyday controls of a lesson (issue 31 point 10) in the meeting view: Raise hand and
 * React in the toolbar, the raised hands (a list in People for moderators, a mark on every
 * tile), Mute <name> beside each person for moderators, a note when a moderator muted her, and
 * "End meeting for everyone" behind a confirmation dialog in the Moderation tab. The state is
 * state/classroom.ts's; the server decides who may do what.
 */
export class ClassroomView {
  private state: ClassroomState = initialClassroom;
  private readonly timers = new Set<number>();
  private readonly hand = tool(said.raiseHand, 'hand', 'H', () => this.toggleHand(), { 'aria-pressed': 'false' });
  private readonly react = tool(said.react, 'react', null, () => this.toggleMenu(), {
    'aria-expanded': 'false',
    'aria-controls': 'reactions-menu',
  });
  /** React's menu: a row at the foot of the stage (in the flow, so it covers no other control). */
  readonly menu = el(
    'div',
    { class: 'reactions-menu', id: 'reactions-menu', role: 'group', 'aria-label': said.reactions, hidden: true },
    ...reactions.map((r) => tool(said[r], r, null, () => this.sendReaction(r), { class: 'tool reaction' }).button),
  );
  /** Toolbar controls: Raise hand, and React (its menu is `menu`). */
  readonly tools = el('div', { class: 'tool-group classroom-tools' }, this.hand.button, this.react.button);
  readonly shortcut: ShortcutEntry = { what: words.help.hand, key: 'H', run: () => this.hand.button.click() };
  private readonly handsHeading = el('h2', { id: 'hands-heading', text: said.hands, tabindex: -1 });
  private readonly handsList = el('ol', { class: 'hands', 'aria-labelledby': 'hands-heading' });
  private readonly noHands = el('p', { class: 'hint', text: said.noHands });
  /** Moderators: the raised hands in raising order, above the participants in People. */
  readonly handsSection = el(
    'section',
    { 'aria-labelledby': 'hands-heading', hidden: true },
    this.handsHeading,
    this.noHands,
    this.handsList,
  );
  /** Under her own controls after a moderator muted her, until she unmutes. */
  readonly mutedNote = el('p', { class: 'hint muted-note', hidden: true });
  private readonly endButton = button(said.endMeeting, () => this.confirmEnd(), { class: 'danger' });
  private readonly endDialog = el(
    'dialog',
    { class: 'help end-confirm', 'aria-labelledby': 'end-question', 'aria-describedby': 'end-explained' },
    el('h2', { id: 'end-question', text: said.endQuestion }),
    el('p', { id: 'end-explained', text: said.endExplained }),
    el(
      'p',
      {},
      button(said.cancel, () => this.endDialog.close()),
      ' ',
      button(said.endMeeting, () => this.end(), { class: 'danger' }),
    ),
  );
  /** Moderators: in the Moderation tab. */
  readonly endSection = el('section', { class: 'end-meeting', hidden: true }, this.endButton, this.endDialog);

  constructor(
    private readonly send: (message: ClientMessage) => void,
    private readonly stage: Pick<Stage, 'figure'>,
    private readonly meeting: () => MeetingState,
  ) {
    this.menu.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      this.closeMenu(true);
    });
    this.endDialog.addEventListener('close', () => this.endButton.focus());
    // Focus stays in the dialog: Tab past its last button comes back to the first, and back.
    this.endDialog.addEventListener('keydown', (event) => {
      if (event.key !== 'Tab') return;
      const buttons = [...this.endDialog.querySelectorAll('button')];
      const edge = event.shiftKey ? buttons[0] : buttons[buttons.length - 1];
      if (document.activeElement !== edge) return;
      event.preventDefault();
      (event.shiftKey ? buttons[buttons.length - 1] : buttons[0])?.focus();
    });
  }

  /** What the meeting's reducer hands over: the hands, a reaction, a moderator having muted her. */
  perform(effect: Extract<MeetingEffect, { do: 'hands' | 'reaction' | 'mutedBy' }>): void {
    if (effect.do === 'mutedBy') {
      this.mutedNote.textContent = fill(words.meeting.mutedBy, { name: effect.name });
      this.mutedNote.hidden = false;
      return;
    }
    const step =
      effect.do === 'hands'
        ? handsChanged(this.state, effect.hands, this.context())
        : reacted(this.state, effect.participant_id, effect.reaction, this.context());
    const before = this.state;
    this.state = step.state;
    for (const s of step.said) announce(sentence(s));
    if (effect.do === 'reaction') this.expire(effect.participant_id);
    this.redraw(before);
  }

  /** The meeting's state changed: her own microphone on again takes the note away; the role shows or hides the moderator's parts. */
  draw(state: MeetingState, before: MeetingState): void {
    if (state.audio && !before.audio) this.mutedNote.hidden = true;
    const moderator = state.self?.role === 'moderator';
    this.handsSection.hidden = !moderator;
    this.endSection.hidden = !moderator;
    if (state.participants !== before.participants) {
      for (const id of before.participants.keys()) if (!state.participants.has(id)) this.gone(id);
      this.drawHands();
    }
  }

  /** A tile was drawn (or drawn again after a reconnect): its marks come back. */
  tile(participantId: string): void {
    const figure = this.stage.figure(participantId);
    if (!figure) return;
    let marks = figure.querySelector<HTMLElement>('.tile-marks');
    if (!marks) figure.append((marks = el('div', { class: 'tile-marks' })));
    const place = handPlace(this.state, participantId);
    const shown = this.state.reactions.get(participantId);
    marks.replaceChildren(
      ...(place === null
        ? []
        : [
            el(
              'span',
              { class: 'tile-hand' },
              icon('hand'),
              el('span', { 'aria-hidden': 'true', text: String(place) }),
              el('span', { class: 'visually-hidden', text: fill(said.handOnTile, { place }) }),
            ),
          ]),
      ...(shown ? [el('span', { class: 'tile-reaction', 'data-reaction': shown.reaction }, icon(shown.reaction))] : []),
    );
  }

  /** Moderators: Mute <name> beside someone whose microphone is on (nobody can turn it on for her). */
  controlsFor(p: ParticipantView): (Node | string)[] {
    if (!p.audio) return [];
    const label = fill(said.muteName, { name: p.name });
    return [
      ' ',
      button(said.mute, () => this.send({ type: 'mute', participant_id: p.participant_id }), { 'aria-label': label }),
    ];
  }

  close(): void {
    for (const timer of this.timers) window.clearTimeout(timer);
    this.timers.clear();
    if (this.endDialog.open) this.endDialog.close();
  }

  private context(): Context {
    const state = this.meeting();
    return {
      self: state.self?.participant_id,
      moderator: state.self?.role === 'moderator',
      names: new Map([...state.participants.values()].map((p) => [p.participant_id, p.name])),
    };
  }

  private gone(participantId: string): void {
    const before = this.state;
    this.state = personGone(this.state, participantId);
    if (before !== this.state) this.redraw(before);
  }

  private redraw(before: ClassroomState): void {
    const self = this.meeting().self?.participant_id;
    const raised = handPlace(this.state, self) !== null;
    this.hand.set(raised ? said.lowerHand : said.raiseHand, 'hand');
    this.hand.button.setAttribute('aria-pressed', String(raised));
    const ids = new Set([
      ...before.hands.map((h) => h.participant_id),
      ...this.state.hands.map((h) => h.participant_id),
      ...before.reactions.keys(),
      ...this.state.reactions.keys(),
    ]);
    for (const id of ids) this.tile(id);
    if (before.hands !== this.state.hands) this.drawHands();
  }

  /** The moderator's list: a lowered hand's row goes, and the focus goes to the next row's button, or the heading. */
  private drawHands(): void {
    const names = this.context().names;
    const buttons = [...this.handsList.querySelectorAll('button')];
    const focusedAt = buttons.findIndex((b) => b === document.activeElement);
    const rows = this.state.hands
      .filter((h) => names.has(h.participant_id))
      .map((h) => {
        const name = names.get(h.participant_id) ?? '';
        return el(
          'li',
          {},
          el('span', { class: 'name', text: name }),
          ' ',
          button(said.lower, () => this.send({ type: 'lower_hand', participant_id: h.participant_id }), {
            'aria-label': fill(said.lowerHandOf, { name }),
          }),
        );
      });
    this.handsList.replaceChildren(...rows);
    this.noHands.hidden = rows.length > 0;
    if (focusedAt < 0) return;
    const next = [...this.handsList.querySelectorAll('button')];
    (next[Math.min(focusedAt, next.length - 1)] ?? this.handsHeading).focus();
  }

  private toggleHand(): void {
    const raised = handPlace(this.state, this.meeting().self?.participant_id) !== null;
    this.send({ type: 'hand', raised: !raised });
  }

  private toggleMenu(): void {
    if (!this.menu.hidden) return this.closeMenu(false);
    this.menu.hidden = false;
    this.react.button.setAttribute('aria-expanded', 'true');
    this.menu.querySelector('button')?.focus();
  }

  private closeMenu(refocus: boolean): void {
    this.menu.hidden = true;
    this.react.button.setAttribute('aria-expanded', 'false');
    if (refocus) this.react.button.focus();
  }

  private sendReaction(reaction: Reaction): void {
    this.send({ type: 'react', reaction });
    this.closeMenu(true);
  }

  private expire(participantId: string): void {
    const shown = this.state.reactions.get(participantId)?.shown;
    if (shown === undefined) return;
    const timer = window.setTimeout(() => {
      this.timers.delete(timer);
      const before = this.state;
      this.state = reactionOver(this.state, participantId, shown);
      if (before !== this.state) this.redraw(before);
    }, reactionMs);
    this.timers.add(timer);
  }

  private confirmEnd(): void {
    if (!this.endDialog.open) this.endDialog.showModal();
    this.endDialog.querySelector('button')?.focus();
  }

  private end(): void {
    this.send({ type: 'end_meeting' });
    this.endDialog.close();
  }
}
