import type { WaitingItem } from '../protocol/live.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { button, el } from './dom.js';
import {
  admitEveryone,
  decide,
  hideNotice,
  initialWaitingList,
  notTaken,
  pressSwitch,
  receiveWaiting,
  sendRefusals,
  setSharing,
  settleMs,
  settling,
  tick,
  undo,
  type Answer,
  type WaitingListEffect,
  type WaitingListState,
  type WaitingListStep,
} from './state/waiting-list.js';
import { outcomeWords, waitingRow, type RowActions } from './waiting-row.js';
import { fill, words } from './words/index.js';

const said = words.waitingList;

/**
 * The moderator's "Waiting" section (top of the participants panel) and the grouped
 * notification above the video, hidden while a screen share is active.
 *
 * What is held and in which order, the sequence and gap rules and who the notification names are
 * the reducer's (state/waiting-list.ts); this view does its row-by-row edits, so a knock costs one
 * row with 1,000 people waiting, and a button that has the focus keeps it.
 */
export class WaitingPanel {
  readonly section = el('section', { 'aria-labelledby': 'waiting-heading' });
  private readonly heading = el('h2', { id: 'waiting-heading', text: said.heading, tabindex: -1 });
  readonly notification = el('div', { class: 'notification', role: 'status', hidden: true });
  private readonly list = el('ul');
  private readonly empty = el('li', { text: said.nobody });
  /**
   * The last word about the list that outlives its announcement: who left it because her connection stayed lost
   * past the grace, or how many marked requests still wait after the waiting room was turned off.
   */
  private readonly goneNotice = el('p', { class: 'waiting-gone', hidden: true });
  /** The rows shown, by request id; the list element holds them in knock order. */
  private readonly rows = new Map<string, HTMLElement>();
  private state: WaitingListState = initialWaitingList;
  /** Where the focus was before she acted on the notification: it goes back there when nobody is left to decide on. */
  private focusBefore: HTMLElement | null = null;
  private soundMuted = false;
  private audio: AudioContext | null = null;
  /** The next `tick` (a held row is due), and answers on their way to the server (Admit all waits for them). */
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly sending = new Set<Promise<void>>();
  /** Rows whose Admit is marked as settling (see markSettling), and when the next one settles. */
  private readonly settlingRows = new Set<string>();
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly actions: RowActions = {
    decide: (r, how, pointer) => this.step(decide(this.state, r.request_id, how, Date.now(), pointer)),
    undo: (r) => this.step(undo(this.state, r.request_id, Date.now())),
  };

  /** Turns the waiting room of this meeting on or off for later arrivals: shown once the server says a moderator may. */
  private readonly switchButton: HTMLButtonElement;
  /** The switch's state in words beside it (its role says it to a screen reader: aria-checked). */
  private readonly switchState = el('span', { class: 'switch-state', 'aria-hidden': 'true' });

  constructor(
    private readonly roomId: string,
    private readonly session: () => string,
    switchTo: (enabled: boolean) => void,
    /** Asks the server for the whole list again (`waiting_resync`). */
    private readonly resync: () => void,
    /** Shows the Waiting section (the People tab of the side panel). */
    private readonly view: () => void = () => {},
  ) {
    this.notification.addEventListener('focusin', (event) => {
      const from = event.relatedTarget;
      if (from instanceof HTMLElement && !this.notification.contains(from)) this.focusBefore = from;
    });
    const muteSound = button(
      said.muteSound,
      () => {
        this.soundMuted = !this.soundMuted;
        muteSound.setAttribute('aria-pressed', String(this.soundMuted));
      },
      { 'aria-pressed': 'false' },
    );
    const admitAll = button(said.admitAll, () => void this.admitAll());
    // A switch: its name stays, aria-checked says on or off (the words beside it say so to the eye).
    this.switchButton = el(
      'button',
      { type: 'button', role: 'switch', 'aria-checked': 'true', class: 'switch', hidden: true },
      el('span', { class: 'track', 'aria-hidden': 'true' }),
      said.switch,
    );
    this.switchButton.addEventListener('click', () => {
      this.state = pressSwitch(this.state);
      switchTo(this.switchButton.getAttribute('aria-checked') !== 'true');
    });
    const switchRow = el('div', { class: 'switch-row', hidden: true }, this.switchButton, this.switchState);
    this.section.append(
      this.heading,
      this.list,
      this.goneNotice,
      el('div', { class: 'toolbar' }, admitAll, muteSound),
      switchRow,
    );
    this.list.replaceChildren(this.empty);
  }

