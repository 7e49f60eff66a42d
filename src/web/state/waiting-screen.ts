/**
 * The waiting screen's state (her own request: ask, wait, and the answer), kept by a reducer:
 * her gestures and the server's answers in, the status, what the screen shows and what the view
 * must do (poll, focus, go into the meeting) out. No DOM, no timers: time comes in as `now`.
 * The screen shows nothing of the meeting (no name, no count, no position in the queue).
 */
import type { PollAnswer } from '../api.js';

export type WaitingStatus = PollAnswer['status'] | 'ready' | 'reconnecting' | 'lost';

export interface WaitingScreenState {
  readonly status: WaitingStatus;
  /** When she knocked (milliseconds), for the time waited. */
  readonly knockedAt: number;
  /** The 2 s poll runs. */
  readonly polling: boolean;
}

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

const to = (state: WaitingScreenState, status: WaitingStatus, polling = state.polling): WaitingScreenState => ({
  ...state,
  status,
  polling,
});

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
 * A poll's answer. The request gone (404): her place is lost. No network (status 0): she is told
 * once that the page reconnects, and polls go on. An answer other than waiting ends the polls.
 * A status already shown is not said again.
 */
export function polled(state: WaitingScreenState, result: PollResult): WaitingScreenStep {
  if (!result.ok) {
    if (result.error.status === 404) return { state: to(state, 'lost', false), effects: [{ do: 'status' }] };
    if (result.error.status === 0 && state.status !== 'reconnecting')
      return { state: to(state, 'reconnecting'), effects: [{ do: 'status' }] };
    return { state, effects: [] };
  }
  const answer = result.body;
  if (answer.status === 'admitted')
    return {
      state: to(state, 'admitted', false),
      effects: [{ do: 'status' }, { do: 'enter', session: answer.session }],
    };
  const polling = answer.status === 'waiting' && state.polling;
  if (answer.status === state.status) return { state: to(state, state.status, polling), effects: [] };
  return { state: to(state, answer.status, polling), effects: [{ do: 'status' }] };
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
    askAgain: status === 'refused' || status === 'expired' || status === 'lost',
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
