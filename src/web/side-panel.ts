import { button, el } from './dom.js';
import { icon } from './icons.js';
import { words } from './words/index.js';

export type PanelTab = 'people' | 'chat' | 'moderation';

const labels: Record<PanelTab, string> = {
  people: words.panel.people,
  chat: words.panel.chat,
  moderation: words.panel.moderation,
};

/**
 * The side panel (a sheet from the bottom on a phone): tabs for People, Chat and Moderation, one
 * shown at a time, opened and closed from the toolbar or its own Close button. Tabs follow the
 * ARIA tabs pattern: arrow keys move between them, the chosen one is in the tab order.
 */
export class SidePanel {
  readonly element: HTMLElement;
  private readonly tabs = new Map<PanelTab, HTMLButtonElement>();
  private readonly panels = new Map<PanelTab, HTMLElement>();
  private current: PanelTab = 'people';
  private readonly listeners = new Set<() => void>();
  /** Where the focus goes when the panel closes under it (its Close button, Escape): the toolbar's tool for the tab. */
  focusOnClose: ((tab: PanelTab) => void) | null = null;

  constructor(contents: Record<PanelTab, HTMLElement>) {
    const tablist = el('div', { role: 'tablist', 'aria-label': words.panel.label });
    const order = Object.keys(labels) as PanelTab[];
    for (const name of order) {
      const tab = el('button', {
        type: 'button',
        role: 'tab',
        id: `tab-${name}`,
        'aria-controls': `panel-${name}`,
        text: labels[name],
      });
      tab.addEventListener('click', () => this.open(name));
      tab.addEventListener('keydown', (event) => {
        const visible = order.filter((n) => !this.tabs.get(n)!.hidden);
        const at = visible.indexOf(name);
        const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
        if (step === 0) return;
        event.preventDefault();
        const next = visible[(at + step + visible.length) % visible.length]!;
        this.open(next);
        this.tabs.get(next)!.focus();
      });
      this.tabs.set(name, tab);
      tablist.append(tab);
      const panel = el(
        'div',
        { role: 'tabpanel', id: `panel-${name}`, 'aria-labelledby': `tab-${name}`, class: 'tab-panel' },
        contents[name],
      );
      this.panels.set(name, panel);
    }
    const close = button('', () => this.close(), { class: 'tool close', 'aria-label': words.panel.close });
    close.append(icon('close'));
    this.element = el(
      'aside',
      { class: 'panel', 'aria-label': words.panel.label, hidden: true },
      el('div', { class: 'panel-head' }, tablist, close),
      ...this.panels.values(),
    );
    this.select('people');
  }

  /** Told when the panel opens, closes or changes tab (the toolbar's pressed states follow). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  get tab(): PanelTab {
    return this.current;
  }

  /** A tab only moderators see (Moderation) is hidden for the others. */
  setAvailable(name: PanelTab, available: boolean): void {
    this.tabs.get(name)!.hidden = !available;
    if (!available && this.current === name) this.select('people');
    this.changed();
  }

  open(name: PanelTab): void {
    this.select(name);
    this.element.hidden = false;
    this.changed();
  }

  /** The toolbar's gesture: shows the tab, or closes the panel when that tab is already showing. */
  toggle(name: PanelTab): void {
    if (this.isOpen && this.current === name) this.close();
    else this.open(name);
  }

  /** The tab shown (true), the panel closed if that tab shows (false), or toggled (null). */
  setShown(name: PanelTab, shown: boolean | null): void {
    const showing = this.isOpen && this.current === name;
    if (shown ?? !showing) this.open(name);
    else if (showing) this.close();
  }

  close(): void {
    // A hidden element cannot keep the focus: left there, it would fall to the body.
    const hadFocus = this.element.contains(document.activeElement);
    this.element.hidden = true;
    this.changed();
    if (hadFocus) this.focusOnClose?.(this.current);
  }

  private select(name: PanelTab): void {
    this.current = name;
    for (const [n, tab] of this.tabs) {
      tab.setAttribute('aria-selected', String(n === name));
      tab.tabIndex = n === name ? 0 : -1;
      this.panels.get(n)!.hidden = n !== name;
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