  /** A message for the Waiting section: the whole list, a change, or the switch. */
  receive(message: Parameters<typeof receiveWaiting>[1]): void {
    this.step(receiveWaiting(this.state, message, Date.now()));
  }

  /** While anyone shares a screen the notification stays out of the way; the panel does not. */
  setSharing(sharing: boolean): void {
    if (sharing === this.state.sharing) return;
    this.state = setSharing(this.state, sharing);
    this.draw();
  }

  private step(step: WaitingListStep): void {
    this.state = step.state;
    for (const effect of step.effects) this.perform(effect);
    this.draw();
    this.markSettling();
  }

  /**
   * A row that just took its place says so: its Admit is aria-disabled until it settled (a click on
   * it is not taken then, see `decide`), and a browser robot's click waits for that, as a person should.
   */
  private markSettling(): void {
    const now = Date.now();
    let next = Infinity;
    for (const [id, at] of this.state.placedAt) {
      if (!settling(this.state, id, now)) continue;
      next = Math.min(next, at + settleMs);
      this.rows.get(id)?.querySelector('.admit')?.setAttribute('aria-disabled', 'true');
      this.settlingRows.add(id);
    }
    for (const id of this.settlingRows) {
      if (settling(this.state, id, now)) continue;
      this.rows.get(id)?.querySelector('.admit')?.removeAttribute('aria-disabled');
      this.settlingRows.delete(id);
    }
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer =
      next === Infinity ? null : setTimeout(() => this.markSettling(), Math.max(0, next - Date.now()) + 1);
  }

  private perform(effect: WaitingListEffect): void {
    switch (effect.do) {
      case 'resync':
        return this.resync();
      case 'rebuild':
        this.rows.clear();
        this.list.replaceChildren();
        for (const r of this.state.items) this.list.append(this.rowFor(r));
        return;
      case 'removeRow':
        return this.removeRow(effect.id, effect.focusTo);
      case 'insertRow': {
        this.rows.get(effect.item.request_id)?.remove();
        const before = effect.before === null ? null : (this.rows.get(effect.before) ?? null);
        this.list.insertBefore(this.rowFor(effect.item), before);
        return;
      }
      case 'replaceRow': {
        // Her connection lost or back: the row is drawn again in place, and a button of it that had the focus keeps it.
        const old = this.rows.get(effect.item.request_id);
        const label = old?.contains(document.activeElement) ? document.activeElement?.getAttribute('aria-label') : null;
        const row = this.rowFor(effect.item);
        old?.replaceWith(row);
        if (label) row.querySelector<HTMLElement>(`button[aria-label="${CSS.escape(label)}"]`)?.focus();
        return;
      }
      case 'beep':
        return this.beep();
      case 'notice':
        return this.drawNotification(effect.members, effect.refusing);
      case 'noticeGone': {
        // Everyone it named was answered (here, from the list, or by another moderator).
        const focused =
          this.notification.contains(document.activeElement) && document.activeElement?.getAttribute('aria-label');
        this.notification.hidden = true;
        if (typeof focused === 'string') this.restoreFocus();
        return;
      }
      case 'announce':
        return announce(effect.said === 'turnedOn' ? said.turnedOn : said.turnedOff);
      case 'connection': {
        const text = fill({ lost: said.lostName, back: said.backName, gone: said.goneName }[effect.how], {
          name: effect.name,
        });
        if (effect.how === 'gone') {
          this.goneNotice.textContent = text;
          this.goneNotice.hidden = false;
        }
        return announce(text);
      }
      case 'tell':
        return announce(fill(said[effect.said], { name: effect.name }));
      case 'outcome':
        return announce(`${effect.name}: ${outcomeWords(effect.how)}`);
      case 'skipped':
        this.goneNotice.textContent = fill(effect.arrival ? said.arrivalSkipped : said.switchSkipped, {
          count: effect.count,
        });
        this.goneNotice.hidden = false;
        return announce(this.goneNotice.textContent);
      case 'send':
        return this.send(effect.how, effect.item);
      case 'redrawRow':
        return this.redrawRow(effect.id, effect.focusTo);
      case 'wake':
        return this.wake(effect.at);
    }
  }

