import { isLiveErrorCode, type LiveErrorCode, type ServerMessage } from '../../protocol/live.js';
import { EngineError } from '../errors.js';
import type { EngineLog } from '../listeners.js';
import type { Outbox } from './outbox.js';
import type { RateLimit, RateWindow } from './rate-windows.js';

export const liveError = (code: LiveErrorCode, message: string): ServerMessage => ({ type: 'error', code, message });

/**
 * The engine's refusal of a gesture, passed on to its sender with the engine's code and words.
 * A code the live table does not list is a refusal this socket was never meant to meet: it goes
 * to the log (rethrown to the guard), not onto the wire as a code no client knows.
 */
export function refusal(err: EngineError): ServerMessage {
  if (!isLiveErrorCode(err.code)) throw err;
  return liveError(err.code, err.message);
}

/**
 * Whether a member's change to the meeting (a subject, a removal, a switch, a sub-group gesture)
 * fits her settings window; beyond it she alone is told, and nothing is done.
 */
export function settingsAllowed(
  member: { readonly windows: { readonly settings: RateWindow }; readonly outbox: Outbox },
  nowMs: number,
  limit: RateLimit,
): boolean {
  if (member.windows.settings.admit(nowMs, limit)) return true;
  member.outbox.send(liveError('rate_limited', 'too many changes to the meeting; wait a few seconds'));
  return false;
}

/** Runs an engine call for a member; its refusal goes back to her as a live error (code and words), never further. */
export function engineCall<T>(outbox: Outbox, fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    outbox.send(refusal(err));
    return null;
  }
}

/** `engineCall` for an engine call that awaits the store: a rejection with a refusal goes back to her the same way. */
export async function engineCallAsync<T>(outbox: Outbox, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    outbox.send(refusal(err));
    return null;
  }
}

/**
 * Background work of the live meeting (a timer, a socket's event, a waiting-list push) has no
 * caller to hand a failure to: it is logged under its name, like a failing engine listener.
 */
export function guarded(log: EngineLog, context: string, fn: () => void | Promise<unknown>): void {
  const failed = (err: unknown) => log.error({ err, event: context }, `live connection: ${context} failed`);
  try {
    const pending = fn();
    // Work that awaits the store (a leave after the grace) fails later: logged the same way.
    if (pending instanceof Promise) pending.catch(failed);
  } catch (err) {
    failed(err);
  }
}

/** As `guarded`, for work a caller still waits for (the hub's close): resolves once all settled, each failure logged. */
export async function guardedAll(log: EngineLog, context: string, pending: Promise<unknown>[]): Promise<void> {
  for (const result of await Promise.allSettled(pending))
    if (result.status === 'rejected')
      log.error({ err: result.reason, event: context }, `live connection: ${context} failed`);
}
