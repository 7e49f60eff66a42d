import { announce } from './announce.js';
import { roomApi, type PollAnswer } from './api.js';
import { describe } from './arrival.js';
import type { Devices } from './devices.js';
import { button, el, field } from './dom.js';
import { storedGet, storedSet } from './stored.js';

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

const stateText: Record<PollAnswer['status'] | 'ready' | 'reconnecting' | 'lost', string> = {
  ready: 'Add a note if you like, then ask to join.',
  // The network dropped: polls go on, and the next answer says whether the place is still hers.
  reconnecting: 'Connection lost. Reconnecting…',
  lost: 'You lost your place. Your name and note are kept: you may ask again.',
  waiting: 'Waiting for a moderator to let you in.',
  admitted: 'You have been let in.',
  refused: 'A moderator declined your request. You may ask again.',
  barred: 'You cannot join this meeting.',
  expired: 'Nobody answered your request in time. You may ask again.',
};

const requestMemoryKey = (roomId: string) => `meet.request.${roomId}`;

/** The name and note this tab last asked with in a room (kept for "Ask again", across a reload or a reopened tab). */
export function rememberedRequest(roomId: string): { name?: string; note?: string } | null {
  const stored = storedGet('session', requestMemoryKey(roomId));
  if (stored === null) return null;
  try {
    const parsed = JSON.parse(stored) as { name?: unknown; note?: unknown } | null;
    if (!parsed || typeof parsed !== 'object') return null;
    // Only strings: whatever else the storage holds is not something she typed.
    return { ...(typeof parsed.name === 'string' ? { name: parsed.name } : {}), ...(typeof parsed.note === 'string' ? { note: parsed.note } : {}) };
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
 * Two parts side by side: her devices, and her request. The page shows nothing of the
 * meeting: no name, no moderators, no count. Polls every 2 s while waiting.
 */
export function waitingScreen(options: WaitingOptions): HTMLElement {
  const { roomId, devices } = options;
  // What she typed survives a reload of this tab, so "Ask again" works after one.
  const memoryKey = requestMemoryKey(roomId);
  const remembered = rememberedRequest(roomId) ?? {};
  const name = el('input', { name: 'name', value: options.name || remembered.name || '', maxlength: 64, required: true });
  const note = el('textarea', { name: 'note', maxlength: 280, rows: 3 });
  note.value = remembered.note ?? '';
  const state = el('p', { class: 'state', text: stateText.ready });
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
  const ask = button('Ask to join', () => void knock());
  const askAgain = button('Ask again', () => void knock(), { hidden: true });
  const leave = button('Leave', () => void withdraw());
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
    storedSet('session', memoryKey, JSON.stringify({ name: name.value.trim(), note: note.value }));
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
    startPolling();
  };

  const withdraw = async () => {
    stopPolling();
    await roomApi.withdraw(roomId);
    setState('ready');
  };

  // A closed window frees its place at once; the server's sweep is the fallback.
  const onPageHide = () => {
    if (state.textContent === stateText.waiting) roomApi.leaveBeacon(roomId);
  };
  window.addEventListener('pagehide', onPageHide);

  if (options.resumed) {
    setState('waiting');
    void poll();
    startPolling();
  } else if (options.lost) {
    setState('lost');
  }

  return el(
    'div',
    { class: 'two-parts' },
    devices.render(),
    el(
      'section',
      { 'aria-labelledby': 'request-heading' },
      el('h1', { id: 'request-heading', text: 'Your request to join' }),
      field('Your name', name),
      field('Note to the moderator (optional)', note, 'Up to 280 characters.'),
      state,
      error,
      el('div', { class: 'toolbar' }, ask, askAgain, leave),
    ),
  );
}
