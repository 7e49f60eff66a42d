import type { ChatMessage } from '../protocol/live.js';
import { badge, el, field } from './dom.js';
import { language, words } from './words/index.js';

/** The chat: the log (a `div role=log` around an `ol`: a log is not a role an `ol` may take) and the form. */
export class ChatBox {
  // Focusable, so the keyboard can scroll it.
  private readonly list = el('ol', { class: 'chat-list' });
  private readonly log = el(
    'div',
    { class: 'chat-log', role: 'log', 'aria-label': words.chat.log, tabindex: 0 },
    this.list,
  );
  readonly input = el('input', { name: 'chat', maxlength: 2000, autocomplete: 'off' });
  readonly element: HTMLElement;

  constructor(send: (text: string) => void) {
    const form = el(
      'form',
      { class: 'chat-form' },
      field(words.chat.message, this.input),
      el('button', { type: 'submit', class: 'primary', text: words.chat.send }),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      send(text);
      this.input.value = '';
    });
    this.element = el('div', { class: 'chat' }, this.log, form);
  }

  /** Emptied before a new connection's welcome brings the history again. */
  clear(): void {
    this.list.replaceChildren();
  }

  show(message: ChatMessage): void {
    const time = new Date(message.at).toLocaleTimeString(language);
    // The service's own messages carry `system`, not a name: the badge is the sender.
    const sender = message.from.system
      ? [badge(words.chat.system, 'system')]
      : [
          el('strong', { class: 'name', text: message.from.name }),
          message.from.role === 'moderator' ? badge(words.people.moderator) : null,
        ];
    this.list.append(
      el(
        'li',
        { class: message.from.system ? 'from-system' : undefined },
        ...sender,
        ` (${time}): `,
        el('span', { text: message.text }),
      ),
    );
    this.log.scrollTop = this.log.scrollHeight;
  }
}
