import type { Locks, ServerMessage, WaitingItem } from '../protocol/live.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { button, el } from './dom.js';
import { fill, words } from './words/index.js';

const said = words.waitingList;

/** Arrivals this close together make one notification that counts them. */
const groupWindowMs = 4000;

type WaitingChanges = Extract<ServerMessage, { type: 'waiting_changes' }>;

/** What became of a change: applied, older than the list held (ignored), or after a gap (ask for the whole list). */
export type ChangeOutcome = 'applied' | 'stale' | 'gap';

/**
 * The moderator's "Waiting" section (top of the participants panel) and the grouped
 * notification above the video, hidden while a screen share is active.
 *
 * The server sends the whole list once (`waiting_list`) and then its changes in sequence
 * (`waiting_changes`); each change touches only its own rows, so a knock costs one row with
 * 1,000 people waiting, and a button that has the focus keeps it.
 */
export class WaitingPanel {
  readonly section = el('section', { 'aria-labelledby': 'waiting-heading' });
  private readonly heading = el('h2', { id: 'waiting-heading', text: said.heading, tabindex: -1 });
  readonly notification = el('div', { class: 'notification', role: 'status', hidden: true });
  private readonly list = el('ul');
  private readonly empty = el('li', { text: said.nobody });
  /** The rows shown, by request id; the list element holds them in knock order. */
  private readonly rows = new Map<string, { readonly item: WaitingItem; readonly row: HTMLElement }>();
  /** The sequence number of the list held; null until the first whole list, and while a resync is awaited. */
  private seq: number | null = null;
  private readonly seen = new Set<string>();
  /**
   * Who the notification is about: arrivals close together, and any arriving while it is shown.
   * Only those still waiting count, so an answer from the list shrinks it (or clears it).
   */
  private group: { members: Set<string>; lastAt: number } | null = null;
  /** Where the focus was before she acted on the notification: it goes back there when nobody is left to decide on. */
  private focusBefore: HTMLElement | null = null;
  private sharing = false;
  private soundMuted = false;
  private audio: AudioContext | null = null;

  /** Turns the waiting room of this meeting on or off for later arrivals: shown once the server says a moderator may. */
  private readonly switchButton: HTMLButtonElement;
  private readonly switchState = el('span', { class: 'hint', 'aria-hidden': 'true' });
  private switchKnown: boolean | null = null;

  constructor(
    private readonly roomId: string,
    private readonly session: () => string,
    switchTo: (enabled: boolean) => void,
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
    const admitAll = button(said.admitAll, () => void this.act(() => roomApi.admitAll(this.roomId, this.session()), said.allAdmitted));
    // A toggle: its name stays, aria-pressed says on or off (the words beside it say so to the eye).
    this.switchButton = button(said.switch, () => switchTo(this.switchButton.getAttribute('aria-pressed') !== 'true'), {
      'aria-pressed': 'true',
      hidden: true,
    });
    this.switchState.hidden = true;
    this.section.append(this.heading, this.list, el('div', { class: 'toolbar' }, admitAll, this.switchButton, this.switchState, muteSound));
    this.list.replaceChildren(this.empty);
  }

  /** The server's word on the toggle (`waiting_room`): hidden where a moderator cannot switch it; a change is announced. */
  setSwitch(enabled: boolean, switchable: boolean): void {
    this.switchButton.hidden = !switchable;
    this.switchState.hidden = !switchable;
    this.switchButton.setAttribute('aria-pressed', String(enabled));
    this.switchState.textContent = enabled ? said.switchOn : said.switchOff;
    if (this.switchKnown !== null && this.switchKnown !== enabled) {
      announce(enabled ? said.turnedOn : said.turnedOff);
    }
    this.switchKnown = enabled;
  }

  private async act(call: () => Promise<{ ok: boolean }>, done: string): Promise<void> {
    const result = await call();
    announce(result.ok ? done : said.failed);
  }

  /** The whole list at `seq` (on connect, on becoming a moderator, after a resync). */
  replace(requests: readonly WaitingItem[], seq: number): void {
    this.seq = seq;
    this.rows.clear();
    this.list.replaceChildren();
    for (const r of requests) this.insert(r);
    this.settled(requests);
  }

