import { closeCodes, type ParticipantView } from '../protocol/live.js';
import { button, el } from './dom.js';
import type { LeaveReason } from './meeting-hooks.js';
import { givenUp } from './live-link.js';
import { storedGet, storedRemove, storedSet } from './stored.js';
import { fill, words } from './words/index.js';

const said = words.people;

/**
 * The moderator's confirmation before a removal: a native modal dialog, so the keyboard answers
 * it (Tab between the two buttons, Enter, Escape to cancel) and focus stays inside while it is
 * open. Cancel is first and has the focus: a stray Enter removes nobody. When it closes, focus goes
 * back to `returnTo()` (the person's Remove button after a cancel, the list after a removal).
 */
export class RemoveConfirm {
  readonly dialog: HTMLDialogElement;
  private readonly question = el('h2', { id: 'remove-question' });
  private readonly explained = el('p', { id: 'remove-explained' });
  private chosen: (() => void) | null = null;
  private returnTo: (removed: boolean) => HTMLElement | null = () => null;
  private removed = false;

  constructor() {
    const cancel = button(said.cancel, () => this.dialog.close());
    const remove = button(said.remove, () => {
      this.removed = true;
      this.chosen?.();
      this.dialog.close();
    });
    // The same look as the shortcuts dialog (static/meeting CSS).
    this.dialog = el(
      'dialog',
      { class: 'help remove-confirm', 'aria-labelledby': 'remove-question', 'aria-describedby': 'remove-explained' },
      this.question,
      this.explained,
      el('p', {}, cancel, ' ', remove),
    );
    this.dialog.addEventListener('close', () => {
      this.chosen = null;
      this.returnTo(this.removed)?.focus();
    });
  }

  /** Asks whether to remove `p`; `yes` runs only on an explicit Remove. */
  ask(p: ParticipantView, yes: () => void, returnTo: (removed: boolean) => HTMLElement | null): void {
    this.question.textContent = fill(said.removeQuestion, { name: p.name });
    this.explained.textContent = fill(said.removeExplained, { name: p.name });
    this.chosen = yes;
    this.returnTo = returnTo;
    this.removed = false;
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.querySelector('button')?.focus();
  }
}

/** What the page says when the live link ends with `code`, and why (an embedding page hears the same reason). */
export function endOf(code: number): { text: string; reason: LeaveReason } {
  const said = words.meeting;
  if (code === closeCodes.removed) return { text: said.removedYou, reason: 'removed' };
  if (code === closeCodes.restarting) return { text: said.restarting, reason: 'lost' };
  return {
    text: code === closeCodes.replaced ? said.replaced : code === givenUp ? said.givenUp : said.lost,
    reason: 'lost',
  };
}

const cameBackKey = 'meet.cameBack';

/** The daemon is stopping: once the service answers again the page loads afresh (back in the meeting, or at the arrival). */
export function comeBackWhenUp(): void {
  const comeBack = (): void => {
    void fetch('/healthz', { cache: 'no-store' })
      .then(
        (answer) => answer.ok,
        () => false,
      )
      .then((up) => {
        if (!up) return void window.setTimeout(comeBack, 2000);
        // Her lesson goes on where it was: the reloaded page skips the device check (cameBack).
        storedSet('session', cameBackKey, '1');
        location.reload();
      });
  };
  window.setTimeout(comeBack, 2000);
}

/** Whether this load is the page's own reload after the service restarted (asked once). */
export function cameBack(): boolean {
  const said = storedGet('session', cameBackKey) === '1';
  storedRemove('session', cameBackKey);
  return said;
}
