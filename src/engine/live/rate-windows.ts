/** At most `count` events per `windowMs`. */
export interface RateLimit {
  readonly count: number;
  readonly windowMs: number;
}

/**
 * A fixed window of one member's events of one kind (messages, chats, renames, ...): it opens
 * at the first event after the previous one closed. Cheap (two numbers a window) because the
 * live meeting keeps five per connection; a burst at a window's edge may pass twice the count,
 * which the limits allow for.
 */
export class RateWindow {
  private startMs: number;
  private count = 0;

  constructor(nowMs: number) {
    this.startMs = nowMs;
  }

  /** Counts one event at `nowMs`; false when it is beyond the limit (counted all the same). */
  admit(nowMs: number, limit: RateLimit): boolean {
    if (nowMs - this.startMs >= limit.windowMs) {
      this.startMs = nowMs;
      this.count = 0;
    }
    this.count++;
    return this.count <= limit.count;
  }
}
