import type { Clock, Scheduler } from '../../src/engine/clock.js';

/** Time moves only when a test says so, to the millisecond. */
export class FakeClock implements Clock {
  constructor(private ms = Date.parse('2030-01-01T09:00:00.000Z')) {}

  now(): Date {
    return new Date(this.ms);
  }

  nowMs(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Timers that fire only when the test advances the fake clock through them, in order. */
export class FakeScheduler implements Scheduler {
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(private readonly clock: FakeClock) {}

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.clock.now().getTime() + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers set and neither run nor cleared. */
  get size(): number {
    return this.timers.size;
  }

  /** Moves the clock forward by `ms`, running each timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.clock.now().getTime() + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      const [id, timer] = due;
      this.clock.advance(Math.max(0, timer.at - this.clock.now().getTime()));
      this.timers.delete(id);
      timer.fn();
    }
    this.clock.advance(end - this.clock.now().getTime());
  }
}
