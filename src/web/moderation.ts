import type { ClientMessage } from '../protocol/live.js';
import { el, field } from './dom.js';
import { GroupTools } from './groups.js';
import { locksForm } from './locks-form.js';
import { isModerator, type MeetingState } from './state/meeting.js';
import { words } from './words/index.js';

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

  private readonly groups: GroupTools;

  constructor(
    private readonly send: (message: ClientMessage) => void,
    roomId: string,
  ) {
    this.groups = new GroupTools(send, roomId);
    this.subjectForm.addEventListener('submit', (event) => {
      event.preventDefault();
      send({ type: 'subject', subject: this.subjectInput.value.trim().slice(0, subjectMax) });
    });
  }

  /** The subject the server holds, unless she is typing one. */
  subject(next: string): void {
    if (document.activeElement !== this.subjectInput) this.subjectInput.value = next;
  }

  /** The whole tab again when her role or the locks change; otherwise only the sub-groups' lists. */
  render(state: MeetingState, whole: boolean): void {
    if (!isModerator(state)) {
      this.element.replaceChildren();
      return;
    }
    this.groups.render(state);
    if (!whole) return;
    this.element.replaceChildren(
      el(
        'section',
        { 'aria-labelledby': 'subject-heading' },
        el('h2', { id: 'subject-heading', text: said.subject }),
        this.subjectForm,
      ),
      locksForm(state.locks, (next) => this.send({ type: 'lock', locks: next })),
      this.groups.element,
    );
  }
}
