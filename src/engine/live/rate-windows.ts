/** At most `count` events per `windowMs`. */
export interface RateLimit {
  readonly count: number;
  readonly windowMs: number;
}

/**
 * What a socket's window says of one more message: `admit`; `warn` (the first beyond the limit:
 * tell her once); `drop` (beyond it again: nothing is sent back, an answer per dropped message
 * would be a cost of its own); `close` (as many beyond the limit as within it: no page does
 * this, so the socket is cut).
 */
export type Allowance = 'admit' | 'warn' | 'drop' | 'close';

/**
 * A fixed window of one member's events of one kind (messages, chats, renames, ...): it opens
 * at the first event after the previous one closed. Cheap (two numbers a window) because the
 * live meeting keeps several per connection; a burst at a window's edge may pass twice the count,
 * which the limits allow for.
 */
export class RateWindow {
  private startMs: number;
  private count = 0;

  constructor(nowMs: number) {
    this.startMs = nowMs;
  }

  /** When the current window opened. */
  get openedAt(): number {
    return this.startMs;
  }

  /** Counts one event at `nowMs`; false when it is beyond the limit (counted all the same). */
  admit(nowMs: number, limit: RateLimit): boolean {
    return this.count1(nowMs, limit) <= limit.count;
  }

  /** Counts one event at `nowMs` and says what becomes of it (see Allowance); `close` comes once a window. */
  allowance(nowMs: number, limit: RateLimit): Allowance {
    const n = this.count1(nowMs, limit);
    if (n <= limit.count) return 'admit';
    if (n === limit.count + 1) return 'warn';
    return n === 2 * limit.count + 1 ? 'close' : 'drop';
  }

  private count1(nowMs: number, limit: RateLimit): number {
    if (nowMs - this.startMs >= limit.windowMs) {
      this.startMs = nowMs;
      this.count = 0;
    }
    return ++this.count;
  }
}
