import { RawConnection } from './raw-http.js';

/** One open waiting request: its poll address and cookie, as a browser would hold them. */
export interface Waiter {
  readonly path: string;
  readonly cookieHeader: string;
  lastPolledMs: number;
  lost: boolean;
}

/**
 * Keeps waiting requests alive the way their pages would: the engine closes a request not
 * polled for SERVICE_WAITING_CLOSED_WINDOW_SECS (default 6 s; closed window,
 * src/engine/waiting/waiting-room-service.ts), so every request is polled at least every
 * `periodMs`, which the caller keeps under the daemon's window.
 *
 * The keeper and the measured poll scenario share one queue ordered by last poll (`next()`
 * takes the one polled longest ago and puts it back at the end; a new request joins at the
 * end), so while the scenario's own rotation polls everyone often enough the keeper has
 * nothing to do, and when it does not, the keeper's polls fill in. N open requests need
 * N / `periodMs` polls per second just to stay alive: 11,000 a second for 50,000 at 4.5 s, 2,200
 * at 22.5 s (the poll scenario's, under a 30 s window). A 404 marks a request lost (the sweep closed it).
 */
export class Keeper {
  /** Every waiter ever added, lost ones included. */
  readonly waiters: Waiter[] = [];
  polls = 0;
  lost = 0;
  /** Waiters not lost, oldest poll first: `queue[head]` is the next one due. */
  private queue: Waiter[] = [];
  private head = 0;
  private running = false;
  private workers: Promise<void>[] = [];
  private readonly connections: RawConnection[] = [];

  constructor(
    private readonly url: string,
    readonly periodMs = 3000,
    private readonly concurrency = 32,
  ) {}

  add(path: string, cookieHeader: string): Waiter {
    const waiter: Waiter = { path, cookieHeader, lastPolledMs: Date.now(), lost: false };
    this.waiters.push(waiter);
    this.queue.push(waiter);
    return waiter;
  }

  /** The waiter polled longest ago, moved to the end of the queue; the caller polls it. */
  next(): Waiter {
    // With every request lost there is nothing left to keep: the scenario polls the first one (and gets its 404).
    const waiter = this.peek() ?? this.waiters[0]!;
    if (this.queue[this.head] === waiter) this.take();
    waiter.lastPolledMs = Date.now();
    if (!waiter.lost) this.queue.push(waiter);
    return waiter;
  }

  /** How long ago the waiter polled longest ago was polled, in ms. */
  headAgeMs(): number {
    const head = this.peek();
    return head ? Date.now() - head.lastPolledMs : 0;
  }

  /**
   * Setup knocks wait while the keeper is behind, so the population is never starved of
   * polls. Throws when it stays behind for `giveUpMs`: the daemon cannot poll that many.
   */
  async whileBehind(giveUpMs = 20_000): Promise<void> {
    const since = Date.now();
    while (this.running && this.headAgeMs() > this.periodMs) {
      if (Date.now() - since > giveUpMs) {
        throw new Error(
          `the keeper stayed behind for ${giveUpMs / 1000} s with ${this.alive} requests open: the daemon cannot poll them every ${this.periodMs / 1000} s`,
        );
      }
      await sleep(10);
    }
  }

  get alive(): number {
    return this.waiters.length - this.lost;
  }

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.workers = Array.from({ length: this.concurrency }, () => {
      const connection = RawConnection.forUrl(this.url);
      this.connections.push(connection);
      return this.work(connection);
    });
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
    this.workers = [];
    for (const connection of this.connections.splice(0)) connection.close();
  }

  /** Marks a waiter whose poll answered 404 (its request was swept) as lost. */
  markLost(waiter: Waiter): void {
    if (!waiter.lost) {
      waiter.lost = true;
      this.lost += 1;
    }
  }

  private async work(connection: RawConnection): Promise<void> {
    while (this.running) {
      const head = this.peek();
      const dueInMs = head ? head.lastPolledMs + this.periodMs - Date.now() : 20;
      if (dueInMs > 0) {
        await sleep(Math.min(dueInMs, 20));
        continue;
      }
      const waiter = this.next();
      try {
        const status = await connection.get(waiter.path, waiter.cookieHeader);
        this.polls += 1;
        if (status === 404) this.markLost(waiter);
      } catch {
        // a refused connection under overload: the next round tries again
      }
    }
  }

  private take(): Waiter {
    const waiter = this.queue[this.head++]!;
    // Compact now and then so the queue does not grow without bound.
    if (this.head > 65_536 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return waiter;
  }

  private peek(): Waiter | undefined {
    while (this.head < this.queue.length && this.queue[this.head]!.lost) this.take();
    return this.queue[this.head];
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
