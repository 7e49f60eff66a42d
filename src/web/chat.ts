import type { ChatMessage } from '../protocol/live.js';
import { badge, el, field } from './dom.js';

/** The chat: the log (a `div role=log` around an `ol`: a log is not a role an `ol` may take) and the form. */
export class ChatBox {
  // Focusable, so the keyboard can scroll it.
  private readonly list = el('ol', { class: 'chat-list' });
  private readonly log = el('div', { class: 'chat-log', role: 'log', 'aria-label': 'Chat messages', tabindex: 0 }, this.list);
  readonly input = el('input', { name: 'chat', maxlength: 2000, autocomplete: 'off' });
  readonly element: HTMLElement;

  constructor(send: (text: string) => void) {
    const form = el('form', { class: 'chat-form' }, field('Chat message', this.input), el('button', { type: 'submit', class: 'primary', text: 'Send' }));
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
    const time = new Date(message.at).toLocaleTimeString();
    // The service's own messages carry `system`, not a name: the badge is the sender.
    const sender = message.from.system
      ? [badge('System', 'system')]
      : [el('strong', { class: 'name', text: message.from.name }), message.from.role === 'moderator' ? badge('Moderator') : null];
    this.list.append(el('li', { class: message.from.system ? 'from-system' : undefined }, ...sender, ` (${time}): `, el('span', { text: message.text })));
    this.log.scrollTop = this.log.scrollHeight;
  }
}