  /** Her answer to the server; an admission it did not take gives the row back to her. */
  private send(how: Answer, r: WaitingItem): void {
    const sent = (async () => {
      const result =
        how === 'admit'
          ? await roomApi.admit(this.roomId, this.session(), r.request_id)
          : await roomApi.refuse(this.roomId, this.session(), r.request_id, how === 'bar');
      if (how === 'admit') announce(result.ok ? fill(said.letIn, { name: r.name }) : said.failed);
      else if (!result.ok) announce(said.failed);
      if (!result.ok && how === 'admit') this.step(notTaken(this.state, r.request_id));
    })();
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }

  /** The row drawn again as the state says, as tall as it was (nothing below moves); the focus as the reducer says. */
  private redrawRow(id: string, focusTo: string | null): void {
    const old = this.rows.get(id);
    const item = this.state.items.find((r) => r.request_id === id);
    if (!old || !item) return;
    const hadFocus = old.contains(document.activeElement) || document.activeElement === document.body;
    const row = this.rowFor(item);
    if (this.state.decided.has(id)) row.style.minHeight = `${old.offsetHeight}px`;
    old.replaceWith(row);
    if (!hadFocus) return;
    const target = focusTo === null ? undefined : this.rows.get(focusTo)?.querySelector<HTMLElement>('button');
    (target ?? this.heading).focus();
  }

