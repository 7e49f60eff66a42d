import { announce } from './announce.js';
import { roomApi, type PollAnswer } from './api.js';
import { describe, joiningAs } from './arrival.js';
import type { Devices } from './devices.js';
import { button, el, field } from './dom.js';
import { linkHint } from './join-link.js';
import { storedGet, storedSet } from './stored.js';
import { words } from './words/index.js';

const pollIntervalMs = 2000;

/** Calls `tick` every `ms` from a worker (see ticker.ts), or from the page where workers are unavailable. */
function everyInterval(ms: number, tick: () => void): { stop(): void } {
  try {
    const worker = new Worker('/assets/web/ticker.js');
    worker.onmessage = () => tick();
    worker.postMessage(ms);
    return { stop: () => worker.terminate() };
  } catch {
    const timer = window.setInterval(tick, ms);
    return { stop: () => window.clearInterval(timer) };
  }
}

const said = words.waiting;

const stateText: Record<PollAnswer['status'] | 'ready' | 'reconnecting' | 'lost', string> = {
  ready: said.ready,
  // The network dropped: polls go on, and the next answer says whether the place is still hers.
  reconnecting: said.reconnecting,
  lost: said.lost,
  waiting: said.waiting,
  admitted: said.admitted,
  refused: said.refused,
  barred: said.barred,
  expired: said.expired,
};

