/**
 * The waiting screen's state (her own request: ask, wait, and the answer), kept by a reducer:
 * her gestures and the server's answers in, the status, what the screen shows and what the view
 * must do (poll, focus, go into the meeting) out. No DOM, no timers: time comes in as `now`.
 * The screen shows nothing of the meeting (no name, no count, no position in the queue).
 */
import type { PollAnswer } from '../api.js';

export type WaitingStatus = PollAnswer['status'] | 'ready' | 'reconnecting' | 'lost' | 'timedOut';

export interface WaitingScreenState {
  readonly status: WaitingStatus;
  /** When she knocked (milliseconds), for the time waited. */
  readonly knockedAt: number;
  /** The 2 s poll runs. */
  readonly polling: boolean;
  /** While the network is gone: polls failed in a row, and when the next may go (backing off). */
  readonly retry?: { readonly failures: number; readonly at: number };
}

/** Polls back off while the network is gone: 2 s, 4 s, 8 s, then every 10 s (well within the server's 60 s grace). */
export function retryDelayMs(failures: number): number {
  return Math.min(2000 * 2 ** Math.max(0, failures - 1), 10_000);
}

/** Silence this long (three missed polls) is a lost connection, as the server counts it. */
export const silentAfterMs = 6000;

export type WaitingScreenEffect =
  /** Say the status (the view's sentence for it, spoken too). */
  | { readonly do: 'status' }
  | { readonly do: 'focus'; readonly on: 'card' | 'ask' }
  /** A knock the server refused: say why, under the form. */
  | { readonly do: 'error'; readonly code: string; readonly retryAfter: number | null; readonly field: string | null }
  | { readonly do: 'enter'; readonly session: string };

export interface WaitingScreenStep {
  readonly state: WaitingScreenState;
  readonly effects: readonly WaitingScreenEffect[];
}

/** What the page knows when it opens: a request still there after a reload, one the server let go, or none. */
export function openScreen(how: 'fresh' | 'resumed' | 'lost', knockedAt: number): WaitingScreenStep {
  const status: WaitingStatus = how === 'resumed' ? 'waiting' : how === 'lost' ? 'lost' : 'ready';
  return {
    state: { status, knockedAt, polling: how === 'resumed' },
    effects: how === 'fresh' ? [] : [{ do: 'status' }],
  };
}

const to = (state: WaitingScreenState, status: WaitingStatus, polling = state.polling): WaitingScreenState => {
  const { retry: _, ...rest } = state;
  return { ...rest, status, polling };
};

/** She asks (again): the time waited counts from now. */
export function knocked(state: WaitingScreenState, now: number): WaitingScreenState {
  return { ...state, knockedAt: now };
}

type KnockAnswer =
  | {
      readonly ok: true;
      readonly body: { readonly status: 'joined'; readonly session: string } | { readonly status: 'waiting' };
    }
  | {
      readonly ok: false;
      readonly error: { readonly code: string; readonly retryAfter: number | null; readonly field: string | null };
    };

/** The server's answer to her knock. */
export function knockAnswered(state: WaitingScreenState, answer: KnockAnswer): WaitingScreenStep {
  if (!answer.ok) {
    if (answer.error.code === 'barred') return { state: to(state, 'barred'), effects: [{ do: 'status' }] };
    const { code, retryAfter, field } = answer.error;
    return { state, effects: [{ do: 'error', code, retryAfter, field }] };
  }
  if (answer.body.status === 'joined') return { state, effects: [{ do: 'enter', session: answer.body.session }] };
  // Her button is gone: the focus goes to the card that replaced it, not to the page's body.
  return { state: to(state, 'waiting', true), effects: [{ do: 'status' }, { do: 'focus', on: 'card' }] };
}

type PollResult =
  | { readonly ok: true; readonly body: PollAnswer }
  | { readonly ok: false; readonly error: { readonly status: number } };