  /**
   * One change, if it is the next in sequence. On a gap the list held is no longer the server's:
   * the caller asks for the whole list (`waiting_resync`), and changes are ignored until it comes.
   */
  apply(change: WaitingChanges): ChangeOutcome {
    if (this.seq === null) return 'stale';
    if (change.seq <= this.seq) return 'stale';
    if (change.seq !== this.seq + 1) {
      this.seq = null;
      return 'gap';
    }
    this.seq = change.seq;
    for (const id of change.removed) this.removeRow(id);
    for (const r of change.added) this.insert(r);
    for (const r of change.updated) {
      const held = this.rows.get(r.request_id);
      if (!held) continue;
      const row = this.rowOf(r);
      held.row.replaceWith(row);
      this.rows.set(r.request_id, { item: r, row });
    }
    this.settled(change.added);
    return 'applied';
  }

  /** After a change: announce who is new, or clear the notification when nobody waits any more. */
  private settled(added: readonly WaitingItem[]): void {
    if (this.rows.size === 0) this.list.replaceChildren(this.empty);
    else this.empty.remove();
    const fresh = added.filter((r) => this.rows.has(r.request_id) && !this.seen.has(r.request_id));
    for (const r of fresh) this.seen.add(r.request_id);
    if (fresh.length > 0) this.notify(fresh);
    else if (this.group && !this.notification.hidden) this.drawNotification();
  }

  /**
   * A request answered (here, by another moderator, or withdrawn): its row goes. When the focus
   * was in it (a keyboard Admit), it moves to the next person waiting, or to the section's
   * heading when nobody is left, never to the page's body.
   */
  private removeRow(id: string): void {
    const held = this.rows.get(id);
    this.rows.delete(id);
    if (!held) return;
    const hadFocus = held.row.contains(document.activeElement);
    const neighbour = [held.row.nextElementSibling, held.row.previousElementSibling].find((n) => n instanceof HTMLElement && n.dataset.requestId);
    held.row.remove();
    if (!hadFocus) return;
    if (neighbour) neighbour.querySelector<HTMLElement>('button')?.focus();
    else this.heading.focus();
  }

  /** Adds (or replaces) a row in knock order. Knocks arrive in order, so this nearly always appends. */
  private insert(r: WaitingItem): void {
    this.rows.get(r.request_id)?.row.remove();
    const row = this.rowOf(r);
    this.rows.set(r.request_id, { item: r, row });
    let before: Element | null = null;
    for (let node = this.list.lastElementChild; node && node !== this.empty; node = node.previousElementSibling) {
      const id = (node as HTMLElement).dataset.requestId;
      const held = id === undefined ? undefined : this.rows.get(id);
      if (!held || held.item.knocked_at <= r.knocked_at) break;
      before = node;
    }
    this.list.insertBefore(row, before);
  }

  /** While anyone shares a screen the notification stays out of the way; the panel does not. */
  setSharing(sharing: boolean): void {
    this.sharing = sharing;
    if (sharing) this.notification.hidden = true;
  }

  private notify(fresh: readonly WaitingItem[]): void {
    const now = Date.now();
    const showing = this.group !== null && !this.notification.hidden;
    if (this.group && (showing || now - this.group.lastAt <= groupWindowMs)) {
      for (const r of fresh) this.group.members.add(r.request_id);
      this.group.lastAt = now;
    } else {
      this.group = { members: new Set(fresh.map((r) => r.request_id)), lastAt: now };
      this.beep();
    }
    this.drawNotification();
  }