  /** Calls `tick` when the first held row is due. */
  private wake(at: number): void {
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    const due = Math.min(at, ...[...this.state.decided.values()].map((d) => d.until));
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.step(tick(this.state, Date.now()));
        const next = [...this.state.decided.values()].map((d) => d.until);
        if (next.length > 0) this.wake(Math.min(...next));
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** Admit all: refusals still in their Undo time are sent first (or it would let them in); the server skips marked requests and says how many. */
  private async admitAll(): Promise<void> {
    this.step(sendRefusals(this.state));
    await Promise.all([...this.sending]);
    const before = new Set(this.state.decided.keys());
    this.step(admitEveryone(this.state, Date.now()));
    const result = await roomApi.admitAll(this.roomId, this.session());
    // Not taken: the rows it held as admitted are hers to answer again.
    if (!result.ok)
      for (const id of this.state.decided.keys()) if (!before.has(id)) this.step(notTaken(this.state, id));
    const skipped = result.ok ? (result.body.skipped ?? 0) : 0;
    announce(!result.ok ? said.failed : skipped > 0 ? fill(said.someSkipped, { count: skipped }) : said.allAdmitted);
  }

  /** What follows the state as a whole: the empty list's line, the switch, a notification put away. */
  private draw(): void {
    if (this.state.items.length === 0) this.list.replaceChildren(this.empty);
    else this.empty.remove();
    if (!this.state.noticeShown) this.notification.hidden = true;
    const known = this.state.switch;
    if (known) {
      this.switchButton.hidden = !known.switchable;
      this.switchButton.parentElement!.hidden = !known.switchable;
      this.switchButton.setAttribute('aria-checked', String(known.enabled));
      this.switchState.textContent = known.enabled ? said.switchOn : said.switchOff;
    }
  }

  /**
   * A request answered (here, by another moderator, or withdrawn): its row goes. When the focus
   * was in it (a keyboard Admit), it moves to the next person waiting, or to the section's
   * heading when nobody is left, never to the page's body.
   */
  private removeRow(id: string, focusTo: string | null): void {
    const row = this.rows.get(id);
    this.rows.delete(id);
    if (!row) return;
    const hadFocus = row.contains(document.activeElement);
    row.remove();
    if (!hadFocus) return;
    const neighbour = focusTo === null ? undefined : this.rows.get(focusTo);
    if (neighbour) neighbour.querySelector<HTMLElement>('button')?.focus();
    else this.heading.focus();
  }

  private rowFor(r: WaitingItem): HTMLElement {
    const row = waitingRow(r, this.state.decided.get(r.request_id), this.actions);
    this.rows.set(r.request_id, row);
    return row;
  }

  /**
   * The notification for those of the group still waiting, and Undo of a refusal made from it (focus kept on the
   * button she was on; when that one went, on the notification's first control).
   */
  private drawNotification(members: readonly WaitingItem[], refusing: WaitingItem | null): void {
    const focusedLabel = this.notification.contains(document.activeElement)
      ? document.activeElement?.getAttribute('aria-label')
      : null;
    const one = members.length === 1 ? members[0]! : null;
    const text = one ? fill(said.oneWants, { name: one.name }) : fill(said.manyWant, { count: members.length });
    // One person: decide from here (the note beside her name). Several: let them all in, or look at the list.
    const actions = one
      ? [
          button(said.admit, () => this.decide(one, 'admit'), {
            class: 'primary',
            'aria-label': fill(said.admitFromNotice, { name: one.name }),
          }),
          button(said.refuse, () => this.decide(one, 'refuse'), {
            'aria-label': fill(said.refuseFromNotice, { name: one.name }),
          }),
        ]
      : [
          button(said.admitAll, () => void this.decideAll(), {
            class: 'primary',
            'aria-label': said.admitAllFromNotice,
          }),
          button(said.view, () => this.viewList(), { 'aria-label': said.viewList }),
        ];
    // Her refusal from here, in its Undo time: the same Undo as the row's (the list holds the row too).
    const undoing = refusing
      ? [
          el('span', { class: 'knock' }, fill(said.refusedNotice, { name: refusing.name })),
          button(said.undo, () => this.actions.undo(refusing), {
            'aria-label': fill(said.undoName, { name: refusing.name }),
          }),
        ]
      : [];
    const knock =
      members.length === 0
        ? []
        : [
            el(
              'span',
              { class: 'knock' },
              el('strong', { text }),
              one?.note ? el('span', { class: 'note', text: one.note }) : null,
            ),
            ...actions,
          ];
    this.notification.replaceChildren(
      ...undoing,
      ...knock,
      button(said.dismiss, () => this.dismiss(), { 'aria-label': said.dismissNotice }),
    );
    this.notification.hidden = false;
    // Redrawn under her focus (the group changed): the same button keeps it, else the first one.
    if (focusedLabel) {
      const buttons = [...this.notification.querySelectorAll<HTMLElement>('button')];
      (buttons.find((b) => b.getAttribute('aria-label') === focusedLabel) ?? buttons[0])?.focus();
    }
  }

  /** The notification is put away (she dismissed it, or acted on it). */
  private putAway(): void {
    this.state = hideNotice(this.state);
    this.notification.hidden = true;
  }

  private dismiss(): void {
    this.putAway();
    this.restoreFocus();
  }

  /** After a decision: the next person waiting, or back where she was. */
  private restoreFocus(): void {
    const next = this.list.querySelector<HTMLElement>('.waiting-item:not(.decided) button');
    if (next && next.offsetParent !== null) next.focus();
    else if (this.focusBefore?.isConnected) this.focusBefore.focus();
    this.focusBefore = null;
  }

  /**
   * An answer from the notification takes the list's one path (`decide`): Admit is sent at once and the row shows
   * it; a refusal waits out its Undo time, which the notification offers as well.
   */
  private decide(r: WaitingItem, how: 'admit' | 'refuse'): void {
    this.step(decide(this.state, r.request_id, how, Date.now(), false, 'notice'));
  }

  private async decideAll(): Promise<void> {
    this.putAway();
    await this.admitAll();
    this.restoreFocus();
  }

  private viewList(): void {
    this.putAway();
    this.view();
    this.list.querySelector<HTMLElement>('.waiting-item button')?.focus();
  }

  private beep(): void {
    if (this.soundMuted) return;
    try {
      this.audio ??= new AudioContext();
      const oscillator = this.audio.createOscillator();
      const gain = this.audio.createGain();
      gain.gain.value = 0.05;
      oscillator.frequency.value = 880;
      oscillator.connect(gain).connect(this.audio.destination);
      oscillator.start();
      oscillator.stop(this.audio.currentTime + 0.15);
    } catch {
      // sound is a courtesy; the visual notification carries the message
    }
  }
}
