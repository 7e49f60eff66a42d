import type { ClientMessage, Locks } from '../protocol/live.js';
import { button, el, field } from './dom.js';
import { locksForm } from './moderator.js';
import { fill, words } from './words/index.js';

const said = words.moderation;

/** The server's limit (engine/meetings/subject.ts), checked here first. */
const subjectMax = 128;

/** The Moderation tab: the meeting's subject, the locks and the sub-groups. Empty for a participant. */
export class ModerationTools {
  readonly element = el('div', { class: 'moderation' });
  private readonly subjectInput = el('input', { name: 'subject', maxlength: subjectMax, autocomplete: 'off' });
  private readonly subjectForm = el(
    'form',
    { 'aria-label': said.subjectForm },
    field(said.subjectForm, this.subjectInput, said.subjectHint),
    el('button', { type: 'submit', text: said.setSubject }),
  );

  constructor(private readonly send: (message: ClientMessage) => void) {
    this.subjectForm.addEventListener('submit', (event) => {
      event.preventDefault();
      send({ type: 'subject', subject: this.subjectInput.value.trim().slice(0, subjectMax) });
    });
  }

  /** The subject the server holds, unless she is typing one. */
  subject(next: string): void {
    if (document.activeElement !== this.subjectInput) this.subjectInput.value = next;
  }

  render(moderator: boolean, locks: Locks, subgroups: readonly string[]): void {
    if (!moderator) {
      this.element.replaceChildren();
      return;
    }
    const count = el('input', { type: 'number', min: 1, max: 20, value: 2 });
    this.element.replaceChildren(
      el(
        'section',
        { 'aria-labelledby': 'subject-heading' },
        el('h2', { id: 'subject-heading', text: said.subject }),
        this.subjectForm,
      ),
      locksForm(locks, (next) => this.send({ type: 'lock', locks: next })),
      el(
        'section',
        { 'aria-labelledby': 'groups-heading' },
        el('h2', { id: 'groups-heading', text: said.subgroups }),
        field(said.count, count),
        button(said.create, () => this.send({ type: 'create_subgroups', count: Number(count.value) })),
        subgroups.length ? el('p', { text: fill(said.list, { names: subgroups.join(', ') }) }) : null,
        subgroups.length ? button(said.bringBack, () => this.send({ type: 'bring_back' })) : null,
      ),
    );
  }
}
