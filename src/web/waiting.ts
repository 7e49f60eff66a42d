import { announce } from './announce.js';
import { roomApi } from './api.js';
import { describe, joiningAs } from './arrival.js';
import type { Devices } from './devices.js';
import { button, el, field } from './dom.js';
import { linkHint } from './join-link.js';
import {
  elapsed,
  knockAnswered,
  knocked,
  mayPoll,
  OnePoll,
  openScreen,
  polled,
  pollsEnd,
  screenOf,
  withdrawn,
  type WaitingScreenState,
  type WaitingScreenStep,
  type WaitingStatus,
} from './state/waiting-screen.js';
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

const stateText: Record<WaitingStatus, string> = {
  ready: said.ready,
  // The network dropped: polls go on, and the next answer says whether the place is still hers.
  reconnecting: said.reconnecting,
  lost: said.lost,
  // Silent longer than the server's grace (a network drop, a frozen tab): the place is gone, and she is told why.
  timedOut: said.timedOut,
  waiting: said.waiting,
  admitted: said.admitted,
  refused: said.refused,
  barred: said.barred,
  expired: said.expired,
};

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
  /** Ask to join at once: the arrival's one button said so already (no second "Ask to join"). */
  readonly knockNow?: boolean;
  /** The note she wrote on the arrival screen. */
  readonly note?: string;
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
  const name = el('input', {
    name: 'name',
    value: linkName ?? (options.name || remembered.name || ''),
    maxlength: 64,
    required: true,
  });
  const note = el('textarea', { name: 'note', maxlength: 280, rows: 3 });
  note.value = options.note ?? remembered.note ?? '';
  const state = el('p', { class: 'state', text: stateText.ready });
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
  const ask = button(said.ask, () => void knock(), { class: 'primary' });
  const askAgain = button(said.askAgain, () => void knock(), { hidden: true, class: 'primary' });
  const leave = button(said.leave, () => void withdraw());
  // The status card: shown while her request waits, in place of the form.
  const waited = el('span', { class: 'waited-time', text: '0:00' });
  const noteSent = el('span', { class: 'note-sent' });
  const noteRow = el(
    'p',
    { class: 'card-line' },
    el('span', { class: 'card-label', text: `${said.noteSent}: ` }),
    noteSent,
  );
  const whoAsks = el('div');
  const asking = el(
    'p',
    { class: 'asking', tabindex: -1 },
    el('span', { class: 'live-dot', 'aria-hidden': 'true' }),
    el('strong', { text: said.asking }),
  );
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
  /** Her request as the screen knows it (state/waiting-screen.ts); the view draws it and does its effects. */
  let screen: WaitingScreenState = openScreen('fresh', remembered.at ?? Date.now()).state;
  let clock: number | null = null;
  let ticker: { stop(): void } | null = null;
  const polls = new OnePoll();
  /** When the server last answered a poll or her knock (a frozen tab hears nothing, and cannot tell). */
  let heardAt = Date.now();
  /** The devices were let go on a final answer. */
  let released = false;

  /** Draws the status: the card while she waits (the sentence above its details), otherwise the form to ask (again). */
  const draw = () => {
    const shows = screenOf(screen.status);
    state.textContent = stateText[screen.status];
    ask.hidden = !shows.ask;
    askAgain.hidden = !shows.askAgain;
    name.disabled = !shows.editable;
    note.disabled = !shows.editable;
    leave.hidden = !shows.leave;
    card.hidden = !shows.asked;
    form.hidden = !shows.form;
    if (shows.asked) card.insertBefore(state, card.children[1] ?? null);
    else form.before(state);
    whoAsks.replaceChildren(joiningAs(linkName ?? name.value.trim()));
    noteSent.textContent = note.value.trim();
    noteRow.hidden = note.value.trim() === '';
    if (clock !== null) window.clearInterval(clock);
    clock = null;
    if (shows.asked) {
      const since = screen.knockedAt;
      waited.textContent = elapsed(since, Date.now());
      clock = window.setInterval(
        () => (card.isConnected ? (waited.textContent = elapsed(since, Date.now())) : window.clearInterval(clock ?? 0)),
        1000,
      );
    }
  };

  /** The 2 s poll follows state.polling: started when it turns on, stopped when it turns off. */
  const followPolling = (was: boolean) => {
    if (screen.polling && !was) ticker = everyInterval(pollIntervalMs, () => void poll());
    if (!screen.polling) {
      ticker?.stop();
      ticker = null;
    }
  };

  const apply = (step: WaitingScreenStep) => {
    const was = screen.polling && ticker !== null;
    screen = step.state;
    followPolling(was);
    for (const effect of step.effects) {
      if (effect.do === 'status') {
        draw();
        announce(stateText[screen.status]);
        // A refusal or a bar is a final answer: the camera and microphone are let go ("Ask again" takes them back).
        if (screen.status === 'refused' || screen.status === 'barred') {
          devices.stop();
          released = true;
        }
      } else if (effect.do === 'focus') {
        (effect.on === 'card' ? asking : ask).focus();
      } else if (effect.do === 'error') {
        error.textContent = describe(effect.code, {
          retryAfter: effect.retryAfter,
          field: effect.field,
          name: name.value,
        });
        error.hidden = false;
      } else {
        window.removeEventListener('pagehide', onPageHide);
        window.removeEventListener('online', onOnline);
        options.admitted(effect.session);
      }
    }
  };

  /** `online`: the browser says the network is back, so the page re-attaches at once instead of after its back-off. */
  const poll = async (online = false) => {
    // One poll at a time (a hung one is given up, api.ts); the network back meanwhile is not forgotten.
    if (!polls.free(online) || !mayPoll(screen, Date.now(), online)) return;
    if (roomApi.withdrawn(roomId)) return apply({ state: pollsEnd(screen), effects: [] });
    polls.begin();
    let again = false;
    const result = await roomApi.poll(roomId).finally(() => (again = polls.end()));
    const now = Date.now();
    apply(polled(screen, result, { now, silentFor: now - heardAt }));
    if (result.ok) heardAt = now;
    if (again && screen.polling) void poll(true);
  };
  const onOnline = () => {
    if (screen.polling) void poll(true);
  };
  window.addEventListener('online', onOnline);

  const knock = async () => {
    error.hidden = true;
    if (released) void devices.start();
    released = false;
    screen = knocked(screen, Date.now());
    storedSet(
      'session',
      memoryKey,
      JSON.stringify({ name: name.value.trim(), note: note.value, at: screen.knockedAt }),
    );
    heardAt = Date.now();
    const result = await roomApi.knock(roomId, {
      name: name.value.trim(),
      note: note.value,
      ...(options.accessCode ? { access_code: options.accessCode } : {}),
      ...(options.joinToken ? { t: options.joinToken } : {}),
    });
    apply(knockAnswered(screen, result));
  };

  const withdraw = async () => {
    apply({ state: pollsEnd(screen), effects: [] });
    await roomApi.withdraw(roomId);
    apply(withdrawn(screen));
  };

  // A closed window frees its place at once; the server's sweep is the fallback.
  const onPageHide = () => {
    if (screen.status === 'waiting') roomApi.leaveBeacon(roomId);
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
  if (options.resumed || options.lost) {
    apply(openScreen(options.resumed ? 'resumed' : 'lost', screen.knockedAt));
    if (options.resumed) void poll();
  } else if (options.knockNow) {
    void knock();
  }
  return el('div', { class: 'two-parts' }, request, devices.render());
}