/**
 * A poll's answer. No network (status 0, or no answer in time): she is told once that the page
 * reconnects, and polls go on, backing off (`retry`). The request gone (404): her place is lost;
 * when the page had lost its connection (or heard nothing for `silentFor` ms, a frozen tab) the
 * grace ran out, and she is told so. An answer other than waiting ends the polls. A status
 * already shown is not said again. `now`: milliseconds, for the back-off.
 */
export function polled(
  state: WaitingScreenState,
  result: PollResult,
  { now = 0, silentFor = 0 }: { readonly now?: number; readonly silentFor?: number } = {},
): WaitingScreenStep {
  if (!result.ok) {
    if (result.error.status === 404) {
      const timedOut = state.status === 'reconnecting' || silentFor >= silentAfterMs;
      return { state: to(state, timedOut ? 'timedOut' : 'lost', false), effects: [{ do: 'status' }] };
    }
    if (result.error.status === 0) {
      const failures = (state.retry?.failures ?? 0) + 1;
      const next = { ...to(state, 'reconnecting'), retry: { failures, at: now + retryDelayMs(failures) } };
      return { state: next, effects: state.status === 'reconnecting' ? [] : [{ do: 'status' }] };
    }
    return { state, effects: [] };
  }
  const answer = result.body;
  if (answer.status === 'admitted')
    return {
      state: to(state, 'admitted', false),
      effects: [{ do: 'status' }, { do: 'enter', session: answer.session }],
    };
  const polling = answer.status === 'waiting' && state.polling;
  if (answer.status === state.status && !state.retry) return { state: to(state, state.status, polling), effects: [] };
  return {
    state: to(state, answer.status, polling),
    effects: answer.status === state.status ? [] : [{ do: 'status' }],
  };
}

/** Whether a poll may go now: always while connected; while reconnecting, once the back-off passed, or at once when the browser is back online (`online`). */
export function mayPoll(state: WaitingScreenState, now: number, online = false): boolean {
  return online || !state.retry || now >= state.retry.at;
}

/** Polls stop: she is leaving, or the page withdrew her request elsewhere (an embedding app's hangup). */
export function pollsEnd(state: WaitingScreenState): WaitingScreenState {
  return to(state, state.status, false);
}

/** She left the queue (Leave): back to the form, focus on Ask. */
export function withdrawn(state: WaitingScreenState): WaitingScreenStep {
  return { state: to(state, 'ready', false), effects: [{ do: 'status' }, { do: 'focus', on: 'ask' }] };
}

/** What the screen shows in a status: the card while she waits, the form to ask (again) otherwise. */
export function screenOf(status: WaitingStatus): {
  readonly asked: boolean;
  readonly ask: boolean;
  readonly askAgain: boolean;
  readonly editable: boolean;
  readonly leave: boolean;
  readonly form: boolean;
} {
  const asked = status === 'waiting' || status === 'reconnecting';
  return {
    asked,
    ask: status === 'ready',
    askAgain: status === 'refused' || status === 'expired' || status === 'lost' || status === 'timedOut',
    editable: !asked && status !== 'barred',
    leave: status !== 'barred',
    form: !asked && status !== 'barred',
  };
}

/** 0:07, 1:05, 12:40: minutes and seconds since she knocked. */
export function elapsed(sinceMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - sinceMs) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * One poll at a time (a slow answer must not pile requests up behind it), without forgetting a
 * network that came back while one was under way: that poll may have gone into the dead network
 * and only fail (or time out) later, and its failure would set the back-off further out. So its
 * end says to poll again at once, as the browser's `online` would have.
 */
export class OnePoll {
  private running = false;
  private onlineMeanwhile = false;

  /** Whether a poll may start now; `online` asked while one runs is kept for its end. */
  free(online: boolean): boolean {
    if (this.running && online) this.onlineMeanwhile = true;
    return !this.running;
  }

  begin(): void {
    this.running = true;
  }

  /** The poll ended: whether the network came back meanwhile (then poll again at once). */
  end(): boolean {
    const again = this.onlineMeanwhile;
    this.running = false;
    this.onlineMeanwhile = false;
    return again;
  }
}
