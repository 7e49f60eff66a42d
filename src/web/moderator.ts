import type { Locks, WaitingItem } from '../http/live/protocol.js';
import { announce } from './announce.js';
import { roomApi } from './api.js';
import { button, el } from './dom.js';

/** Arrivals this close together make one notification that counts them. */
const groupWindowMs = 4000;

/**
 * The moderator's "Waiting" section (top of the participants panel) and the grouped
 * notification above the video, hidden while a screen share is active.
 */
export class WaitingPanel {
  readonly section = el('section', { 'aria-labelledby': 'waiting-heading' });
  readonly notification = el('div', { class: 'notification', role: 'status', hidden: true });
  private readonly list = el('ul');
  private readonly seen = new Set<string>();
  private group: { count: number; firstName: string; lastAt: number } | null = null;
  private sharing = false;
  private soundMuted = false;
  private audio: AudioContext | null = null;

  constructor(
    private readonly roomId: string,
    private readonly session: () => string,
    private readonly policyForced: boolean,
  ) {
    const muteSound = button('Mute notification sound', () => {
      this.soundMuted = !this.soundMuted;
      muteSound.setAttribute('aria-pressed', String(this.soundMuted));
    }, { 'aria-pressed': 'false' });
    const admitAll = button('Admit all', () => void this.act(() => roomApi.admitAll(this.roomId, this.session()), 'Everyone waiting was let in'));
    const disable = this.policyForced
      ? null
      : button('Disable waiting room', () => void this.act(() => roomApi.disableWaitingRoom(this.roomId, this.session()), 'Waiting room disabled for this meeting'));
    this.section.append(
      el('h3', { id: 'waiting-heading', text: 'Waiting' }),
      this.list,
      el('div', { class: 'toolbar' }, admitAll, disable, muteSound),
    );
    this.render([]);
  }

  private async act(call: () => Promise<{ ok: boolean }>, done: string): Promise<void> {
    const result = await call();
    announce(result.ok ? done : 'That did not work. Please try again.');
  }

  update(requests: readonly WaitingItem[]): void {
    const fresh = requests.filter((r) => !this.seen.has(r.request_id));
    for (const r of fresh) this.seen.add(r.request_id);
    this.render(requests);
    if (fresh.length > 0) this.notify(fresh);
    else if (requests.length === 0) {
      // Everyone was answered: nothing left to announce.
      this.notification.hidden = true;
      this.group = null;
    }
  }

  /** While anyone shares a screen the notification stays out of the way; the panel does not. */
  setSharing(sharing: boolean): void {
    this.sharing = sharing;
    if (sharing) this.notification.hidden = true;
  }

  private notify(fresh: readonly WaitingItem[]): void {
    const now = Date.now();
    if (this.group && now - this.group.lastAt <= groupWindowMs) {
      this.group.count += fresh.length;
      this.group.lastAt = now;
    } else {
      this.group = { count: fresh.length, firstName: fresh[0]!.name, lastAt: now };
      this.beep();
    }
    if (this.sharing) return;
    const text = this.group.count === 1 ? `${this.group.firstName} wants to join` : `${this.group.count} people want to join`;
    this.notification.replaceChildren(
      el('span', { text }),
      button('Dismiss', () => (this.notification.hidden = true), { 'aria-label': 'Dismiss notification' }),
    );
    this.notification.hidden = false;
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

  private render(requests: readonly WaitingItem[]): void {
    if (requests.length === 0) {
      this.list.replaceChildren(el('li', { text: 'Nobody is waiting.' }));
      return;
    }
    this.list.replaceChildren(
      ...requests.map((r) =>
        el(
          'li',
          { class: 'waiting-item' },
          el('strong', { text: r.name }),
          r.note ? el('span', { class: 'note', text: r.note }) : null,
          el(
            'div',
            { class: 'actions' },
            button('Admit', () => void this.act(() => roomApi.admit(this.roomId, this.session(), r.request_id), `${r.name} was let in`), {
              'aria-label': `Admit ${r.name}`,
            }),
            button('Refuse', () => void this.act(() => roomApi.refuse(this.roomId, this.session(), r.request_id, false), `${r.name} was refused`), {
              'aria-label': `Refuse ${r.name}`,
            }),
            button('Refuse and bar', () => void this.act(() => roomApi.refuse(this.roomId, this.session(), r.request_id, true), `${r.name} was barred`), {
              'aria-label': `Refuse and bar ${r.name}`,
            }),
          ),
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
    el('legend', { text: 'Lock settings for participants' }),
    el('label', {}, boxes.mic, ' Lock microphones'),
    el('br'),
    el('label', {}, boxes.cam, ' Lock cameras'),
    el('br'),
    el('label', {}, boxes.cams_moderators_only, ' Cameras for moderators only'),
  );
}