/** 0:07, 1:05, 12:40: minutes and seconds since she knocked. */
function elapsed(sinceMs: number): string {
  const seconds = Math.max(0, Math.floor((Date.now() - sinceMs) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const requestMemoryKey = (roomId: string) => `meet.request.${roomId}`;

/** The name and note this tab last asked with in a room (kept for "Ask again", across a reload or a reopened tab). */
export function rememberedRequest(roomId: string): { name?: string; note?: string; at?: number } | null {
  const stored = storedGet('session', requestMemoryKey(roomId));
  if (stored === null) return null;
  try {
    const parsed = JSON.parse(stored) as { name?: unknown; note?: unknown; at?: unknown } | null;
    if (!parsed || typeof parsed !== 'object') return null;
    // Only strings: whatever else the storage holds is not something she typed.
    return {
      ...(typeof parsed.name === 'string' ? { name: parsed.name } : {}),
      ...(typeof parsed.note === 'string' ? { note: parsed.note } : {}),
      ...(typeof parsed.at === 'number' ? { at: parsed.at } : {}),
    };
  } catch {
    return null;
  }
}

export interface WaitingOptions {
  readonly roomId: string;
  readonly name: string;
  readonly accessCode: string;
  readonly joinToken: string | null;
  readonly devices: Devices;
  /** Already knocked (a reload found the request still there). */
  readonly resumed: boolean;
  /** This tab knocked, but the request is gone (a reopened tab, after the server let the place go). */
  readonly lost?: boolean;
  readonly admitted: (session: string) => void;
}

/**
 * Two parts: her request first (on a phone it is what she came for, above the devices), her
 * devices beside it on a wide screen. Once she knocked, the request becomes a status card:
 * "Asking to join…" with a live indicator, the time waited, the note she sent, and Leave.
 * The page shows nothing of the meeting: no name, no moderators, no count. Polls every 2 s
 * while waiting.
 */
export function waitingScreen(options: WaitingOptions): HTMLElement {
  const { roomId, devices } = options;
  // What she typed survives a reload of this tab, so "Ask again" works after one.
  const memoryKey = requestMemoryKey(roomId);
  const remembered = rememberedRequest(roomId) ?? {};
  // A link that names her is what she knocks as (the server takes that name): said, not asked.
  const linkName = linkHint(options.joinToken).name;
  const name = el('input', { name: 'name', value: linkName ?? (options.name || remembered.name || ''), maxlength: 64, required: true });
  const note = el('textarea', { name: 'note', maxlength: 280, rows: 3 });
  note.value = remembered.note ?? '';
  const state = el('p', { class: 'state', text: stateText.ready });
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
  const ask = button(said.ask, () => void knock(), { class: 'primary' });
  const askAgain = button(said.askAgain, () => void knock(), { hidden: true, class: 'primary' });
  const leave = button(said.leave, () => void withdraw());
  // The status card: shown while her request waits, in place of the form.
  const waited = el('span', { class: 'waited-time', text: '0:00' });
  const noteSent = el('span', { class: 'note-sent' });
  const noteRow = el('p', { class: 'card-line' }, el('span', { class: 'card-label', text: `${said.noteSent}: ` }), noteSent);
  const whoAsks = el('div');
  const asking = el('p', { class: 'asking', tabindex: -1 }, el('span', { class: 'live-dot', 'aria-hidden': 'true' }), el('strong', { text: said.asking }));
  const card = el(
    'div',
    { class: 'status-card', hidden: true },
    asking,
    whoAsks,
    el('p', { class: 'card-line' }, el('span', { class: 'card-label', text: `${said.waited}: ` }), waited),
    noteRow,
    el('div', { class: 'toolbar' }, leave),
  );
  const form = el('div', { class: 'request-form' });
  let knockedAt = remembered.at ?? Date.now();
  let clock: number | null = null;
  let ticker: { stop(): void } | null = null;
  let polling = false;

  const setState = (status: keyof typeof stateText) => {
    state.textContent = stateText[status];
    announce(stateText[status]);
    const asked = status === 'waiting' || status === 'reconnecting';
    ask.hidden = status !== 'ready';
    askAgain.hidden = status !== 'refused' && status !== 'expired' && status !== 'lost';
    name.disabled = asked || status === 'barred';
    note.disabled = asked || status === 'barred';
    leave.hidden = status === 'barred';
    // Waiting: the card (with the sentence above its details); otherwise the form to ask (again).
    card.hidden = !asked;
    form.hidden = asked || status === 'barred';
    if (asked) card.insertBefore(state, card.children[1] ?? null);
    else form.before(state);
    whoAsks.replaceChildren(joiningAs(linkName ?? name.value.trim()));
    noteSent.textContent = note.value.trim();
    noteRow.hidden = note.value.trim() === '';
    if (clock !== null) window.clearInterval(clock);
    clock = null;
    if (asked) {
      waited.textContent = elapsed(knockedAt);
      clock = window.setInterval(() => (card.isConnected ? (waited.textContent = elapsed(knockedAt)) : window.clearInterval(clock ?? 0)), 1000);
    }
  };

  const stopPolling = () => {
    ticker?.stop();
    ticker = null;
  };
  const startPolling = () => {
    stopPolling();
    ticker = everyInterval(pollIntervalMs, () => void poll());
  };

  const poll = async () => {
    // One poll at a time: a slow answer must not pile up requests behind it.
    if (polling) return;
    if (roomApi.withdrawn(roomId)) return stopPolling();
    polling = true;
    const result = await roomApi.poll(roomId).finally(() => (polling = false));
    if (!result.ok) {
      if (result.error.status === 404) {
        stopPolling();
        setState('lost');
      } else if (result.error.status === 0 && state.textContent !== stateText.reconnecting) {
        setState('reconnecting');
      }
      return;
    }
    const answer = result.body;
    if (answer.status === 'admitted') {
      stopPolling();
      window.removeEventListener('pagehide', onPageHide);
      setState('admitted');
      options.admitted(answer.session);
      return;
    }
    if (answer.status !== 'waiting') stopPolling();
    if (state.textContent !== stateText[answer.status]) setState(answer.status);
  };

  const knock = async () => {
    error.hidden = true;
    knockedAt = Date.now();
    storedSet('session', memoryKey, JSON.stringify({ name: name.value.trim(), note: note.value, at: knockedAt }));
    const result = await roomApi.knock(roomId, {
      name: name.value.trim(),
      note: note.value,
      ...(options.accessCode ? { access_code: options.accessCode } : {}),
      ...(options.joinToken ? { t: options.joinToken } : {}),
    });
    if (!result.ok) {
      if (result.error.code === 'barred') return setState('barred');
      error.textContent = describe(result.error.code, { retryAfter: result.error.retryAfter, field: result.error.field, name: name.value });
      error.hidden = false;
      return;
    }
    if (result.body.status === 'joined') return options.admitted(result.body.session);
    setState('waiting');
    // Her button is gone: the focus goes to the card that replaced it, not to the page's body.
    asking.focus();
    startPolling();
  };

  const withdraw = async () => {
    stopPolling();
    await roomApi.withdraw(roomId);
    setState('ready');
    ask.focus();
  };

  // A closed window frees its place at once; the server's sweep is the fallback.
  const onPageHide = () => {
    if (state.textContent === stateText.waiting) roomApi.leaveBeacon(roomId);
  };
  window.addEventListener('pagehide', onPageHide);

  form.append(
    linkName ? joiningAs(linkName) : field(words.arrival.yourName, name),
    field(said.note, note, said.noteHint),
    el('div', { class: 'toolbar' }, ask, askAgain),
  );
  const request = el(
    'section',
    { class: 'request', 'aria-labelledby': 'request-heading' },
    el('h1', { id: 'request-heading', text: said.heading }),
    state,
    form,
    card,
    error,
  );
  if (options.resumed) {
    setState('waiting');
    void poll();
    startPolling();
  } else if (options.lost) {
    setState('lost');
  }
  return el('div', { class: 'two-parts' }, request, devices.render());
}