  /** The notification for those of the group still waiting; gone (focus kept off the body) when nobody is left. */
  private drawNotification(): void {
    const members = [...(this.group?.members ?? [])].flatMap((id) => {
      const held = this.rows.get(id);
      return held ? [held.item] : [];
    });
    const focusedLabel = this.notification.contains(document.activeElement) ? document.activeElement?.getAttribute('aria-label') : null;
    if (members.length === 0) {
      // Everyone it named was answered (here, from the list, or by another moderator).
      this.notification.hidden = true;
      this.group = null;
      if (focusedLabel !== null && focusedLabel !== undefined) this.restoreFocus();
      return;
    }
    if (this.sharing) return;
    const one = members.length === 1 ? members[0]! : null;
    const text = one ? fill(said.oneWants, { name: one.name }) : fill(said.manyWant, { count: members.length });
    // One person: decide from here (the note beside her name). Several: let them all in, or look at the list.
    const actions = one
      ? [
          button(said.admit, () => void this.decide(one, 'admit'), { class: 'primary', 'aria-label': fill(said.admitFromNotice, { name: one.name }) }),
          button(said.refuse, () => void this.decide(one, 'refuse'), { 'aria-label': fill(said.refuseFromNotice, { name: one.name }) }),
        ]
      : [
          button(said.admitAll, () => void this.decideAll(), { class: 'primary', 'aria-label': said.admitAllFromNotice }),
          button(said.view, () => this.viewList(), { 'aria-label': said.viewList }),
        ];
    this.notification.replaceChildren(
      el('span', { class: 'knock' }, el('strong', { text }), one?.note ? el('span', { class: 'note', text: one.note }) : null),
      ...actions,
      button(said.dismiss, () => this.dismiss(), { 'aria-label': said.dismissNotice }),
    );
    this.notification.hidden = false;
    // Redrawn under her focus (the group changed): the same button keeps it.
    if (focusedLabel) [...this.notification.querySelectorAll<HTMLElement>('button')].find((b) => b.getAttribute('aria-label') === focusedLabel)?.focus();
  }

  private dismiss(): void {
    this.notification.hidden = true;
    this.restoreFocus();
  }

  /** After a decision: the next person waiting, or back where she was. */
  private restoreFocus(): void {
    const next = this.list.querySelector<HTMLElement>('.waiting-item button');
    if (next && next.offsetParent !== null) next.focus();
    else if (this.focusBefore?.isConnected) this.focusBefore.focus();
    this.focusBefore = null;
  }

  private async decide(r: WaitingItem, how: 'admit' | 'refuse'): Promise<void> {
    this.notification.hidden = true;
    if (how === 'admit') await this.act(() => roomApi.admit(this.roomId, this.session(), r.request_id), fill(said.letIn, { name: r.name }));
    else await this.act(() => roomApi.refuse(this.roomId, this.session(), r.request_id, false), fill(said.refused, { name: r.name }));
    this.removeRow(r.request_id);
    this.restoreFocus();
  }

  private async decideAll(): Promise<void> {
    this.notification.hidden = true;
    await this.act(() => roomApi.admitAll(this.roomId, this.session()), said.allAdmitted);
    this.restoreFocus();
  }

  private viewList(): void {
    this.notification.hidden = true;
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

  private rowOf(r: WaitingItem): HTMLElement {
    return el(
      'li',
      { class: 'waiting-item', 'data-request-id': r.request_id },
      el('strong', { text: r.name }),
      r.note ? el('span', { class: 'note', text: r.note }) : null,
      el(
        'div',
        { class: 'actions' },
        button(said.admit, () => void this.act(() => roomApi.admit(this.roomId, this.session(), r.request_id), fill(said.letIn, { name: r.name })), {
          'aria-label': fill(said.admitName, { name: r.name }),
        }),
        button(said.refuse, () => void this.act(() => roomApi.refuse(this.roomId, this.session(), r.request_id, false), fill(said.refused, { name: r.name })), {
          'aria-label': fill(said.refuseName, { name: r.name }),
        }),
        button(
          said.refuseAndBar,
          () => void this.act(() => roomApi.refuse(this.roomId, this.session(), r.request_id, true), fill(said.barred, { name: r.name })),
          {
            'aria-label': fill(said.refuseAndBarName, { name: r.name }),
          },
        ),
      ),
    );
  }
}

/** Lock settings a moderator sets for participants. */
export function locksForm(locks: Locks, change: (locks: Locks) => void): HTMLElement {
  const boxes = {
    mic: el('input', { type: 'checkbox', checked: locks.mic }),
    cam: el('input', { type: 'checkbox', checked: locks.cam }),
    cams_moderators_only: el('input', { type: 'checkbox', checked: locks.cams_moderators_only }),
  };
  const send = () => change({ mic: boxes.mic.checked, cam: boxes.cam.checked, cams_moderators_only: boxes.cams_moderators_only.checked });
  for (const box of Object.values(boxes)) box.addEventListener('change', send);
  return el(
    'fieldset',
    {},
    el('legend', { text: words.locks.legend }),
    el('label', {}, boxes.mic, ` ${words.locks.mics}`),
    el('br'),
    el('label', {}, boxes.cam, ` ${words.locks.cameras}`),
    el('br'),
    el('label', {}, boxes.cams_moderators_only, ` ${words.locks.camerasModeratorsOnly}`),
  );
}
