import { button, el } from './dom.js';
import { icon, type IconName } from './icons.js';
import { words } from './words/index.js';

/** One control of the meeting's bottom bar: an icon, a name for assistive technology, a tooltip and a shortcut. */
export interface Tool {
  readonly button: HTMLButtonElement;
  /** Changes the name, tooltip and icon together (Mute ↔ Unmute); a count (unread messages) shows on the icon. */
  set(label: string, iconName: IconName, count?: number): void;
}

export interface ShortcutEntry {
  /** What the help dialog says the keys do. */
  readonly what: string;
  /** Alt + this key (KeyboardEvent.code without "Key"), as aria-keyshortcuts names it. */
  readonly key: string;
  readonly run: () => void;
}

/**
 * Shortcuts take Alt, never a bare letter: a single-character shortcut would fire while someone
 * types (WCAG 2.1.4), and Alt+letter leaves the chat box and every field their own keys.
 */
export const keysOf = (key: string) => `Alt+${key}`;

export function tool(
  label: string,
  iconName: IconName,
  shortcut: string | null,
  onClick: () => void,
  extra: Record<string, string> = {},
): Tool {
  const b = button('', () => onClick(), { class: 'tool', ...extra });
  const tip = el('span', { class: 'tip', 'aria-hidden': 'true' });
  const set = (next: string, nextIcon: IconName, count = 0) => {
    b.setAttribute('aria-label', next);
    tip.textContent = shortcut ? `${next} (${keysOf(shortcut)})` : next;
    // The count is in the name already ("Chat, 3 unread"): the visible number is not read twice.
    const counter = count > 0 ? el('span', { class: 'count', 'aria-hidden': 'true', text: String(count) }) : null;
    b.replaceChildren(icon(nextIcon), tip, ...(counter ? [counter] : []));
  };
  if (shortcut) b.setAttribute('aria-keyshortcuts', keysOf(shortcut));
  set(label, iconName);
  return { button: b, set };
}

/** Whether this browser can share a screen at all (phones cannot): the Share control is offered only then. */
export const canShareScreen = (): boolean => typeof navigator.mediaDevices?.getDisplayMedia === 'function';

/** Listens for the meeting's shortcuts on the document; returns the way to stop. */
export function listenForShortcuts(entries: readonly ShortcutEntry[]): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.repeat) return;
    // The physical key, so a layout or the Option key on a Mac (which types ø, µ...) still matches.
    const entry = entries.find((e) => event.code === `Key${e.key}` || (e.key === '/' && event.code === 'Slash'));
    if (!entry) return;
    event.preventDefault();
    entry.run();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

/** The dialog that lists every shortcut; a native modal dialog: focus is kept inside, Escape closes it. */
export function shortcutsDialog(entries: readonly ShortcutEntry[]): { dialog: HTMLDialogElement; open: () => void } {
  const rows = entries.map((e) =>
    el('tr', {}, el('th', { scope: 'row' }, el('kbd', { text: keysOf(e.key) })), el('td', { text: e.what })),
  );
  const dialog = el(
    'dialog',
    { class: 'help', 'aria-labelledby': 'help-heading' },
    el('h2', { id: 'help-heading', text: words.help.heading }),
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col', text: words.help.keys }),
          el('th', { scope: 'col', text: words.help.action }),
        ),
      ),
      el('tbody', {}, ...rows),
    ),
  );
  dialog.append(button(words.help.close, () => dialog.close(), { class: 'primary' }));
  return {
    dialog,
    open: () => {
      if (!dialog.open) dialog.showModal();
    },
  };
}
