import { announce } from './announce.js';
import { roomApi, type Joined } from './api.js';
import { el, field } from './dom.js';
import { lastName, linkHint, rememberName } from './join-link.js';
import { nameAdvice } from './name-advice.js';
import { fill, fillNode, words } from './words/index.js';

export interface ArrivalOutcome {
  readonly joined: Joined | null;
  /** What the person typed, for the knock that follows. */
  readonly name: string;
  readonly accessCode: string;
  /** Her note to the moderator, sent with the knock when she must wait. */
  readonly note: string;
}

/**
 * Name and (when the room has one) access code on one screen. The code is checked by the
 * server before anything reaches a moderator; a wrong one is shown here.
 */
export function arrivalScreen(
  roomId: string,
  roomHasCode: boolean,
  joinToken: string | null,
  done: (outcome: ArrivalOutcome) => void,
): HTMLElement {
  const hint = linkHint(joinToken);
  // A moderator's link enters without the code: asking for it would only block her (a required field).
  const needsCode = roomHasCode && !hint.moderator;
  // A bare link asks for a name and offers the one last typed on this device.
  const name = el('input', {
    name: 'name',
    autocomplete: 'name',
    required: true,
    maxlength: 64,
    value: joinToken ? '' : lastName(),
  });
  // A link that names her: the server takes that name whatever is typed, so the page says it instead of asking.
  const nameRow = hint.name ? joiningAs(hint.name) : field(words.arrival.yourName, name);
  const code = el('input', {
    name: 'access_code',
    type: 'password',
    autocomplete: 'off',
    required: true,
    maxlength: 64,
  });
  // One button for everyone: who must wait asks to join with it, so her optional note is written here.
  const note = el('textarea', { name: 'note', maxlength: 280, rows: 2 });
  const error = el('p', { class: 'error', role: 'alert', id: 'arrival-error', hidden: true });
  const submit = el('button', { type: 'submit', text: words.arrival.join });
  const form = el(
    'form',
    { 'aria-labelledby': 'arrival-heading' },
    el('h1', { id: 'arrival-heading', text: words.arrival.heading }),
    nameRow,
    needsCode ? field(words.arrival.accessCode, code) : null,
    hint.moderator ? null : field(words.waiting.note, note, words.arrival.noteHint),
    error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // Refusals come back as results; anything thrown beyond them still gets a message and a usable button.
    send().catch(() => {
      submit.disabled = false;
      error.textContent = describe('unexpected');
      error.hidden = false;
    });
  });
  async function send(): Promise<void> {
    error.hidden = true;
    for (const input of [name, code]) input.removeAttribute('aria-invalid');
    const typed = hint.name ?? name.value.trim();
    if (!typed) {
      error.textContent = words.arrival.enterName;
      error.hidden = false;
      name.focus();
      return;
    }
    if (!joinToken) rememberName(typed);
    submit.disabled = true;
    const result = await roomApi.start(roomId, {
      name: typed,
      ...(needsCode ? { access_code: code.value } : {}),
      ...(joinToken ? { t: joinToken } : {}),
    });
    submit.disabled = false;
    if (!result.ok) {
      error.textContent = describe(result.error.code, {
        retryAfter: result.error.retryAfter,
        field: result.error.field,
        name: typed,
      });
      error.hidden = false;
      const wrong = result.error.code === 'access_code_invalid' ? code : name;
      // The field that was refused says so, and its description is the sentence above.
      wrong.setAttribute('aria-invalid', 'true');
      wrong.setAttribute('aria-errormessage', error.id);
      wrong.focus();
      return;
    }
    // Who must wait hears the waiting screen's "Asking to join…" instead.
    if (result.body.status === 'joined') announce(words.arrival.joining);
    done({
      joined: result.body.status === 'joined' ? result.body : null,
      name: typed,
      accessCode: code.value,
      note: note.value,
    });
  }
  return form;
}

/** "Joining as Ann": the name a join link carries, shown where a bare link asks for one. */
export function joiningAs(who: string): HTMLElement {
  return el('p', { class: 'joining-as' }, ...fillNode(words.arrival.joiningAs, 'name', el('strong', { text: who })));
}

export interface ErrorDetail {
  readonly retryAfter?: number | null;
  /** The field the server named (invalid_field). */
  readonly field?: string | null;
  /** The name that was sent, to say what is wrong with it. */
  readonly name?: string;
}

export function describe(code: string, { retryAfter = null, field = null, name = '' }: ErrorDetail = {}): string {
  const said = words.errors;
  switch (code) {
    case 'access_code_invalid':
    case 'barred':
    case 'join_token_invalid':
    case 'subgroup_closed':
    case 'waiting_room_full':
    case 'room_not_found':
    case 'guest_denied':
      return said[code];
    case 'too_many_attempts':
      return fill(said.too_many_attempts, { seconds: retryAfter ?? 60 });
    case 'too_many_knocks':
    case 'too_many_waiting':
    case 'too_many_requests': // nginx's limit in front of the room addresses (its JSON 429)
      return fill(said.too_many_knocks, { seconds: retryAfter ?? 30 });
    case 'invalid_field':
      if (field === 'name') return nameAdvice(name);
      if (field === 'note') return said.note_invalid;
      return said.fields_invalid;
    default:
      return said.unexpected;
  }
}
