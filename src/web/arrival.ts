import { announce } from './announce.js';
import { roomApi, type Joined } from './api.js';
import { el, field } from './dom.js';
import { lastName, linkHint, rememberName } from './join-link.js';
import { nameAdvice } from './name-advice.js';

export interface ArrivalOutcome {
  readonly joined: Joined | null;
  /** What the person typed, for the knock that follows. */
  readonly name: string;
  readonly accessCode: string;
}

/**
 * Name and (when the room has one) access code on one screen. The code is checked by the
 * server before anything reaches a moderator; a wrong one is shown here.
 */
export function arrivalScreen(roomId: string, roomHasCode: boolean, joinToken: string | null, done: (outcome: ArrivalOutcome) => void): HTMLElement {
  const hint = linkHint(joinToken);
  // A moderator's link enters without the code: asking for it would only block her (a required field).
  const needsCode = roomHasCode && !hint.moderator;
  // A bare link asks for a name and offers the one last typed on this device.
  const name = el('input', { name: 'name', autocomplete: 'name', required: true, maxlength: 64, value: joinToken ? '' : lastName() });
  // A link that names her: the server takes that name whatever is typed, so the page says it instead of asking.
  const nameRow = hint.name ? joiningAs(hint.name) : field('Your name', name);
  const code = el('input', { name: 'access_code', type: 'password', autocomplete: 'off', required: true, maxlength: 64 });
  const error = el('p', { class: 'error', role: 'alert', id: 'arrival-error', hidden: true });
  const submit = el('button', { type: 'submit', text: 'Join' });
  const form = el(
    'form',
    { 'aria-labelledby': 'arrival-heading' },
    el('h1', { id: 'arrival-heading', text: 'Join a meeting' }),
    nameRow,
    needsCode ? field('Access code', code) : null,
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
      error.textContent = 'Please enter your name.';
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
      error.textContent = describe(result.error.code, { retryAfter: result.error.retryAfter, field: result.error.field, name: typed });
      error.hidden = false;
      const wrong = result.error.code === 'access_code_invalid' ? code : name;
      // The field that was refused says so, and its description is the sentence above.
      wrong.setAttribute('aria-invalid', 'true');
      wrong.setAttribute('aria-errormessage', error.id);
      wrong.focus();
      return;
    }
    announce(result.body.status === 'joined' ? 'Joining the meeting' : 'You need to ask to join');
    done({ joined: result.body.status === 'joined' ? result.body : null, name: typed, accessCode: code.value });
  }
  return form;
}

/** "Joining as Ann": the name a join link carries, shown where a bare link asks for one. */
export function joiningAs(who: string): HTMLElement {
  return el('p', { class: 'joining-as' }, 'Joining as ', el('strong', { text: who }));
}

export interface ErrorDetail {
  readonly retryAfter?: number | null;
  /** The field the server named (invalid_field). */
  readonly field?: string | null;
  /** The name that was sent, to say what is wrong with it. */
  readonly name?: string;
}

export function describe(code: string, { retryAfter = null, field = null, name = '' }: ErrorDetail = {}): string {
  switch (code) {
    case 'access_code_invalid':
      return 'The access code is not correct.';
    case 'too_many_attempts':
      return `Too many wrong codes. Try again in ${retryAfter ?? 60} seconds.`;
    case 'barred':
      return 'You cannot join this meeting.';
    case 'join_token_invalid':
      return 'This link is not valid any more. Ask for a new one.';
    case 'subgroup_closed':
      return 'This group is entered from its meeting.';
    case 'waiting_room_full':
      return 'Too many people are waiting. Try again later.';
    case 'too_many_knocks':
    case 'too_many_waiting':
      return `Many people on your network are asking to join right now. Try again in ${retryAfter ?? 30} seconds.`;
    case 'room_not_found':
      return 'This meeting room does not exist, or its meeting has ended.';
    case 'guest_denied':
      return 'This meeting admits only people invited through its platform. Use the link you were given.';
    case 'invalid_field':
      if (field === 'name') return nameAdvice(name);
      if (field === 'note') return 'Your note can be at most 280 characters long, without text-direction control characters.';
      return 'Please check your name and note (name up to 64 characters, note up to 280).';
    default:
      return 'Something went wrong. Please try again.';
  }
}
