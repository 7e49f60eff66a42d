import type { Clock } from '../../src/engine/clock.js';

/** Time moves only when a test says so, to the millisecond. */
export class FakeClock implements Clock {
  constructor(private ms = Date.parse('2030-01-01T09:00:00.000Z')) {}

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
